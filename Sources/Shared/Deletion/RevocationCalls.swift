/// How one outbound call of a revocation ended: done (with the JSON answer, if any), worth
/// retrying (no answer, 429, 5xx), or refused (any other answer: retrying cannot help).
enum RevocationCall {
    case done(JSONValue?)
    case transient(String)
    case refused(String)

    static func classify(
        _ call: String, _ result: Result<HTTPResponse, FrontdoorError>, reason: (HTTPResponse) -> String
    ) -> RevocationCall {
        switch result {
        case .failure(let error):
            let detail = "\(call): \(error.detail ?? error.message)"
            return error.code == .upstreamUnavailable ? .transient(detail) : .refused(detail)
        case .success(let response) where response.status == 200:
            return .done(try? JSONParser.parse(response.body))
        case .success(let response):
            let detail = "\(call): HTTP \(response.status) \(reason(response))"
            return response.status == 429 || response.status >= 500 ? .transient(detail) : .refused(detail)
        }
    }
}

extension FirebaseRelay {
    /// Identity Toolkit's `v2/accounts:revokeToken` with Apple's authorization code: Firebase
    /// exchanges the code with Apple (with the team key entered in its console) and revokes the
    /// result. No `redirectUri`: a native app's code was issued without one (see docs/apple.md).
    func revokeAppleCode(_ code: String, idToken: String) -> RevocationCall {
        let request = JSONValue.object([
            ("providerId", "apple.com"), ("tokenType", "CODE"), ("token", .string(code)),
            ("idToken", .string(idToken)),
        ])
        let result = Result { () throws(FrontdoorError) in
            try send(firebase.identityToolkitUrl + "/v2/accounts:revokeToken", json: request)
        }
        return RevocationCall.classify("relay revokeToken", result) { response in
            let code = Self.errorCode(response)
            return Self.isQuota(code) ? code + " (quota)" : code
        }
    }
}

/// Apple's own token and revoke endpoints (direct mode), form-encoded as Apple wants them.
struct AppleAuthEndpoints {
    let apple: Config.Apple
    let client: HTTPClient

    /// The code for tokens; the refresh token (or, without one, the access token) to revoke.
    func exchange(code: String, clientId: String, secret: String) -> RevocationCall {
        post(apple.tokenUrl, "apple token", [
            ("client_id", clientId), ("client_secret", secret), ("code", code), ("grant_type", "authorization_code"),
        ])
    }

    func revoke(refreshToken: String, clientId: String, secret: String) -> RevocationCall {
        post(apple.revokeUrl, "apple revoke", [
            ("client_id", clientId), ("client_secret", secret), ("token", refreshToken),
            ("token_type_hint", "refresh_token"),
        ])
    }

    private func post(_ url: String, _ call: String, _ form: [(String, String)]) -> RevocationCall {
        let request = HTTPRequest(
            method: "POST", url: url, headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: Array(FormEncoding.encode(form).utf8))
        let result = Result { () throws(FrontdoorError) in try client.send(request) }
        return RevocationCall.classify(call, result, reason: Self.errorCode)
    }

    /// Apple's `{"error": "invalid_grant"}`: short and printable, nothing else from the body.
    static func errorCode(_ response: HTTPResponse) -> String {
        guard let code = (try? JSONParser.parse(response.body))?["error"]?.stringValue else { return "(no error)" }
        return String(code.unicodeScalars.prefix(64).map { $0.isASCII && $0.value > 0x20 && $0.value < 0x7F
            ? Character($0) : "?" })
    }
}
