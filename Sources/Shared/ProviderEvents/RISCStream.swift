/// Google's RISC stream management API, as Google's Cross-Account Protection guide describes it
/// (developers.google.com/identity/protocols/risc): each call carries a service account's
/// self-signed JWT (no token endpoint: `iss` and `sub` the account's email, `aud` the management
/// service, an hour at most, RS256 under `private_key_id`). Used by `frontdoor-admin risc` and
/// `frontdoor-check`, never by a request.
public struct RISCStream {
    public static let audience = "https://risc.googleapis.com/google.identity.risc.v1beta.RiscManagementService"
    public static let pushMethod = "https://schemas.openid.net/secevent/risc/delivery-method/push"
    /// Every type `google-risc` knows, `verification` among them (so `risc verify` can test it).
    public static let eventsRequested = RISCEvent.Kind.allCases.map(\.uri)

    /// What the API answered: a status, the JSON, and Google's error message when it is one.
    public struct Reply: Sendable {
        public let status: Int
        public let json: JSONValue?
        public var ok: Bool { status == 200 }
        /// `error.message` of Google's error shape, cut short, or the status alone.
        public var message: String {
            let text = json?["error"]?["message"]?.stringValue ?? "no message"
            return "HTTP \(status): " + String(text.prefix(400))
        }
        /// The 403 Google gives when Firebase's Google sign-in owns the project's RISC stream.
        public var namesFirebase: Bool { status == 403 && message.contains("Firebase") }
    }

    /// The stream as Google has it.
    public struct Configured: Sendable, Equatable {
        public let url: String
        public let eventsRequested: [String]
    }

    let risc: Config.RISC
    let account: ServiceAccount
    let client: HTTPClient
    let now: UnixTime

    public init(_ risc: Config.RISC, client: HTTPClient, now: UnixTime) throws(FrontdoorError) {
        self.risc = risc
        account = try ServiceAccount.load(path: risc.serviceAccountFile, key: "google.risc.serviceAccountFile")
        self.client = client
        self.now = now
    }

    /// The plain-words hint for the Firebase refusal.
    public static let firebaseHint =
        "Google says Firebase manages Cross-Account Protection for this project: Firebase's Google sign-in "
        + "provider is on in it. The client ids in google.clientIds must sit in a Google Cloud project whose "
        + "Firebase Google provider is off (the relay's project, with only Apple turned on, is fine); turn it "
        + "off there, or move the clients, and try again an hour later."

    /// `stream:update`: Google pushes every type we know to `url`.
    public func update(url: String) throws(FrontdoorError) -> Reply {
        try call("POST", "/v1beta/stream:update", .object([
            ("delivery", .object([("delivery_method", .string(Self.pushMethod)), ("url", .string(url))])),
            ("events_requested", .array(Self.eventsRequested.map(JSONValue.string))),
        ]))
    }

    /// The stream, nil when the project has none (404).
    public func read() throws(FrontdoorError) -> (Reply, Configured?) {
        let reply = try call("GET", "/v1beta/stream", nil)
        guard reply.ok, let url = reply.json?["delivery"]?["url"]?.stringValue else { return (reply, nil) }
        let events = reply.json?["events_requested"]?.arrayValue?.compactMap(\.stringValue) ?? []
        return (reply, Configured(url: url, eventsRequested: events))
    }

    /// `enabled` or `disabled`, nil when Google did not say.
    public func status() throws(FrontdoorError) -> (Reply, String?) {
        let reply = try call("GET", "/v1beta/stream/status", nil)
        return (reply, reply.ok ? reply.json?["status"]?.stringValue : nil)
    }

    public func setStatus(enabled: Bool) throws(FrontdoorError) -> Reply {
        try call("POST", "/v1beta/stream/status:update", .object([("status", .string(enabled ? "enabled" : "disabled"))]))
    }

    /// Google then sends a `verification` SET carrying `state` to the stream's receiver.
    public func verify(state: String) throws(FrontdoorError) -> Reply {
        try call("POST", "/v1beta/stream:verify", .object([("state", .string(state))]))
    }

    /// The self-signed JWT every call carries.
    func bearer() throws(FrontdoorError) -> String {
        var header: [(String, JSONValue)] = [("alg", "RS256"), ("typ", "JWT")]
        if let keyId = account.keyId { header.append(("kid", .string(keyId))) }
        let claims = JSONValue.object([
            ("iss", .string(account.clientEmail)), ("sub", .string(account.clientEmail)), ("aud", .string(Self.audience)),
            ("iat", .number(Double(now))), ("exp", .number(Double(now + 3600))),
        ])
        let input = Base64URL.encode(Array(JSONValue.object(header).serialized.utf8)) + "."
            + Base64URL.encode(Array(claims.serialized.utf8))
        return input + "." + Base64URL.encode(try account.key.sign(Array(input.utf8)))
    }

    private func call(_ method: String, _ path: String, _ body: JSONValue?) throws(FrontdoorError) -> Reply {
        var headers = [("Authorization", "Bearer " + (try bearer())), ("Accept", "application/json")]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let response = try client.send(HTTPRequest(
            method: method, url: risc.apiUrl + path, headers: headers, body: body.map { Array($0.serialized.utf8) } ?? []))
        return Reply(status: response.status, json: try? JSONParser.parse(response.body))
    }
}
