import CCurl
#if canImport(Glibc)
import Glibc
#endif

/// Runs once per process, before the first easy handle. A Swift global's initializer is guarded by
/// `swift_once`, so racing threads cannot run it twice; curl_global_init is still not safe while
/// another thread is inside libcurl or OpenSSL, which a CGI process (one thread that talks to the
/// network) never has.
let curlGlobalInit: CURLcode = {
    // With CURLOPT_NOSIGNAL libcurl leaves SIGPIPE alone, and a peer that closes while we write
    // (through OpenSSL's socket writes, say) must be an error, not the death of the process.
    signal(SIGPIPE, SIG_IGN)
    return frontdoor_curl_global_init_default()
}()

/// `HTTPClient` over libcurl. Not thread-safe: one instance per thread (a CGI process has one).
///
/// Only `https://` URLs, and `http://` to loopback, are sent (rule 8); redirects are never followed;
/// TLS peers are verified with libcurl's defaults. A request without a `Content-Type` header but with
/// a body goes out with libcurl's default, `application/x-www-form-urlencoded`.
public final class CurlHTTPClient: HTTPClient {
    public let connectTimeoutSeconds: Double
    public let totalTimeoutSeconds: Double
    public let maxResponseBytes: Int
    /// Connections opened so far, summed from CURLINFO_NUM_CONNECTS: calls to the same host share one
    /// (keep-alive), because one easy handle, with its connection cache, serves every call.
    public private(set) var connectionsOpened = 0
    /// `host:port:address` entries answered instead of DNS (CURLOPT_RESOLVE): frontdoor-check uses
    /// them so its HTTPS probe goes where its own, injectable, name lookup said.
    public var resolveOverrides: [String] = []
    /// An HTTP proxy (`apple.keysProxy`) every request of this client goes through; nil: none,
    /// whatever the environment says.
    public var proxy: String?

    private let handle: UnsafeMutableRawPointer?

    public init(
        connectTimeoutSeconds: Double = 3, totalTimeoutSeconds: Double = 5, maxResponseBytes: Int = 1 << 20
    ) {
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.totalTimeoutSeconds = totalTimeoutSeconds
        self.maxResponseBytes = max(0, maxResponseBytes)
        handle = curlGlobalInit == CURLE_OK ? curl_easy_init() : nil
    }

    deinit {
        if let handle { curl_easy_cleanup(handle) }
    }

    public func send(_ request: HTTPRequest) throws(FrontdoorError) -> HTTPResponse {
        guard let parts = OutboundURL.parse(request.url), parts.scheme == "http" || parts.scheme == "https",
              OutboundURL.classify(request.url) != nil
        else {
            let host = OutboundURL.host(of: request.url) ?? "unparsable URL"
            throw .internal("outbound URL refused (TLS or loopback only): \(host)")
        }
        try Self.validate(request)
        guard let handle else { throw .internal("libcurl could not be initialised") }

        // Back to defaults each call (the connection cache survives), so no option leaks between calls.
        curl_easy_reset(handle)
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        var lines = request.headers.map { $0.1.isEmpty ? "\($0.0);" : "\($0.0): \($0.1)" }
        // libcurl would otherwise wait up to a second for `100 Continue` before sending a large body.
        if !request.headers.contains(where: { $0.0.lowercased() == "expect" }) { lines.append("Expect:") }
        for line in lines {
            guard let appended = curl_slist_append(headerList, line) else {
                throw .internal("curl_slist_append failed")
            }
            headerList = appended
        }

        var resolveList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(resolveList) }
        for entry in resolveOverrides {
            guard let appended = curl_slist_append(resolveList, entry) else {
                throw .internal("curl_slist_append failed")
            }
            resolveList = appended
        }

        let transfer = CurlTransfer(maxBodyBytes: maxResponseBytes)
        let context = Unmanaged.passRetained(transfer)
        defer { context.release() }

        // Runs before the list and the box go: the idle handle never points at freed memory.
        defer { curl_easy_reset(handle) }
        try configure(handle, request, headerList, context.toOpaque())
        if resolveList != nil {
            guard frontdoor_curl_setopt_ptr(handle, CURLOPT_RESOLVE, resolveList) == CURLE_OK else {
                throw .internal("curl_easy_setopt(CURLOPT_RESOLVE) failed")
            }
        }
        let result = curl_easy_perform(handle)
        var connects = 0
        if frontdoor_curl_getinfo_long(handle, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK {
            connectionsOpened += connects
        }

        if transfer.bodyTooLarge || result == CURLE_FILESIZE_EXCEEDED {
            throw .upstream("\(parts.host): response too large")
        }
        if transfer.headersTooLarge { throw .upstream("\(parts.host): response headers too large") }
        guard result == CURLE_OK else {
            var error = FrontdoorError.upstream(
                "\(parts.host): \(String(cString: curl_easy_strerror(result)))" + Self.unreachableReason(result, host: parts.host))
            var pretransfer: curl_off_t = 0
            let reachedTransfer = frontdoor_curl_getinfo_off_t(handle, CURLINFO_PRETRANSFER_TIME_T, &pretransfer)
                != CURLE_OK || pretransfer > 0
            error.requestNeverSent = Self.neverSent(result, reachedTransfer: reachedTransfer)
            throw error
        }
        var status = 0
        guard frontdoor_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK,
              (200...599).contains(status)
        else { throw .upstream("\(parts.host): no final HTTP status") }
        return HTTPResponse(status: status, headers: transfer.headers, body: transfer.body)
    }

