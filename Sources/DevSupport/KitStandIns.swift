import Shared

/// What the development provider serves in place of Apple's and Google's web scripts, so the web
/// kit's page (rule 21) runs against `make run` and in the browser tests with no network: each
/// stand-in has its script's public surface (Sign in with Apple JS: `AppleID.auth.init`,
/// `signIn` in popup mode, the button it draws into `#appleid-signin`; Google Identity Services:
/// `google.accounts.id.initialize`, `renderButton`, `prompt`, `cancel`), opens a window of its
/// own where the person picks an account or closes it, and mints development tokens that carry
/// the nonce the page gave it, for the audience the page named. Never deployed.
public enum KitStandIns {
    public static let prefix = "/kit-standins/"
    /// Apple's script is served per locale (`…/1/en_US/appleid.auth.js`): its button speaks it.
    public static let appleScriptPath = "/kit-standins/apple/1/en_US/appleid.auth.js"
    public static let googleScriptPath = "/kit-standins/google/gsi/client"

    /// The answer for a path under `prefix`; `origin` is the provider's own base URL.
    static func answer(
        path: String, query: [String: String], origin: String, apple: FakeApple, google: FakeGoogle
    ) -> LoopbackHTTPServer.Response {
        let applePrefix = "/kit-standins/apple/1/"
        if path.hasPrefix(applePrefix), path.hasSuffix("/appleid.auth.js") {
            let locale = path.dropFirst(applePrefix.count).dropLast("/appleid.auth.js".count)
            return file(KitStandInApple.script(origin: origin, locale: String(locale)), type: "text/javascript")
        }
        switch path {
        case "/kit-standins/apple/auth/authorize": return file(KitStandInApple.authorizePage, type: "text/html")
        case "/kit-standins/apple/mint": return appleMint(query, apple: apple)
        case googleScriptPath: return file(KitStandInGoogle.script(origin: origin), type: "text/javascript")
        case "/kit-standins/google/gsi/style": return file(KitStandInGoogle.style, type: "text/css")
        case "/kit-standins/google/gsi/button": return file(KitStandInGoogle.buttonPage, type: "text/html")
        case "/kit-standins/google/gsi/select": return file(KitStandInGoogle.selectPage, type: "text/html")
        case "/kit-standins/google/gsi/mint": return googleMint(query, google: google)
        default: return .json(#"{"error":"no such stand-in"}"#, status: 404)
        }
    }

    static func file(_ text: String, type: String) -> LoopbackHTTPServer.Response {
        LoopbackHTTPServer.Response(
            status: 200, headers: [("Content-Type", type + "; charset=utf-8"), ("Cache-Control", "no-store")],
            body: Array(text.utf8))
    }

    /// The same person every time for the same address: a `sub` made from it.
    static func subject(_ prefix: String, email: String) -> String {
        prefix + Hex.encode(Array(SHA256.hash(Array(email.lowercased().utf8)).prefix(12)))
    }

    /// `{"id_token", "code"}` for `client_id`, with `nonce` (the page's hash) as the token's claim
    /// and `c_hash` over the code, as Apple's popup answers.
    static func appleMint(_ query: [String: String], apple: FakeApple) -> LoopbackHTTPServer.Response {
        guard let clientId = query["client_id"], !clientId.isEmpty, let email = query["email"], !email.isEmpty else {
            return .json(#"{"error":"client_id and email are required"}"#, status: 400)
        }
        let sub = subject("dev-apple-", email: email)
        var overrides: [(String, JSONValue)] = []
        if let nonce = query["nonce"], !nonce.isEmpty { overrides.append(("nonce", .string(nonce))) }
        guard let code = try? apple.issueCode(clientId: clientId, sub: sub),
            let token = try? apple.token(
                sub: sub, rawNonce: nil, email: email, emailVerified: "true", audience: clientId, code: code,
                overrides: overrides)
        else { return .json(#"{"error":"minting failed"}"#, status: 500) }
        return .json(JSONValue.object([("id_token", .string(token)), ("code", .string(code))]).serialized)
    }

    /// `{"credential"}`: a Google ID token for `client_id` with the page's `nonce`.
    static func googleMint(_ query: [String: String], google: FakeGoogle) -> LoopbackHTTPServer.Response {
        guard let clientId = query["client_id"], !clientId.isEmpty, let email = query["email"], !email.isEmpty else {
            return .json(#"{"error":"client_id and email are required"}"#, status: 400)
        }
        var overrides: [(String, JSONValue)] = [("aud", .string(clientId)), ("azp", .string(clientId))]
        if let nonce = query["nonce"], !nonce.isEmpty { overrides.append(("nonce", .string(nonce))) }
        guard let token = try? google.token(sub: subject("dev-google-", email: email), email: email, overrides: overrides)
        else { return .json(#"{"error":"minting failed"}"#, status: 500) }
        return .json(JSONValue.object([("credential", .string(token))]).serialized)
    }
}
