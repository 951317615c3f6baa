#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Testing
@testable import Shared

/// The parts of delete-account that need no process: the keyed hash, c_hash, the client secret,
/// DER signatures, schema v3, the config section.
@Suite struct DeletionUnitTests {
    @Test func hmacMatchesRFC4231() {
        // Test cases 1 and 2 of RFC 4231.
        let one = HMACSHA256.mac(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8))
        #expect(Hex.encode(one) == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        let two = HMACSHA256.mac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(Hex.encode(two) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // A key longer than the block is hashed first (test case 6).
        let six = HMACSHA256.mac(
            key: [UInt8](repeating: 0xaa, count: 131),
            message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
        #expect(Hex.encode(six) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func codeHashIsTheLeftHalfOfSHA256InBase64URL() {
        // SHA-256("abc") = ba7816bf8f01cfea414140de5dae2223 b00361a396177a9cb410ff61f20015ad
        #expect(FreshAppleAuthorization.codeHash("abc") == "ungWv48Bz-pBQUDeXa4iIw")
        #expect(FreshAppleAuthorization.codeMatches("abc", hash: "ungWv48Bz-pBQUDeXa4iIw"))
        #expect(!FreshAppleAuthorization.codeMatches("abd", hash: "ungWv48Bz-pBQUDeXa4iIw"))
        #expect(!FreshAppleAuthorization.codeMatches("abc", hash: nil))
    }

    @Test func derSignaturesConvertBothWaysAndOddShapesAreRefused() throws {
        for raw in [[UInt8](repeating: 0x80, count: 64), [0, 0, 1] + [UInt8](repeating: 7, count: 61)] {
            let der = try #require(ECDSASignature.der(fromRaw: raw))
            #expect(ECDSASignature.raw(fromDER: der) == raw)
            #expect(ECDSASignature.raw(fromDER: der + [0]) == nil)
        }
        #expect(ECDSASignature.raw(fromDER: [0x30, 0x06, 0x02, 0x01, 0x81, 0x02, 0x01, 0x01]) == nil)
        #expect(ECDSASignature.raw(fromDER: [0x30, 0x00]) == nil)
        #expect(ECDSASignature.raw(fromDER: []) == nil)
    }

    @Test func clientSecretIsAnES256JWTAppleWouldAccept() throws {
        let key = try SigningKey.p256(kid: "KEY1234567")
        let path = "/tmp/frontdoor-p8-\(getpid())-\(Int(Clock.monotonicMillis()))"
        try write(path, try key.privateKeyPEM())
        defer { unlink(path) }
        let apple = Config.Apple(
            bundleIds: ["com.example.app"], mode: .direct, keysUrl: "", tokenUrl: "", revokeUrl: "",
            teamId: "TEAM123456", keyId: key.kid, privateKeyFile: path)
        let now = Clock.now()
        let secret = try AppleClientSecret.make(apple: apple, clientId: "com.example.app", now: now)
        let keys = try JSONWebKeySet.parse(Array(JWTMinter.jwks([key]).utf8))
        let policy = ClaimsPolicy(issuers: ["TEAM123456"], audiences: ["https://appleid.apple.com"])
        let verified = try TokenVerifier.verify(secret, keys: keys, policy: policy, now: now)
        #expect(verified.subject == "com.example.app")
        #expect(verified.header["alg"] == "ES256")
        #expect(verified.header["kid"] == "KEY1234567")
        #expect(verified.expiresAt - verified.issuedAt <= 15_777_000)

        // An RSA key, garbage, a missing file, missing settings: each an internal error, never a crash.
        try write(path, try SigningKey.rsa(kid: "r").privateKeyPEM())
        #expect(throws: FrontdoorError.self) { try AppleClientSecret.make(apple: apple, clientId: "c", now: now) }
        try write(path, "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        #expect(throws: FrontdoorError.self) { try AppleClientSecret.make(apple: apple, clientId: "c", now: now) }
        var unset = apple
        unset.teamId = nil
        #expect(throws: FrontdoorError.self) { try AppleClientSecret.make(apple: unset, clientId: "c", now: now) }
        unlink(path)
        #expect(throws: FrontdoorError.self) { try AppleClientSecret.make(apple: apple, clientId: "c", now: now) }
    }

    @Test func schemaV3TablesAreStrictAndTiedToNoAccount() throws {
        try withStoreDirectory { dir in
            let db = try Database(path: dir.databasePath)
            for table in ["deletion_audit", "apple_revocations"] {
                let strict = try db.query("SELECT strict FROM pragma_table_list WHERE name = ?", [.text(table)])
                #expect(strict.first?.int(0) == 1, "\(table)")
                #expect(try db.query("SELECT * FROM pragma_foreign_key_list(?)", [.text(table)]).isEmpty, "\(table)")
            }
        }
    }

    @Test func deletionConfigIsValidated() throws {
        let base = #""databasePath": "/tmp/x.sqlite3", "google": {"clientIds": ["a"]}"#
        let plain = try Config.parse(Array("{\(base)}".utf8))
        #expect(plain.deletion.auditKeyFile == nil)
        #expect(plain.deletion.revocationBudgetSeconds == 20)
        let deletion = #""deletion": {"auditKeyFile": "/etc/frontdoor/secrets/audit-key", "#
            + #""revocationBudgetSeconds": 9}"#
        let set = try Config.parse(Array("{\(base), \(deletion)}".utf8))
        #expect(set.deletion.auditKeyFile == "/etc/frontdoor/secrets/audit-key")
        #expect(set.deletion.revocationBudgetSeconds == 9)
        #expect(set.secretFiles.contains { $0.key == "deletion.auditKeyFile" })
        for bad in [#""deletion": {"auditKeyFiles": "x"}"#, #""deletion": {"revocationBudgetSeconds": 0}"#] {
            #expect(throws: ConfigError.self) { try Config.parse(Array("{\(base), \(bad)}".utf8)) }
        }
    }

    func write(_ path: String, _ text: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw FrontdoorError.internal("cannot write \(path)") }
        FileIO.writeAll(fd, Array(text.utf8))
        close(fd)
    }
}
