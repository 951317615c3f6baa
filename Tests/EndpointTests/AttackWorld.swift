import DevSupport
import Shared

/// One endpoint that takes a token, as the attack corpus and the fault tests drive it: a world
/// with its fakes, a signing key the endpoint trusts, the claims a valid token for it carries,
/// and how to send a token to it. Email sign-in takes no token; deletion's is the fresh
/// `appleIdentityToken`, sent with a session of an account that has that Apple identity.
final class TokenEndpoint: @unchecked Sendable {
    enum Kind: String, CaseIterable, Sendable {
        case google = "signin-google"
        case appleRelay = "signin-apple relay"
        case appleDirect = "signin-apple direct"
        case deleteRelay = "delete-account relay"
        case deleteDirect = "delete-account direct"
        case linkGoogle = "account link google"
        case linkAppleRelay = "account link apple relay"

        var isDeletion: Bool { self == .deleteRelay || self == .deleteDirect }
        /// `account` `link` (rule 18): the token sent with the session of an account that lacks the provider.
        var isLink: Bool { self == .linkGoogle || self == .linkAppleRelay }
    }

    /// The Apple account deletion's tokens claim to be: the one `prepare()` signs in.
    static let deletionSubject = "attack-apple-sub"

    let kind: Kind
    let h: Harness
    /// Kept alive for the Apple kinds.
    let apple: AppleWorld?
    /// Kept alive for the deletion kinds (its Apple team key and revoke endpoints).
    let deletion: DeletionWorld?
    /// For deletion: the session of the account about to be deleted, and the authorization code
    /// its fresh token's `c_hash` is bound to (a real one, so revoking could go through).
    private(set) var session = ""
    private(set) var code = "unused"

    init(_ kind: Kind, config extra: [(String, JSONValue)] = []) throws {
        self.kind = kind
        switch kind {
        case .google, .linkGoogle:
            apple = nil
            deletion = nil
            h = try Harness(config: extra)
        case .appleRelay, .appleDirect, .linkAppleRelay:
            let world = try AppleWorld(mode: kind == .appleDirect ? "direct" : "relay", config: extra)
            apple = world
            deletion = nil
            h = world.h
        case .deleteRelay, .deleteDirect:
            let world = try DeletionWorld(mode: kind == .deleteRelay ? "relay" : "direct", config: extra)
            deletion = world
            apple = world.w
            h = world.h
        }
    }

    var program: String {
        switch kind {
        case .google: "signin-google"
        case .appleRelay, .appleDirect: "signin-apple"
        case .deleteRelay, .deleteDirect: "delete-account"
        case .linkGoogle, .linkAppleRelay: "account"
        }
    }

    /// Link only: how many people `prepare()` signed in (each a new account).
    private(set) var linkPeople = 0
    private var linkAccountId: String?

    /// Deletion only: signs the Apple person in again (a new account each time, as the last one
    /// was deleted) and takes a fresh authorization code. Call before counting rows.
    func prepare() throws {
        if kind.isLink {
            try prepareLink()
            return
        }
        guard let deletion else { return }
        session = try deletion.appleAccount(Self.deletionSubject, email: "victim@example.org").session
        code = try deletion.apple.issueCode(sub: Self.deletionSubject)
    }

    /// Link only: a signed-in person whose account lacks the provider (a new one once the last
    /// got it, as the valid warm-up gives it): a password account for Google, a Google one for Apple.
    private func prepareLink() throws {
        let provider = kind == .linkGoogle ? "google" : "apple"
        if let linkAccountId {
            let has = try h.database().query(
                "SELECT 1 FROM identities WHERE account_id = ? AND provider = ?", [.text(linkAccountId), .text(provider)])
            if has.isEmpty { return }
        }
        linkPeople += 1
        let answer = kind == .linkGoogle
            ? try h.register("attack-link-\(linkPeople)@example.org", "an attack test password")
            : try h.signInGoogle(try h.google.token(sub: "attack-link-\(linkPeople)", email: nil))
        guard let token = answer.body["sessionToken"]?.stringValue, let accountId = answer.body["accountId"]?.stringValue
        else { throw HarnessError("link: no session for the attacked account: \(answer.rawBody)") }
        // `link` takes an address someone proved (the fourth review's T5-1): planted, as a code would prove it.
        if kind == .linkGoogle {
            try h.database().run("UPDATE accounts SET email_verified = 1 WHERE id = ?", [.text(accountId)])
        }
        session = token
        linkAccountId = accountId
    }

