import Shared

/// Google's RISC stream management API (`https://risc.googleapis.com/v1beta/…`), played on
/// 127.0.0.1 as Google's Cross-Account Protection guide describes it
/// (developers.google.com/identity/protocols/risc, "Register your receiver", "Stream
/// management", "Error codes") and public registration scripts call it: every call carries a
/// service account's self-signed JWT (`iss` and `sub` its email, `aud`
/// `https://risc.googleapis.com/google.identity.risc.v1beta.RiscManagementService`, at most an hour,
/// RS256 under the key's `private_key_id`); `POST stream:update` with `{"delivery":
/// {"delivery_method", "url"}, "events_requested"}`, `GET stream`, `GET stream/status`, `POST
/// stream/status:update` with `{"status"}`, `POST stream:verify` with `{"state"}`, which sends a
/// `verification` SET carrying that state. Errors come in Google's JSON error shape
/// (`{"error": {"code", "message", "status"}}`). The odd behaviours the guide lists are switchable.
public final class FakeGoogleRISC: @unchecked Sendable {
    public static let audience = "https://risc.googleapis.com/google.identity.risc.v1beta.RiscManagementService"
    public static let pushMethod = "https://schemas.openid.net/secevent/risc/delivery-method/push"

    /// What the project is like, besides normal.
    public enum Refusal: Sendable, Equatable {
        case none
        /// Firebase's Google sign-in provider is on in the project: Firebase owns its RISC stream.
        case firebaseManaged
        /// The receiver's domain is not among the project's authorized domains.
        case unauthorizedDomain
        /// The project has no OAuth client.
        case noOAuthClient
    }

    public struct Stream: Sendable, Equatable {
        public var url: String
        public var eventsRequested: [String]
        public var status: String
    }

    struct State {
        var account: (email: String, key: SigningKey)?
        var stream: Stream?
        var refusal = Refusal.none
        var verificationStates: [String] = []
        var calls: [String] = []
    }

    private let state = Locked(State())
    public let server: LoopbackHTTPServer
    private let sent = Locked<[String]>([])

    /// `mint` makes the `verification` SET that `stream:verify` sends for a state (Google signs it
    /// with its ID-token keys); the test pipes it to google-risc.
    public init(mint: @escaping @Sendable (String) throws -> String) throws {
        let state = self.state
        let sent = self.sent
        server = try LoopbackHTTPServer { request in
            FakeGoogleRISC.handle(request, state: state, sent: sent, mint: mint)
        }
    }

    deinit { server.stop() }

    public var baseURL: String { server.baseURL }
    public func setServiceAccount(email: String, key: SigningKey) { state.withLock { $0.account = (email, key) } }
    public func setRefusal(_ refusal: Refusal) { state.withLock { $0.refusal = refusal } }
    public var stream: Stream? { state.current.stream }
    /// `METHOD path` of every call that passed authentication, in order.
    public var calls: [String] { state.current.calls }
    /// The verification SETs sent so far (what Google would have posted to the receiver).
    public var verificationSETs: [String] { sent.current }

