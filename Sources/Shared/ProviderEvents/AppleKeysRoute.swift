/// How a relay-mode box reaches Apple's keys (`apple-notify`; issue 29). `appleid.apple.com` has
/// no IPv6 address, but relay mode is also chosen to keep Apple's team key off a box that has
/// IPv4: so directly first, and through `apple.keysProxy` only when the direct request got no
/// answer at all (no address, no route, refused, timed out). An answer, whatever its status, is
/// Apple's. When neither way answers, the key cache serves its copy (fresh, or expired within its
/// grace), else `apple-notify` answers 503 and Apple retries.
final class AppleKeysRoute: HTTPClient {
    let direct: HTTPClient
    let proxy: String?
    let http: Config.HTTP

    init(direct: HTTPClient, proxy: String?, http: Config.HTTP) {
        self.direct = direct
        self.proxy = proxy
        self.http = http
    }

    func send(_ request: HTTPRequest) throws(FrontdoorError) -> HTTPResponse {
        let directly: FrontdoorError
        do {
            return try direct.send(request)
        } catch {
            directly = error
        }
        let why = directly.detail ?? directly.message
        guard let proxy else { throw .upstream("keys=unreachable: directly (\(why)), and no apple.keysProxy") }
        FileIO.log("frontdoor endpoint=apple-notify keys=proxy reason=directly: \(why)")
        do {
            return try Self.proxied(proxy, http: http).send(request)
        } catch {
            throw .upstream("keys=unreachable: directly (\(why)), and through apple.keysProxy (\(error.detail ?? error.message))")
        }
    }

    /// A client whose every request goes through the HTTP proxy `proxy` (an `https://` URL through
    /// its CONNECT tunnel: TLS stays end to end with Apple).
    static func proxied(_ proxy: String, http: Config.HTTP, timeoutSeconds: Double? = nil) -> CurlHTTPClient {
        let client = CurlHTTPClient(
            connectTimeoutSeconds: min(http.connectTimeoutSeconds, timeoutSeconds ?? .infinity),
            totalTimeoutSeconds: timeoutSeconds ?? http.totalTimeoutSeconds, maxResponseBytes: http.maxResponseBytes)
        client.proxy = proxy
        return client
    }
}
