/// What an iPhone sends with `delete-account` after asking Apple for a fresh authorization just
/// before: the authorization code, the identity token and the raw nonce. All optional (the person
/// may back out of Face ID, and Android has none); an empty string counts as not sent. A member
/// that is present but of the wrong type or shape is `invalid_request` before anything is deleted.
public struct FreshAppleAuthorization {
    let code: String
    let identityToken: String
    let rawNonce: String
    /// Read from the token without verifying it: enough to decide to revoke nothing.
    let claimedSubject: String
    /// `c_hash`, trusted only once the token is verified.
    let claimedCodeHash: String?

    /// nil when any of the three is missing: there is then nothing to revoke with.
    public static func parse(_ body: JSONValue) throws(FrontdoorError) -> FreshAppleAuthorization? {
        let code = try body.optionalString("appleAuthorizationCode", maxBytes: 1024) ?? ""
        let token = try body.optionalString("appleIdentityToken", maxBytes: CompactJWS.maxTokenBytes) ?? ""
        let rawNonce = try body.optionalString("appleRawNonce", maxBytes: 512) ?? ""
        guard code.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .invalidRequest("appleAuthorizationCode is not an authorization code.")
        }
        var subject = ""
        var codeHash: String?
        if !token.isEmpty {
            let claims: JSONValue
            do {
                claims = try JSONParser.parse(try CompactJWS.parse(token).payload)
            } catch {
                throw .invalidRequest("appleIdentityToken is not an identity token.", detail: "delete: \(error)")
            }
            guard let sub = claims["sub"]?.stringValue, !sub.isEmpty else {
                throw .invalidRequest("appleIdentityToken has no subject.")
            }
            subject = sub
            codeHash = claims["c_hash"]?.stringValue
        }
        guard !code.isEmpty, !token.isEmpty, !rawNonce.isEmpty else { return nil }
        return FreshAppleAuthorization(
            code: code, identityToken: token, rawNonce: rawNonce, claimedSubject: subject, claimedCodeHash: codeHash)
    }

    /// OIDC Core 3.3.2.11: base64url of the left half of the SHA-256 of the code's ASCII.
    static func codeHash(_ code: String) -> String {
        Base64URL.encode(SHA256.hash(Array(code.utf8)).prefix(16))
    }

    static func codeMatches(_ code: String, hash: String?) -> Bool {
        guard let hash, !code.isEmpty else { return false }
        return codeHash(code) == hash
    }

    /// Why `c_hash` does not bind the code to the token, or nil when it does. Every decoded
    /// native Apple identity token in public threads carries a 22-character `c_hash` (the length
    /// OIDC's left half of a SHA-256 gives); that it is computed over the code as OIDC says is
    /// believed, not shown by any public code-and-token pair. Each reason starts `c_hash`, which
    /// is how `frontdoor-check` counts them.
    static func codeHashMismatch(_ code: String, hash: String?) -> String? {
        guard let hash else { return "c_hash absent from the fresh token" }
        return codeMatches(code, hash: hash) ? nil : "c_hash does not match the authorization code"
    }
}
