import DevSupport
import Shared

/// One endpoint that takes a token, as the attack corpus and the fault tests drive it: a world
/// with its fakes, a signing key the endpoint trusts, the claims a valid token for it carries,
/// and how to send a token to it. Email sign-in and deletion join as further cases of `Kind`
/// once they land (their tokens: `delete-account`'s `appleIdentityToken`).
final class TokenEndpoint: @unchecked Sendable {
    enum Kind: String, CaseIterable, Sendable {
        case google = "signin-google"
        case appleRelay = "signin-apple relay"
        case appleDirect = "signin-apple direct"
    }

    let kind: Kind
    let h: Harness
    /// Kept alive for the Apple kinds.
    let apple: AppleWorld?

    init(_ kind: Kind, config extra: [(String, JSONValue)] = []) throws {
        self.kind = kind
        switch kind {
        case .google:
            apple = nil
            h = try Harness(config: extra)
        case .appleRelay, .appleDirect:
            let world = try AppleWorld(mode: kind == .appleRelay ? "relay" : "direct", config: extra)
            apple = world
            h = world.h
        }
    }

    var program: String { kind == .google ? "signin-google" : "signin-apple" }

    /// The key the endpoint's issuer signs with (Apple's in both Apple modes: the relay's fake
    /// Firebase checks Apple's signature with it).
    var key: SigningKey {
        if let apple { return apple.apple.keys[0] }
        return h.google.keys[0]
    }

    /// A valid token's claims at `now`; for Apple, bound to `rawNonce`.
    func claims(now: UnixTime = Clock.now(), rawNonce: String) -> [(String, JSONValue)] {
        switch kind {
        case .google:
            return [
                ("iss", .string(FakeGoogle.issuer)), ("aud", .string(FakeGoogle.clientId)), ("sub", "attack-sub"),
                ("iat", .number(Double(now))), ("exp", .number(Double(now + 3600))),
                ("email", "victim@gmail.com"), ("email_verified", true),
            ]
        case .appleRelay, .appleDirect:
            return [
                ("iss", .string(FakeApple.issuer)), ("aud", .string(FakeApple.bundleId)),
                ("exp", .number(Double(now + 600))), ("iat", .number(Double(now))), ("sub", "attack-apple-sub"),
                ("nonce", .string(FakeApple.nonceClaim(rawNonce))), ("email", "victim@example.org"),
                ("email_verified", "true"),
            ]
        }
    }

    /// The JSON body that carries `token` (and, for Apple, the raw nonce).
    func body(_ token: String, rawNonce: String) -> String {
        kind == .google
            ? JSONValue.object([("idToken", .string(token))]).serialized
            : AppleWorld.body(token, nonce: rawNonce)
    }

    func send(_ token: String, rawNonce: String) throws -> CGIAnswer {
        try h.run(program, json: body(token, rawNonce: rawNonce))
    }

    /// Row counts of every table but `key_sets` (the issuers' public keys, a cache).
    func rowCounts() throws -> [String: Int64] {
        let db = try h.database()
        let names = try db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            .compactMap { $0.text(0) }
        var counts: [String: Int64] = [:]
        for name in names where name != "key_sets" { counts[name] = try h.count(name) }
        return counts
    }
}