    static func handle(
        _ request: LoopbackHTTPServer.Request, state: Locked<State>, sent: Locked<[String]>,
        mint: @Sendable (String) throws -> String
    ) -> LoopbackHTTPServer.Behaviour {
        let path = request.path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
        guard let account = state.current.account, authenticated(request, account: account) else {
            return error(401, "Request had invalid authentication credentials.", "UNAUTHENTICATED")
        }
        state.withLock { $0.calls.append("\(request.method) \(path)") }
        let body = try? JSONParser.parse(request.body)
        switch (request.method, path) {
        case ("POST", "/v1beta/stream:update"):
            switch state.current.refusal {
            case .firebaseManaged:
                return error(
                    403,
                    "Existing stream configuration does not have spec-compliant delivery method for RISC. If you are "
                        + "using Firebase and have Google Sign-In enabled, then Firebase will be managing RISC for your "
                        + "project; you will not be able to create a custom configuration. If you are not using Google "
                        + "Sign-In for your Firebase project, please disable it, and then try to update again after an hour.",
                    "PERMISSION_DENIED")
            case .unauthorizedDomain:
                return error(
                    403, "The delivery endpoint does not belong to any of your project's domains. Please add your "
                        + "domain to authorized domains.", "PERMISSION_DENIED")
            case .noOAuthClient:
                return error(403, "To use this API your project must have at least one OAuth client configured.", "PERMISSION_DENIED")
            case .none:
                break
            }
            guard let delivery = body?["delivery"], let url = delivery["url"]?.stringValue,
                delivery["delivery_method"]?.stringValue == pushMethod
            else { return error(400, "Stream configuration must contain delivery field.", "INVALID_ARGUMENT") }
            guard url.hasPrefix("https://") else { return error(403, "The delivery endpoint must be an HTTPS URL.", "PERMISSION_DENIED") }
            let events = body?["events_requested"]?.arrayValue?.compactMap(\.stringValue) ?? []
            state.withLock { s in
                s.stream = Stream(url: url, eventsRequested: events, status: s.stream?.status ?? "enabled")
            }
            return .respond(.json("{}"))
        case ("GET", "/v1beta/stream"):
            guard let stream = state.current.stream else {
                return error(404, "Project has no RISC configuration.", "NOT_FOUND")
            }
            return .respond(.json(JSONValue.object([
                ("delivery", .object([("delivery_method", .string(pushMethod)), ("url", .string(stream.url))])),
                ("events_requested", .array(stream.eventsRequested.map(JSONValue.string))),
            ]).serialized))
        case ("GET", "/v1beta/stream/status"):
            guard let stream = state.current.stream else { return error(404, "Project has no RISC configuration.", "NOT_FOUND") }
            return .respond(.json(JSONValue.object([("status", .string(stream.status))]).serialized))
        case ("POST", "/v1beta/stream/status:update"):
            guard let status = body?["status"]?.stringValue, status == "enabled" || status == "disabled" else {
                return error(400, "Invalid status.", "INVALID_ARGUMENT")
            }
            let known = state.withLock { s -> Bool in
                guard s.stream != nil else { return false }
                s.stream?.status = status
                return true
            }
            guard known else { return error(404, "Project has no RISC configuration.", "NOT_FOUND") }
            return .respond(.json(JSONValue.object([("status", .string(status))]).serialized))
        case ("POST", "/v1beta/stream:verify"):
            guard let stream = state.current.stream else { return error(404, "Project has no RISC configuration.", "NOT_FOUND") }
            let wanted = stream.eventsRequested.contains(RISCEvent.Kind.verification.uri)
            let text = body?["state"]?.stringValue ?? ""
            state.withLock { $0.verificationStates.append(text) }
            // Google sends one only to a stream that asked for them, and not to a disabled stream.
            if wanted && stream.status == "enabled", let set = try? mint(text) { sent.withLock { $0.append(set) } }
            return .respond(.json("{}"))
        default:
            return error(404, "Not found.", "NOT_FOUND")
        }
    }

    static func authenticated(_ request: LoopbackHTTPServer.Request, account: (email: String, key: SigningKey)) -> Bool {
        guard let header = request.header("authorization"), header.hasPrefix("Bearer "),
            let keys = try? JSONWebKeySet.parse(Array(JWTMinter.jwks([account.key]).utf8))
        else { return false }
        let token = String(header.dropFirst("Bearer ".count))
        TestLogs.register(token)
        var policy = ClaimsPolicy(issuers: [account.email], audiences: [audience])
        policy.maxLifetime = 3600
        guard let verified = try? TokenVerifier.verify(token, keys: keys, policy: policy, now: Clock.now()) else {
            return false
        }
        return verified.subject == account.email && verified.header["alg"]?.stringValue == "RS256"
    }

    static func error(_ code: Int, _ message: String, _ status: String) -> LoopbackHTTPServer.Behaviour {
        .respond(.json(
            JSONValue.object([
                ("error", .object([("code", .number(Double(code))), ("message", .string(message)), ("status", .string(status))])),
            ]).serialized,
            status: code))
    }
}
