#if canImport(Glibc)
import Glibc
#endif

extension SelfCheck {
    /// With `events`: what waits in the outbox (✗ once the oldest is past an hour), and whether the
    /// receiver takes a signed ping, the proof that it is up and holds the same secret. The
    /// secret file's mode is checked with the other secret files.
    func checkEvents(_ config: Config, note: (Bool, String) -> Void) {
        guard let events = config.events else { return }
        let now = Clock.now()
        // A closed door (a restore) is reported by the database's finding; its store is left alone.
        if !Door.isClosed(config.databasePath) { checkOutbox(config, now: now, note: note) }
        checkReceiver(events, note: note)
    }

    private func checkOutbox(_ config: Config, now: UnixTime, note: (Bool, String) -> Void) {
        do {
            let backlog = try EventBacklog.read(try Database(config: config))
            let alarming = backlog.isAlarming(now: now)
            note(
                !alarming,
                "events: \(backlog.summary(now: now))"
                    + (alarming ? " — past an hour: is the receiver at events.url down? (frontdoor-check --deliver)" : ""))
        } catch {
            note(false, "events: the outbox cannot be read: \(error.detail ?? error.message)")
        }
    }

    /// The ping's type is none of the account events: a receiver verifies it, answers 2xx and
    /// does nothing (docs/events.md).
    static func ping(now: UnixTime) throws(FrontdoorError) -> [UInt8] {
        Array(JSONValue.object([
            ("id", .string(try Event.newId())), ("type", "frontdoor.ping"), ("occurredAt", .string(Clock.rfc3339(now))),
        ]).serialized.utf8)
    }

    private func checkReceiver(_ events: Config.EventReceiver, note: (Bool, String) -> Void) {
        guard let parts = OutboundURL.parse(events.url) else {
            note(false, "events receiver: cannot parse events.url")
            return
        }
        let host = parts.host
        let port = parts.port ?? Self.defaultPort(parts.scheme)
        let client = CurlHTTPClient(
            connectTimeoutSeconds: min(timeoutSeconds, 3), totalTimeoutSeconds: min(timeoutSeconds, events.timeoutSeconds))
        if !Self.isAddressLiteral(host) {
            let usable = (routes.ipv4 ? resolver.addresses(of: host, family: AF_INET) : [])
                + (routes.ipv6 ? resolver.addresses(of: host, family: AF_INET6) : [])
            guard !usable.isEmpty else {
                note(false, "events receiver \(host): no address this host can reach")
                return
            }
            client.resolveOverrides = ["\(host):\(port):" + usable.map { $0.contains(":") ? "[\($0)]" : $0 }.joined(separator: ",")]
        }
        let now = Clock.now()
        let started = Clock.monotonicMillis()
        do {
            let body = try Self.ping(now: now)
            let id = (try? JSONParser.parse(body))?["id"]?.stringValue ?? ""
            let response = try client.send(HTTPRequest(
                method: "POST", url: events.url,
                headers: [
                    ("Content-Type", "application/json"), (EventSignature.idHeaderName, id),
                    (EventSignature.headerName, EventSignature.header(body: body, secret: events.secret, time: now)),
                ],
                body: body))
            let ms = Int(Clock.monotonicMillis() - started)
            if (200...299).contains(response.status) {
                note(true, "events receiver \(host): took a signed ping (HTTP \(response.status), \(ms) ms)")
            } else {
                let advice = response.status == 401 || response.status == 403
                    ? ": does the app hold the secret of events.secretFile?" : ""
                note(false, "events receiver \(host): answered a signed ping with HTTP \(response.status)\(advice)")
            }
        } catch {
            note(false, "events receiver \(host): no answer (\(error.detail ?? error.message))")
        }
    }
}
