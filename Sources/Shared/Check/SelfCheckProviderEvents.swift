#if canImport(Glibc)
import Glibc
#endif

extension SelfCheck {
    /// Issue 23: whether Apple's notifications can be verified in relay mode, whether the RISC
    /// stream (with a service account) points at this host's receiver, and what came in lately.
    func checkProviderEvents(_ config: Config, note: (Bool, String) -> Void) {
        if let apple = config.apple, apple.mode == .relay { checkAppleKeyPath(apple, config: config, note: note) }
        if let risc = config.google?.risc { checkRISCStream(risc, config: config, note: note) }
        // A closed door (a restore) is reported by the database's finding; its store is left alone.
        guard !Door.isClosed(config.databasePath) else { return }
        do {
            let counts = try ProviderEventStore.counts(since: Clock.now() - 30 * 86_400, db: try Database(config: config))
            note(true, "provider events, last 30 days: " + Self.countsText(counts))
        } catch {
            note(false, "provider events: cannot be counted: \(error.detail ?? error.message)")
        }
    }

    /// `apple 3 applied, 1 echo (2 repeats); google none`.
    static func countsText(_ counts: [ProviderEventStore.Count]) -> String {
        ["apple", "google"].map { provider in
            let mine = counts.filter { $0.provider == provider }
            guard !mine.isEmpty else { return "\(provider) none" }
            let repeats = mine.reduce(0) { $0 + $1.repeats }
            return "\(provider) " + mine.map { "\($0.events) \($0.outcome)" }.joined(separator: ", ")
                + (repeats > 0 ? " (\(repeats) repeats)" : "")
        }.joined(separator: "; ")
    }

    /// Apple's key host has no IPv6 address: a relay-mode box fetches Apple's keys directly when it
    /// can (it has IPv4), else through `apple.keysProxy` (`AppleKeysRoute`). Says which way works,
    /// as `apple-notify` would take it.
    private func checkAppleKeyPath(_ apple: Config.Apple, config: Config, note: (Bool, String) -> Void) {
        let started = Clock.monotonicMillis()
        let direct = CurlHTTPClient(connectTimeoutSeconds: min(timeoutSeconds, 3), totalTimeoutSeconds: timeoutSeconds)
        let directly: String
        do {
            let response = try direct.send(HTTPRequest(method: "GET", url: apple.keysUrl))
            let ms = Int(Clock.monotonicMillis() - started)
            guard response.status == 200, let keys = try? JSONWebKeySet.parse(response.body) else {
                note(false, "Apple notifications: Apple's keys, fetched directly, answered HTTP \(response.status)")
                return
            }
            note(true, "Apple notifications: Apple's keys fetched directly (\(keys.keys.count) keys, \(ms) ms)"
                + (apple.keysProxy == nil ? "" : "; apple.keysProxy is not needed while this box reaches them"))
            return
        } catch {
            directly = error.detail ?? error.message
        }
        guard let proxy = apple.keysProxy else {
            note(
                false,
                "Apple notifications: relay mode: Apple's keys cannot be fetched directly (\(directly)) and there is no "
                    + "apple.keysProxy, so apple-notify answers 503 once its cached copy is gone; give this box IPv4, or "
                    + "set apple.keysProxy to an HTTP proxy with IPv4 (TLS stays end to end with Apple)")
            return
        }
        let client = AppleKeysRoute.proxied(proxy, http: config.http, timeoutSeconds: timeoutSeconds)
        let viaProxy = Clock.monotonicMillis()
        do {
            let response = try client.send(HTTPRequest(method: "GET", url: apple.keysUrl))
            let ms = Int(Clock.monotonicMillis() - viaProxy)
            guard response.status == 200, let keys = try? JSONWebKeySet.parse(response.body) else {
                note(false, "Apple notifications: Apple's keys through apple.keysProxy answered HTTP \(response.status)")
                return
            }
            note(true, "Apple notifications: Apple's keys through apple.keysProxy (\(keys.keys.count) keys, \(ms) ms; "
                + "directly: \(directly))")
        } catch {
            note(false, "Apple notifications: Apple's keys neither directly (\(directly)) nor through apple.keysProxy "
                + "(\(error.detail ?? error.message))")
        }
    }

    /// The stream as Google has it: there, enabled, pushing to `/auth/google-risc` (and to
    /// `google.risc.receiverUrl` when set), with every type the receiver acts on.
    private func checkRISCStream(_ risc: Config.RISC, config: Config, note: (Bool, String) -> Void) {
        let client = CurlHTTPClient(connectTimeoutSeconds: min(timeoutSeconds, 3), totalTimeoutSeconds: timeoutSeconds)
        do {
            let stream = try RISCStream(risc, client: client, now: Clock.now())
            let (reply, configured) = try stream.read()
            guard let configured else {
                note(false, reply.status == 404
                    ? "Cross-Account Protection: no RISC stream yet: run frontdoor-admin risc register"
                    : "Cross-Account Protection: the RISC API refused (\(reply.message))"
                        + (reply.namesFirebase ? ". " + RISCStream.firebaseHint : ""))
                return
            }
            let (_, status) = try stream.status()
            var wrong: [String] = []
            if let wanted = risc.receiverUrl, configured.url != wanted { wrong.append("not google.risc.receiverUrl (\(wanted))") }
            if !configured.url.hasPrefix("https://") || !configured.url.hasSuffix("/auth/google-risc") {
                wrong.append("not this host's https://…/auth/google-risc")
            }
            // No evidence says Google's sender reaches an IPv6-only host (docs/provider-events.md).
            if let host = OutboundURL.host(of: configured.url), !Self.isAddressLiteral(host),
                resolver.addresses(of: host, family: AF_INET).isEmpty
            {
                wrong.append("\(host) has no A record (Google's sender may need IPv4: a dual-stack front)")
            }
            if status != "enabled" { wrong.append("status \(status ?? "unknown") (frontdoor-admin risc register enables it)") }
            let missing = RISCStream.eventsRequested.filter { !configured.eventsRequested.contains($0) }
            if !missing.isEmpty { wrong.append("\(missing.count) event types not requested (run risc register again)") }
            note(
                wrong.isEmpty,
                "Cross-Account Protection: RISC stream to \(configured.url)"
                    + (wrong.isEmpty ? ", enabled" : ": " + wrong.joined(separator: "; ")))
        } catch {
            note(false, "Cross-Account Protection: \(error.detail ?? error.message)")
        }
    }
}