    /// Revocations that reached Apple or the relay's `revokeToken`: a hostile token must make none.
    var revocationsMade: Int {
        (apple?.apple.revokedTokens.count ?? 0) + (apple?.firebase.revocations.count ?? 0)
    }

    /// The key the endpoint's issuer signs with (Apple's in both Apple modes: the relay's fake
    /// Firebase checks Apple's signature with it).
    var key: SigningKey {
        if let apple { return apple.apple.keys[0] }
        return h.google.keys[0]
    }

    /// A valid token's claims at `now`; for Apple, bound to `rawNonce`.
    func claims(now: UnixTime = Clock.now(), rawNonce: String) -> [(String, JSONValue)] {
        switch kind {
        case .google, .linkGoogle:
            return [
                ("iss", .string(FakeGoogle.issuer)), ("aud", .string(FakeGoogle.clientId)), ("sub", "attack-sub"),
                ("iat", .number(Double(now))), ("exp", .number(Double(now + 3600))),
                ("email", "victim@gmail.com"), ("email_verified", true),
            ]
        case .appleRelay, .appleDirect, .deleteRelay, .deleteDirect, .linkAppleRelay:
            return [
                ("iss", .string(FakeApple.issuer)), ("aud", .string(FakeApple.bundleId)),
                ("exp", .number(Double(now + 600))), ("iat", .number(Double(now))), ("sub", "attack-apple-sub"),
                ("nonce", .string(FakeApple.nonceClaim(rawNonce))), ("email", "victim@example.org"),
                ("email_verified", "true"),
            ] + (kind.isDeletion ? [("c_hash", .string(FakeApple.codeHash(code)))] : [])
        }
    }

    /// The JSON body that carries `token` (and, for Apple, the raw nonce).
    func body(_ token: String, rawNonce: String) -> String {
        switch kind {
        case .google: JSONValue.object([("idToken", .string(token))]).serialized
        case .appleRelay, .appleDirect: AppleWorld.body(token, nonce: rawNonce)
        case .linkGoogle:
            JSONValue.object([("action", "link"), ("provider", "google"), ("idToken", .string(token))]).serialized
        case .linkAppleRelay:
            JSONValue.object([
                ("action", "link"), ("provider", "apple"), ("identityToken", .string(token)), ("rawNonce", .string(rawNonce)),
            ]).serialized
        case .deleteRelay, .deleteDirect:
            JSONValue.object([
                ("appleAuthorizationCode", .string(code)), ("appleIdentityToken", .string(token)),
                ("appleRawNonce", .string(rawNonce)),
            ]).serialized
        }
    }

    /// Sends the token and waits for the process to end (for deletion, its work after the answer too).
    func send(_ token: String, rawNonce: String) throws -> CGIAnswer {
        let authorization = kind.isDeletion || kind.isLink ? "Bearer \(session)" : nil
        return try h.run(program, json: body(token, rawNonce: rawNonce), authorization: authorization)
    }

    /// Row counts of every table but `key_sets` (the issuers' public keys, a cache).
    func rowCounts() throws -> [String: Int64] {
        let db = try h.database()
        let names = try TestStore.tableNames(db)
        var counts: [String: Int64] = [:]
        for name in names where name != "key_sets" && name != "ephemeral" { counts[name] = try h.count(name) }
        for kind in Ephemeral.Kind.allCases { counts[kind.name] = try h.count(kind) }
        return counts
    }
}
