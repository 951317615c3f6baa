import DevSupport
import Shared

/// Keys are generated once per test process: RSA generation is the slow part of these tests.
enum TokenFixtures {
    static let rsa = Result { try SigningKey.rsa(kid: "rsa-1") }
    static let rsa2 = Result { try SigningKey.rsa(kid: "rsa-2") }
    static let ec = Result { try SigningKey.p256(kid: "ec-1") }

    static let now: UnixTime = 1_800_000_000
    static let issuer = "https://accounts.google.com"
    static let audience = "our-client-id.apps.googleusercontent.com"
    static let otherAudience = "our-other-client-id"
    static var policy: ClaimsPolicy { ClaimsPolicy(issuers: [issuer], audiences: [audience, otherAudience]) }

    /// Valid claims at `now`; `overrides` replace or add members, `removing` drops them.
    static func claims(_ overrides: [(String, JSONValue)] = [], removing: Set<String> = []) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [
            ("iss", .string(issuer)), ("aud", .string(audience)), ("sub", "110169484474386276334"),
            ("iat", .number(Double(now - 10))), ("exp", .number(Double(now + 3590))),
            ("email", "someone@example.com"), ("email_verified", true),
        ]
        for (name, value) in overrides {
            if let i = members.firstIndex(where: { $0.0 == name }) {
                members[i].1 = value
            } else {
                members.append((name, value))
            }
        }
        return members.filter { !removing.contains($0.0) }
    }

    static func keySet(_ keys: [SigningKey]) throws -> JSONWebKeySet {
        try JSONWebKeySet.parse(JWTMinter.jwks(keys))
    }

    static func keySet(jwks: [JSONValue]) throws -> JSONWebKeySet {
        try JSONWebKeySet.parse(JSONValue.object([("keys", .array(jwks))]).serialized)
    }

    static func verify(_ token: String, keys: JSONWebKeySet, policy: ClaimsPolicy = policy, now: UnixTime = now)
        throws(TokenError) -> VerifiedToken
    {
        try TokenVerifier.verify(token, keys: keys, policy: policy, now: now)
    }

    /// The token with one base64url part replaced.
    static func replacingPart(_ token: String, _ index: Int, with part: String) -> String {
        var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        parts[index] = part
        return parts.joined(separator: ".")
    }

    static func b64(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }
}
