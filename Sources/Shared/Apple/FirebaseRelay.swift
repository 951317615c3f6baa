/// The calls frontdoor makes to Firebase Authentication when it relays Apple's token (rule 4):
/// Identity Toolkit's `signInWithIdp` and `delete`, and securetoken's refresh. The API key travels
/// in the `X-Goog-Api-Key` header, never in a URL that could be logged.
public struct FirebaseRelay {
    /// A 200 of `signInWithIdp` that is a sign-in: a user, its ID token and its refresh token.
    public struct SignedIn: Sendable {
        /// The relay user's id: new for every relay sign-in, never an identity.
        public let localId: String
        public let idToken: String
        public let refreshToken: String
        /// Firebase made this user for this call (`isNewUser`; absent means an existing user).
        public let isNewUser: Bool
    }

    /// How securetoken answered a refresh.
    public enum Refreshed: Sendable {
        case fresh(idToken: String, refreshToken: String?)
        /// `USER_NOT_FOUND` (the REST reference) or `INVALID_REFRESH_TOKEN` (what Google's Auth
        /// emulator answers for a deleted user): the user is gone, or its token names nobody.
        case gone(String)
        /// The user is there but its token no longer refreshes (`TOKEN_EXPIRED`, `USER_DISABLED`):
        /// no ID token can be had, so it cannot delete itself.
        case unusable(String)
    }

    /// How `accounts:delete` with the user's own ID token answered.
    public enum Deleted: Sendable, Equatable {
        case deleted
        case alreadyGone
        /// It can no longer delete itself: `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` (its sign-in is no longer
        /// recent, about five minutes) or `USER_DISABLED`.
        case pastWindow(String)
        /// The ID token itself was refused (expired, malformed): a fresh one may do.
        case tokenRefused(String)
        case failed(String)
    }

    let firebase: Config.Firebase
    let client: HTTPClient

    public init(firebase: Config.Firebase, client: HTTPClient) {
        self.firebase = firebase
        self.client = client
    }

    /// Hands Apple's token and the raw nonce to Firebase, which verifies them and makes a user.
    /// Identity Toolkit's refusal of the token or nonce is `invalid_token`; a key or project
    /// problem, or a 200 that asks for what a relay cannot give (`needConfirmation`, a second
    /// factor), is `internal`. No answer, a 429, a 5xx or a 200 without the tokens is
    /// `upstream_unavailable`, with `startOver` unless the request provably never left: Firebase
    /// may have taken the credential, and it refuses one it has accepted.
    public func signInWithIdp(appleToken: String, rawNonce: String) throws(FrontdoorError) -> SignedIn {
        let postBody = FormEncoding.encode([("id_token", appleToken), ("providerId", "apple.com"), ("nonce", rawNonce)])
        let request = JSONValue.object([
            ("requestUri", "http://localhost"), ("postBody", .string(postBody)), ("returnSecureToken", true),
            ("returnIdpCredential", false),
        ])
        let response: HTTPResponse
        do {
            response = try send(firebase.identityToolkitUrl + "/v1/accounts:signInWithIdp", json: request)
        } catch {
            if error.code == .upstreamUnavailable && !error.requestNeverSent {
                throw .startOver("relay signInWithIdp: \(error.detail ?? error.message)")
            }
            throw error
        }
        guard response.status == 200 else {
            throw Self.refusal("relay signInWithIdp: HTTP \(response.status)", status: response.status,
                               code: Self.errorCode(response))
        }
        let body: JSONValue
        do {
            body = try Self.object(response, "signInWithIdp")
        } catch {
            throw .startOver(error.detail ?? "relay signInWithIdp: unreadable 200")
        }
        return try Self.signedIn(body)
    }

    /// What a 200 of `signInWithIdp` means. Only a user with both tokens is a sign-in; a 200 can
    /// also name another user of the project without signing in (`needConfirmation`, with that
    /// user's `localId`), stop at a second factor (`mfaPendingCredential`), or carry an error.
    static func signedIn(_ body: JSONValue) throws(FrontdoorError) -> SignedIn {
        if let message = body["errorMessage"]?.stringValue {
            let code = errorCode(message: message)
            throw refusal("relay signInWithIdp: 200 with errorMessage", status: 400, code: code)
        }
        if body["needConfirmation"] == true {
            throw .internal(
                "relay signInWithIdp: needConfirmation (another user of the Firebase project has this email: "
                    + "the relay needs a project of its own)")
        }
        if body["mfaPendingCredential"] != nil {
            throw .internal(
                "relay signInWithIdp: a second factor is asked (the relay needs a project of its own, without MFA)")
        }
        guard let localId = body["localId"]?.stringValue, !localId.isEmpty, localId.utf8.count <= 128 else {
            throw .startOver("relay signInWithIdp: 200 without a localId")
        }
        guard let idToken = body["idToken"]?.stringValue, !idToken.isEmpty else {
            throw .startOver("relay signInWithIdp: 200 without an idToken")
        }
        guard let refreshToken = body["refreshToken"]?.stringValue, !refreshToken.isEmpty else {
            throw .startOver("relay signInWithIdp: 200 without a refreshToken")
        }
        return SignedIn(
            localId: localId, idToken: idToken, refreshToken: refreshToken, isNewUser: body["isNewUser"] == true)
    }

