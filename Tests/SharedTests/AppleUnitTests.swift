import DevSupport
import Testing
@testable import Shared

/// The parts of signin-apple that need no process: schema v2, nonces, the cheap checks, encodings.
@Suite struct AppleUnitTests {
    @Test func schemaV2TablesAreStrictAndTiedToNoAccount() throws {
        try withStoreDirectory { dir in
            let db = try Database(path: dir.databasePath)
            for table in ["ephemeral", "relay_cleanups"] {
                let strict = try db.query("SELECT strict FROM pragma_table_list WHERE name = ?", [.text(table)])
                #expect(strict.first?.int(0) == 1, "\(table)")
                #expect(try db.query("SELECT * FROM pragma_foreign_key_list(?)", [.text(table)]).isEmpty, "\(table)")
            }
        }
    }

    @Test(arguments: StoreEngine.allCases) func aNonceIsClaimedOnceReleasedAndPrunedInBatches(_ engine: StoreEngine) throws {
        try withStore(engine) { db, _ throws in
            let hash = SHA256.hash(Array("raw".utf8))
            #expect(try Nonces.claim(hash: hash, until: 100, db: db))
            #expect(try !Nonces.claim(hash: hash, until: 100, db: db))
            Nonces.release(hash: hash, db: db)
            #expect(try Nonces.claim(hash: hash, until: 100, db: db))
            for i in 0..<45 { _ = try Nonces.claim(hash: SHA256.hash(Array("n\(i)".utf8)), until: 50, db: db) }
            func prunedNonces() throws -> Int? {
                try Housekeeping.prune(db, now: 60, limit: 20).first { $0.0 == "ephemeral" }?.1
            }
            #expect(try prunedNonces() == 20)
            #expect(try prunedNonces() == 20)
            #expect(try prunedNonces() == 5)
            #expect(try prunedNonces() == 0)
            #expect(try db.query("SELECT count(*) FROM ephemeral WHERE kind = 1").first?.int(0) == 1)
        }
    }

    @Test func precheckWantsTheLowercaseHexHashOfTheRawNonce() throws {
        let apple = try FakeApple(keys: [try SigningKey.rsa(kid: "unit-apple")], serve: false)
        let now = Clock.now()
        let raw = "a raw nonce with spaces & symbols"
        let token = try apple.token(sub: "s", rawNonce: raw, now: now)
        let checked = try AppleToken.precheck(token, rawNonce: raw, audiences: [FakeApple.bundleId], now: now)
        #expect(checked.subject == "s")
        #expect(checked.nonceHash == SHA256.hash(Array(raw.utf8)))
        let upper = try apple.token(sub: "s", rawNonce: nil, now: now, overrides: [
            ("nonce", .string(FakeApple.nonceClaim(raw).uppercased())),
        ])
        #expect(throws: FrontdoorError.invalidToken("")) {
            try AppleToken.precheck(upper, rawNonce: raw, audiences: [FakeApple.bundleId], now: now)
        }
        #expect(throws: FrontdoorError.invalidToken("")) {
            try AppleToken.precheck(token, rawNonce: raw, audiences: ["com.other"], now: now)
        }
        #expect(throws: FrontdoorError.invalidToken("")) {
            try AppleToken.precheck(
                token, rawNonce: raw, audiences: [FakeApple.bundleId], now: now + FakeApple.tokenLifetime + 61)
        }
        // A day less a second after it was made, Apple's token is still good (it lives 24 hours).
        #expect(try AppleToken.precheck(
            token, rawNonce: raw, audiences: [FakeApple.bundleId], now: now + FakeApple.tokenLifetime - 1).subject == "s")
    }

    @Test func formEncodingKeepsOnlyUnreservedBytes() {
        #expect(FormEncoding.escape("aZ09-._~") == "aZ09-._~")
        #expect(FormEncoding.escape("a b&c=d+é/") == "a%20b%26c%3Dd%2B%C3%A9%2F")
        #expect(FormEncoding.encode([("id_token", "x.y"), ("nonce", "1 2")]) == "id_token=x.y&nonce=1%202")
    }

    @Test func identityToolkitErrorCodesStopAtTheColon() {
        func code(_ body: String) -> String {
            FirebaseRelay.errorCode(HTTPResponse(status: 400, headers: [], body: Array(body.utf8)))
        }
        #expect(code(#"{"error":{"code":400,"message":"INVALID_IDP_RESPONSE : token eyJ... for a@b.c"}}"#)
            == "INVALID_IDP_RESPONSE")
        #expect(code(#"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key."}}"#)
            == "API key not valid. Please pass a valid API key.")
        #expect(code("<html>") == "(no error message)")
        #expect(FirebaseRelay.refusesToken("MISSING_OR_INVALID_NONCE"))
        #expect(!FirebaseRelay.refusesToken("CONFIGURATION_NOT_FOUND"))
    }

    /// Inside the deletion window the waits stay short (the window is four minutes); past it the
    /// Admin API's grow to six hours, and are bounded by a number of tries, not by time.
    @Test func backoffGrowsAndIsCapped() {
        #expect(RelayCleanup.backoff(attempts: 1) == 15)
        #expect(RelayCleanup.backoff(attempts: 2) == 30)
        #expect(RelayCleanup.backoff(attempts: 100) == 60)
        #expect(RelayCleanup.adminBackoff(attempts: 1) == 60)
        #expect(RelayCleanup.adminBackoff(attempts: 2) == 120)
        #expect(RelayCleanup.adminBackoff(attempts: 100) == 21_600)
        #expect(RelayCleanup.deleteByTokenWindowSeconds < FakeFirebase.recentSignInSeconds)
    }
}
