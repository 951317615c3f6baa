#if canImport(Glibc)
import Glibc
#endif

extension SelfCheck {
    /// Issue 24: the origins the passkeys section allows, and the live association files of
    /// `passkeys.siteUrl` against it. A site that cannot be reached from here fails nothing (the
    /// phones reach it through Apple's CDN and Google's verifier, not through this box): it is said.
    func checkPasskeys(_ config: Config, note: (Bool, String) -> Void) {
        guard let passkeys = config.passkeys else { return }
        note(true, "passkeys: RP ID \(passkeys.rpId), allowed origins " + passkeys.relyingParty.origins.joined(separator: ", "))
        let client = CurlHTTPClient(connectTimeoutSeconds: min(timeoutSeconds, 3), totalTimeoutSeconds: timeoutSeconds)
        if let reason = routeSite(passkeys.siteUrl, client: client) {
            note(true, "passkeys: \(passkeys.siteUrl) cannot be reached from here (\(reason)): association files not compared")
            return
        }
        compare(
            passkeys.siteUrl + "/.well-known/" + PasskeyAssociationFiles.appleName, client: client,
            configured: !passkeys.iosAppIds.isEmpty, what: "passkeys.iosAppIds", note: note
        ) { PasskeyAssociationDiff.apple($0, iosAppIds: passkeys.iosAppIds) }
        compare(
            passkeys.siteUrl + "/.well-known/" + PasskeyAssociationFiles.androidName, client: client,
            configured: !passkeys.androidApps.isEmpty, what: "passkeys.androidApps", note: note
        ) { PasskeyAssociationDiff.android($0, apps: passkeys.androidApps) }
    }

    /// Points the client at the addresses this box's lookup (`--hosts`) and routes allow; nil when
    /// there is one, else why not.
    private func routeSite(_ url: String, client: CurlHTTPClient) -> String? {
        guard let parts = OutboundURL.parse(url) else { return "cannot parse it" }
        guard !Self.isAddressLiteral(parts.host) else { return nil }
        let usable = (routes.ipv4 ? resolver.addresses(of: parts.host, family: AF_INET) : [])
            + (routes.ipv6 ? resolver.addresses(of: parts.host, family: AF_INET6) : [])
        guard !usable.isEmpty else { return "\(parts.host) has no address this host can reach" }
        let port = parts.port ?? Self.defaultPort(parts.scheme)
        client.resolveOverrides = ["\(parts.host):\(port):" + usable.map { $0.contains(":") ? "[\($0)]" : $0 }.joined(separator: ",")]
        return nil
    }

    /// One file: fetched, then held to the config. Apple's CDN and Android's verifier take it only
    /// as a 200 of `application/json`, without redirects.
    private func compare(
        _ url: String, client: CurlHTTPClient, configured: Bool, what: String, note: (Bool, String) -> Void,
        differences: (JSONValue) -> [String]
    ) {
        let response: HTTPResponse
        do {
            response = try client.send(HTTPRequest(method: "GET", url: url))
        } catch {
            note(true, "passkeys: \(url) cannot be fetched (\(error.detail ?? error.message)): not compared")
            return
        }
        if response.status == 404 && !configured {
            note(true, "passkeys: \(url): none served, and \(what) is empty")
            return
        }
        guard response.status == 200 else {
            let redirect = (300..<400).contains(response.status) ? " (a redirect: the phones follow none for this file)" : ""
            note(false, "passkeys: \(url) answered HTTP \(response.status)\(redirect); serve the file "
                + "frontdoor-check --print-association-files writes")
            return
        }
        var found: [String] = []
        let type = response.header("content-type") ?? "none"
        if type.split(separator: ";").first.map({ $0.trimmingWhitespace().lowercased() }) != "application/json" {
            found.append("served as \(type), not application/json")
        }
        if let live = try? JSONParser.parse(response.body) {
            found += differences(live)
        } else {
            found.append("not valid JSON")
        }
        note(found.isEmpty, "passkeys: \(url) " + (found.isEmpty
            ? "matches \(what)"
            : "differs from the config: " + found.joined(separator: "; ")))
    }
}