    private func configure(
        _ handle: UnsafeMutableRawPointer, _ request: HTTPRequest, _ headerList: UnsafeMutablePointer<curl_slist>?,
        _ context: UnsafeMutableRawPointer
    ) throws(FrontdoorError) {
        let options = CurlOptions(handle: handle)
        try options.set(CURLOPT_URL, request.url)
        // No signals: the process's own alarm (rule 9) must stay the only SIGALRM.
        try options.set(CURLOPT_NOSIGNAL, 1)
        // A name lookup past the connect time-out is abandoned, not waited for: libcurl would
        // otherwise join its resolver thread, held by glibc's own time-outs (5 s a try, two tries).
        try options.set(CURLOPT_QUICK_EXIT, 1)
        try options.set(CURLOPT_PROTOCOLS_STR, "http,https")
        try options.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        try options.set(CURLOPT_FOLLOWLOCATION, 0)
        try options.set(CURLOPT_CONNECTTIMEOUT_MS, Self.millis(connectTimeoutSeconds))
        try options.set(CURLOPT_TIMEOUT_MS, Self.millis(totalTimeoutSeconds))
        // Refuses early when Content-Length says too much; the write callback catches the rest.
        try options.set(CURLOPT_MAXFILESIZE_LARGE, offset: maxResponseBytes)
        try options.set(CURLOPT_USERAGENT, "frontdoor")
        // The defaults write to stdout, which in a CGI process is the answer: always set both.
        try options.set(CURLOPT_WRITEFUNCTION, callback: CurlCallbacks.body)
        try options.set(CURLOPT_WRITEDATA, pointer: context)
        try options.set(CURLOPT_HEADERFUNCTION, callback: CurlCallbacks.header)
        try options.set(CURLOPT_HEADERDATA, pointer: context)
        try options.set(CURLOPT_HTTPHEADER, pointer: headerList)
        // "" turns off libcurl's reading of proxy variables from the environment. An https://
        // URL always goes through a proxy's CONNECT tunnel, so TLS stays end to end.
        try options.set(CURLOPT_PROXY, proxy ?? "")

        let method = request.method
        if method == "POST" || !request.body.isEmpty {
            try options.set(CURLOPT_POST, 1)
            // The size first, so COPYPOSTFIELDS copies that many bytes instead of calling strlen.
            try options.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: request.body.count)
            // Never a null pointer: libcurl would then read the body from stdin, the CGI request.
            if request.body.isEmpty {
                try options.set(CURLOPT_COPYPOSTFIELDS, "")
            } else {
                try options.set(CURLOPT_COPYPOSTFIELDS, copying: request.body)
            }
            if method != "POST" { try options.set(CURLOPT_CUSTOMREQUEST, method) }
        } else if method == "GET" {
            try options.set(CURLOPT_HTTPGET, 1)
        } else if method == "HEAD" {
            try options.set(CURLOPT_NOBODY, 1)
        } else {
            try options.set(CURLOPT_CUSTOMREQUEST, method)
        }
    }

    /// Whether a failed transfer provably sent nothing the server could act on: it never had an
    /// address or a connection, its TLS handshake failed (the request goes only after it), or it
    /// timed out before the transfer phase began. Anything else may have been received.
    static func neverSent(_ result: CURLcode, reachedTransfer: Bool) -> Bool {
        switch result {
        case CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_SSL_CONNECT_ERROR,
            CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return true
        case CURLE_OPERATION_TIMEDOUT:
            return !reachedTransfer
        default:
            return false
        }
    }

    /// Why a host that resolved could not be reached, when the answer is the seed's: a name with
    /// no AAAA record seen from a box with no IPv4 route (Apple's sign-in service). Asked of DNS
    /// only on that failure.
    static func unreachableReason(_ result: CURLcode, host: String, resolver: NameResolver = SystemResolver()) -> String {
        guard result == CURLE_COULDNT_CONNECT, !SelfCheck.isAddressLiteral(host), resolver.addresses(of: host, family: AF_INET6).isEmpty,
            !resolver.addresses(of: host, family: AF_INET).isEmpty
        else { return "" }
        return " (\(host) has no IPv6 address, `dig AAAA \(host)` answers none, and its IPv4 one cannot be reached from here)"
    }

    /// The same, by libcurl's number for the code (tests, which do not import CCurl).
    static func neverSent(code: Int, reachedTransfer: Bool) -> Bool {
        neverSent(CURLcode(rawValue: UInt32(clamping: code)), reachedTransfer: reachedTransfer)
    }

    static func unreachableReason(code: Int, host: String, resolver: NameResolver) -> String {
        unreachableReason(CURLcode(rawValue: UInt32(clamping: code)), host: host, resolver: resolver)
    }

    /// A method or header that could smuggle a second line into the request is a bug, not input.
    private static func validate(_ request: HTTPRequest) throws(FrontdoorError) {
        let token = { (c: UInt8) in c > 0x20 && c < 0x7F && !"()<>@,;:\\\"/[]?={}".utf8.contains(c) }
        guard !request.method.isEmpty, request.method.utf8.allSatisfy(token) else {
            throw .internal("invalid HTTP method")
        }
        for (name, value) in request.headers {
            guard !name.isEmpty, name.utf8.allSatisfy(token),
                  value.utf8.allSatisfy({ $0 != 0x0D && $0 != 0x0A && $0 != 0 })
            else { throw .internal("invalid HTTP header \(name.utf8.allSatisfy(token) ? name : "name")") }
        }
    }

    private static func millis(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 1 }
        return Int((min(seconds, 86_400) * 1000).rounded(.up))
    }
}
