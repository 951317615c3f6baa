/// `frontdoor-admin risc register [--url URL] | status | verify | disable`: the Cross-Account
/// Protection stream, registered once with the service account of `google.risc` (no resident
/// process keeps it alive), and looked at or tested afterwards.
enum RISCAdmin {
    static let subcommands = ["register", "status", "verify", "disable"]

    static func run(_ operands: [String], session: AdminSession) throws -> JSONValue {
        var rest = operands
        let sub = rest.removeFirst()
        var url: String?
        if let i = rest.firstIndex(of: "--url") {
            guard sub == "register", i + 1 < rest.count else { throw AdminError(.usage, "--url goes with risc register, and needs a URL.") }
            url = rest[i + 1]
            rest.removeSubrange(i...(i + 1))
        }
        guard rest.isEmpty else { throw AdminError(.usage, "risc \(sub) takes no other operand.") }
        guard let risc = session.config.google?.risc else {
            throw AdminError(.failed, "google.risc.serviceAccountFile is not configured: the RISC API needs a service account.")
        }
        let client = RequestContext.curlClient(session.config)
        let stream = try RISCStream(risc, client: client, now: session.now)
        switch sub {
        case "register":
            guard let target = url ?? risc.receiverUrl else {
                throw AdminError(.usage, "risc register needs --url https://<host>/auth/google-risc (or google.risc.receiverUrl).")
            }
            guard target.hasPrefix("https://"), OutboundURL.host(of: target) != nil else {
                throw AdminError(.usage, "The receiver must be an https:// URL (Google delivers over TLS only).")
            }
            try check(try stream.update(url: target), doing: "stream:update")
            try check(try stream.setStatus(enabled: true), doing: "status:update")
            return .object([
                ("registered", true), ("url", .string(target)),
                ("eventsRequested", .array(RISCStream.eventsRequested.map(JSONValue.string))), ("status", "enabled"),
            ])
        case "status":
            let (reply, configured) = try stream.read()
            try check(reply, doing: "stream")
            let (statusReply, status) = try stream.status()
            try check(statusReply, doing: "stream/status")
            return .object([
                ("url", configured.map { .string($0.url) } ?? .null),
                ("eventsRequested", .array((configured?.eventsRequested ?? []).map(JSONValue.string))),
                ("status", status.map(JSONValue.string) ?? .null),
            ])
        case "verify":
            let state = "frontdoor-" + Hex.encode(try SecureRandom.bytes(8))
            try check(try stream.verify(state: state), doing: "stream:verify")
            return .object([
                ("verificationRequested", true), ("state", .string(state)),
                ("syslogLine", .string("frontdoor endpoint=google-risc verification state=\(state)")),
            ])
        default:
            try check(try stream.setStatus(enabled: false), doing: "status:update")
            return .object([("status", "disabled")])
        }
    }

    /// A refusal in plain words: Firebase's hold on the project, or no stream yet.
    static func check(_ reply: RISCStream.Reply, doing call: String) throws {
        guard !reply.ok else { return }
        if reply.namesFirebase { throw AdminError(.unavailable, "RISC \(call) refused (\(reply.message)). " + RISCStream.firebaseHint) }
        if reply.status == 404 {
            throw AdminError(.notFound, "RISC \(call): the project has no stream yet (\(reply.message)); run frontdoor-admin risc register.")
        }
        throw AdminError(.unavailable, "RISC \(call) refused (\(reply.message)).")
    }
}
