import DevSupport
import Testing
@testable import Shared

/// Issue 15's parts that need no process: what a `signInWithIdp` 200 means, the sealed box of a
/// kept sign-in, the service account's key and assertion.
@Suite struct RelayUnitTests {
    func body(_ members: [(String, JSONValue)]) -> JSONValue { .object(members) }

    @Test func aTwoHundredIsASignInOnlyWithAUserAndBothTokens() throws {
        let full: [(String, JSONValue)] = [
            ("localId", "uid-1"), ("idToken", "a.b.c"), ("refreshToken", "r-1"), ("isNewUser", true),
        ]
        let signedIn = try FirebaseRelay.signedIn(body(full))
        #expect(signedIn.localId == "uid-1" && signedIn.isNewUser)
        #expect(try FirebaseRelay.signedIn(body(full.filter { $0.0 != "isNewUser" })).isNewUser == false)

        func refusal(_ members: [(String, JSONValue)]) -> FrontdoorError? {
            do {
                _ = try FirebaseRelay.signedIn(body(members))
                return nil
            } catch {
                return error
            }
        }
        // Another user of the project, or a second factor: the project's set-up, not the phone's.
        #expect(refusal(full + [("needConfirmation", true)])?.code == .internal)
        #expect(refusal([("localId", "existing"), ("needConfirmation", true)])?.code == .internal)
        #expect(refusal(full + [("mfaPendingCredential", "p")])?.code == .internal)
        // Without the tokens nothing can be verified as ours, and Firebase has the credential.
        for missing in ["idToken", "refreshToken", "localId"] {
            let error = refusal(full.filter { $0.0 != missing })
            #expect(error?.code == .upstreamUnavailable, "\(missing)")
            #expect(error?.startsOver == true, "\(missing)")
        }
        #expect(refusal(full + [("errorMessage", "FEDERATED_USER_ID_ALREADY_LINKED")])?.code == .internal)
        #expect(refusal(full + [("errorMessage", "INVALID_IDP_RESPONSE : x")])?.code == .invalidToken)
    }

    @Test func anIdTokenNamesTheAppleSubOnlyForItsOwnUser() throws {
        let key = try SigningKey.rsa(kid: "relay-unit")
        func token(sub: String, apple: [String]?) throws -> String {
            var firebase: [(String, JSONValue)] = [("sign_in_provider", "apple.com")]
            if let apple { firebase.append(("identities", .object([("apple.com", .array(apple.map(JSONValue.string)))]))) }
            return try JWTMinter.mint(claims: [("sub", .string(sub)), ("firebase", .object(firebase))], key: key)
        }
        #expect(RelayUser.namesApple(idToken: try token(sub: "u", apple: ["a"]), localId: "u", appleSubject: "a"))
        #expect(!RelayUser.namesApple(idToken: try token(sub: "u", apple: ["b"]), localId: "u", appleSubject: "a"))
        #expect(!RelayUser.namesApple(idToken: try token(sub: "v", apple: ["a"]), localId: "u", appleSubject: "a"))
        #expect(!RelayUser.namesApple(idToken: try token(sub: "u", apple: nil), localId: "u", appleSubject: "a"))
        #expect(!RelayUser.namesApple(idToken: "not a token", localId: "u", appleSubject: "a"))
    }

    @Test func aSealedBoxOpensOnlyWithItsKeyAndItsRow() throws {
        let serverKey = Array("a server key of at least 32 bytes, hex in practice".utf8)
        let key = RelayAttempts.key(rawNonce: "raw nonce", serverKey: serverKey)
        let box = try Sealed.seal(Array("the id token".utf8), key: key, associated: [1, 2, 3])
        #expect(Sealed.open(box, key: key, associated: [1, 2, 3]) == Array("the id token".utf8))
        #expect(Sealed.open(box, key: RelayAttempts.key(rawNonce: "raw noncf", serverKey: serverKey), associated: [1, 2, 3]) == nil)
        // The nonce alone opens nothing: another server key, or the first derivation (nonce only).
        #expect(Sealed.open(box, key: RelayAttempts.key(rawNonce: "raw nonce", serverKey: Array(serverKey.dropLast())),
                            associated: [1, 2, 3]) == nil)
        let nonceOnly = HMACSHA256.mac(key: Array("raw nonce".utf8), message: Array("frontdoor relay attempt v1".utf8))
        #expect(Sealed.open(box, key: nonceOnly, associated: [1, 2, 3]) == nil)
        #expect(Sealed.open(box, key: key, associated: [1, 2, 4]) == nil)
        var flipped = box
        flipped[flipped.count / 2] ^= 1
        #expect(Sealed.open(flipped, key: key, associated: [1, 2, 3]) == nil)
        #expect(Sealed.open(Array(box.prefix(20)), key: key, associated: [1, 2, 3]) == nil)
        // A fresh IV each time: the same token never seals to the same bytes.
        #expect(try Sealed.seal(Array("the id token".utf8), key: key, associated: [1, 2, 3]) != box)
        // The key is not the nonce's stored hash, nor derivable from it.
        #expect(key != SHA256.hash(Array("raw nonce".utf8)))
    }

    @Test func theServiceAccountsAssertionIsWhatGoogleWants() throws {
        let key = try SigningKey.rsa(kid: "sa-unit")
        let json = try FakeFirebase.serviceAccountJSON(email: "sa@p.iam.gserviceaccount.com", key: key)
        let account = try ServiceAccount.parse(Array(json.utf8))
        #expect(account.clientEmail == "sa@p.iam.gserviceaccount.com")
        let now: UnixTime = 1_800_000_000
        let assertion = try GoogleOAuth.assertion(account: account, tokenUrl: "https://oauth2.googleapis.com/token", now: now)
        let jws = try CompactJWS.parse(assertion)
        #expect(jws.header["alg"] == "RS256")
        #expect(jws.header["kid"] == "sa-unit")
        let claims = try jws.claims()
        #expect(claims["iss"] == "sa@p.iam.gserviceaccount.com")
        #expect(claims["aud"] == "https://oauth2.googleapis.com/token")
        #expect(claims["scope"] == "https://www.googleapis.com/auth/identitytoolkit")
        #expect(claims["exp"]?.int64Value == now + 3600)
        #expect(claims["sub"] == nil)
        // Signed with the account's key: it verifies against the public half.
        let keys = try JSONWebKeySet.parse(Array(JWTMinter.jwks([key]).utf8))
        try verifySignature(of: jws, with: keys)
    }

    @Test func aServiceAccountFileMustBeOne() throws {
        let key = try SigningKey.rsa(kid: "sa-unit-2")
        let ec = try SigningKey.p256(kid: "sa-unit-ec")
        let cases: [(String, String)] = [
            ("not JSON", "not json"),
            ("another type", #"{"type":"authorized_user","client_email":"a@b","private_key":"x"}"#),
            ("no email", #"{"type":"service_account","private_key":"x"}"#),
            ("not a key", #"{"type":"service_account","client_email":"a@b","private_key":"-----BEGIN PRIVATE KEY-----"}"#),
            ("an EC key", try FakeFirebase.serviceAccountJSON(email: "a@b", key: ec)),
        ]
        for (name, text) in cases {
            #expect(throws: FrontdoorError.internal(""), "\(name)") { try ServiceAccount.parse(Array(text.utf8)) }
        }
        #expect(try ServiceAccount.parse(Array(try FakeFirebase.serviceAccountJSON(email: "a@b", key: key).utf8))
            .clientEmail == "a@b")
    }
}