    /// A refusal of `signInWithIdp`, by its status and error code.
    static func refusal(_ call: String, status: Int, code: String) -> FrontdoorError {
        let detail = "\(call) \(code)"
        if status == 429 || status >= 500 || isQuota(code) { return .startOver(detail) }
        if refusesToken(code) { return .invalidToken(detail) }
        return .internal(detail + " (check firebase.apiKey, firebase.projectId and the Apple provider)")
    }

    /// Deletes the relay user the ID token belongs to.
    public func deleteUser(idToken: String) -> Deleted {
        let response: HTTPResponse
        do {
            response = try send(
                firebase.identityToolkitUrl + "/v1/accounts:delete", json: .object([("idToken", .string(idToken))]))
        } catch {
            return .failed("relay delete: \(error.detail ?? error.message)")
        }
        if response.status == 200 { return .deleted }
        let reason = Self.errorCode(response)
        let detail = "relay delete: HTTP \(response.status) \(reason)"
        switch reason {
        case "USER_NOT_FOUND": return .alreadyGone
        case "CREDENTIAL_TOO_OLD_LOGIN_AGAIN", "USER_DISABLED": return .pastWindow(detail)
        case "TOKEN_EXPIRED", "INVALID_ID_TOKEN", "USER_TOKEN_EXPIRED": return .tokenRefused(detail)
        default: return .failed(detail)
        }
    }

    /// When the ID token's user was created, by `accounts:lookup` (`users[0].createdAt`, in
    /// milliseconds); nil when that cannot be had.
    public func createdAt(idToken: String) -> UnixTime? {
        guard let response = try? send(
            firebase.identityToolkitUrl + "/v1/accounts:lookup", json: .object([("idToken", .string(idToken))])),
            response.status == 200, let json = try? JSONParser.parse(response.body),
            let user = json["users"]?.arrayValue?.first
        else { return nil }
        let millis = user["createdAt"]?.stringValue.flatMap { Int64($0) } ?? user["createdAt"]?.int64Value
        return millis.map { $0 / 1000 }
    }

    /// A fresh ID token for the relay user (securetoken `/v1/token`). Throws when no answer came,
    /// or an answer that says nothing about the user (a 5xx, say).
    public func refresh(refreshToken: String) throws(FrontdoorError) -> Refreshed {
        let body = FormEncoding.encode([("grant_type", "refresh_token"), ("refresh_token", refreshToken)])
        let response = try client.send(HTTPRequest(
            method: "POST", url: firebase.securetokenUrl + "/v1/token",
            headers: [
                ("Content-Type", "application/x-www-form-urlencoded"), ("X-Goog-Api-Key", firebase.apiKey),
            ],
            body: Array(body.utf8)))
        guard response.status == 200 else {
            let reason = Self.errorCode(response)
            let detail = "relay refresh: HTTP \(response.status) \(reason)"
            switch reason {
            case "USER_NOT_FOUND", "INVALID_REFRESH_TOKEN": return .gone(detail)
            case "TOKEN_EXPIRED", "USER_DISABLED": return .unusable(detail)
            default: throw .upstream(detail)
            }
        }
        let json = try Self.object(response, "refresh")
        guard let idToken = json["id_token"]?.stringValue else { throw .upstream("relay refresh: no id_token") }
        return .fresh(idToken: idToken, refreshToken: json["refresh_token"]?.stringValue)
    }

    func send(_ url: String, json: JSONValue) throws(FrontdoorError) -> HTTPResponse {
        try client.send(HTTPRequest(
            method: "POST", url: url,
            headers: [("Content-Type", "application/json"), ("X-Goog-Api-Key", firebase.apiKey)],
            body: Array(json.serialized.utf8)))
    }

    /// Firebase's quotas (100 new users an hour from one IP address) answer 400; they pass.
    static func isQuota(_ code: String) -> Bool {
        code.hasPrefix("TOO_MANY_ATTEMPTS") || code.hasPrefix("QUOTA_EXCEEDED") || code.hasPrefix("RESOURCE_EXHAUSTED")
    }

    /// `INVALID_IDP_RESPONSE` and the nonce errors are about the token the phone sent.
    static func refusesToken(_ code: String) -> Bool {
        code == "INVALID_IDP_RESPONSE" || code.contains("NONCE") || code == "INVALID_ID_TOKEN"
            || code == "INVALID_CREDENTIAL_OR_PROVIDER_ID"
    }

    static func object(_ response: HTTPResponse, _ call: String) throws(FrontdoorError) -> JSONValue {
        guard let json = try? JSONParser.parse(response.body), json.objectValue != nil else {
            throw .upstream("relay \(call): 200 with a body that is not a JSON object")
        }
        return json
    }

    /// The code of a Google API error (`{"error":{"message":"INVALID_IDP_RESPONSE : …"}}`): only
    /// the part before ` : `, since what follows may quote the request; short and printable.
    static func errorCode(_ response: HTTPResponse) -> String {
        guard let json = try? JSONParser.parse(response.body), let message = json["error"]?["message"]?.stringValue
        else { return "(no error message)" }
        return errorCode(message: message)
    }

    static func errorCode(message: String) -> String {
        let head = message.split(separator: " : ", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let printable = head.unicodeScalars.prefix(100).map { scalar -> Character in
            scalar.isASCII && scalar.value >= 0x20 && scalar.value < 0x7F ? Character(scalar) : "?"
        }
        return String(printable)
    }
}
