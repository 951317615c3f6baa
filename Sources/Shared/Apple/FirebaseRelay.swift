/// The calls frontdoor makes to Firebase Authentication when it relays Apple's token (rule 4):
/// Identity Toolkit's `signInWithIdp` and `delete`, and securetoken's refresh. The API key travels
/// in the `X-Goog-Api-Key` header, never in a URL that could be logged.
public struct FirebaseRelay {
    public struct SignedIn: Sendable {
        /// The relay user's id: new for every relay sign-in, never an identity.
        public let localId: String
        public let idToken: String?
        public let refreshToken: String?
    }

    public enum Gone: Sendable { case deleted, alreadyGone }

    let firebase: Config.Firebase
    let client: HTTPClient

    public init(firebase: Config.Firebase, client: HTTPClient) {
        self.firebase = firebase
        self.client = client
    }

    /// Hands Apple's token and the raw nonce to Firebase, which verifies them and makes a user.
    /// Identity Toolkit's refusal of the token or nonce is `invalid_token`; a key or project
    /// problem is `internal`; no answer, a 429 or a 5xx is `upstream_unavailable`.
    public func signInWithIdp(appleToken: String, rawNonce: String) throws(FrontdoorError) -> SignedIn {
        let postBody = FormEncoding.encode([("id_token", appleToken), ("providerId", "apple.com"), ("nonce", rawNonce)])
        let request = JSONValue.object([
            ("requestUri", "http://localhost"), ("postBody", .string(postBody)), ("returnSecureToken", true),
            ("returnIdpCredential", false),
        ])
        let response = try send(firebase.identityToolkitUrl + "/v1/accounts:signInWithIdp", json: request)
        guard response.status == 200 else {
            let reason = Self.errorCode(response)
            let call = "relay signInWithIdp: HTTP \(response.status) \(reason)"
            if response.status == 429 || response.status >= 500 || Self.isQuota(reason) { throw .upstream(call) }
            if Self.refusesToken(reason) { throw .invalidToken(call) }
            throw .internal(call + " (check firebase.apiKey, firebase.projectId and the Apple provider)")
        }
        let body = try Self.object(response, "signInWithIdp")
        guard let localId = body["localId"]?.stringValue, !localId.isEmpty, localId.utf8.count <= 128 else {
            throw .upstream("relay signInWithIdp: 200 without a localId")
        }
        return SignedIn(
            localId: localId, idToken: body["idToken"]?.stringValue, refreshToken: body["refreshToken"]?.stringValue)
    }

    /// Deletes the relay user the ID token belongs to. A user already gone counts as done.
    public func deleteUser(idToken: String) throws(FrontdoorError) -> Gone {
        let response = try send(
            firebase.identityToolkitUrl + "/v1/accounts:delete", json: .object([("idToken", .string(idToken))]))
        if response.status == 200 { return .deleted }
        let reason = Self.errorCode(response)
        if reason == "USER_NOT_FOUND" { return .alreadyGone }
        throw .upstream("relay delete: HTTP \(response.status) \(reason)")
    }

    /// A fresh ID token for the relay user (securetoken `/v1/token`); nil when the user is gone.
    public func refresh(refreshToken: String) throws(FrontdoorError) -> (idToken: String, refreshToken: String?)? {
        let body = FormEncoding.encode([("grant_type", "refresh_token"), ("refresh_token", refreshToken)])
        let response = try client.send(HTTPRequest(
            method: "POST", url: firebase.securetokenUrl + "/v1/token",
            headers: [
                ("Content-Type", "application/x-www-form-urlencoded"), ("X-Goog-Api-Key", firebase.apiKey),
            ],
            body: Array(body.utf8)))
        guard response.status == 200 else {
            let reason = Self.errorCode(response)
            if reason == "USER_NOT_FOUND" { return nil }
            throw .upstream("relay refresh: HTTP \(response.status) \(reason)")
        }
        let json = try Self.object(response, "refresh")
        guard let idToken = json["id_token"]?.stringValue else { throw .upstream("relay refresh: no id_token") }
        return (idToken, json["refresh_token"]?.stringValue)
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
        let head = message.split(separator: " : ", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let printable = head.unicodeScalars.prefix(100).map { scalar -> Character in
            scalar.isASCII && scalar.value >= 0x20 && scalar.value < 0x7F ? Character(scalar) : "?"
        }
        return String(printable)
    }
}
