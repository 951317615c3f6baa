#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// delete-account: what goes, what answers, what stays (issue 5).
@Suite struct DeletionTests {
    static let personalTables = ["accounts", "identities", "sessions", "tickets"]

    @Test func everythingOfThePersonGoesAndLeavesNoTraceInTheFile() throws {
        let d = try DeletionWorld()
        let email = "Wendy.Delete@example.org"
        let (session, accountId) = try d.appleAccount("apple-del-1", email: email, name: "Wendy")
        _ = try d.appleAccount("apple-del-1")
        // A pending join bound to the account: a Google identity with the same address asks for proof.
        let join = try d.h.signInGoogle(try d.h.google.token(sub: "g-del-join", email: email))
        #expect(join.errorCode == "proof_required")
        for table in Self.personalTables { #expect(try d.h.count(table) > 0, "\(table)") }
        #expect(d.storeBytes().contains(email), "the check below must be able to fail")

        let answer = try d.delete(session)
        #expect(answer.status == 200, "\(answer.rawBody) \(answer.stderr)")
        #expect(answer.body == .object([("deleted", true), ("appleRevocation", "not_requested")]))
        #expect(answer.header("cache-control") == "no-store")
        for table in Self.personalTables { #expect(try d.h.count(table) == 0, "\(table)") }
        let bytes = d.storeBytes()
        for secret in [email, email.lowercased(), "Wendy", accountId] { #expect(!bytes.contains(secret), "\(secret)") }
        for secret in [email, session, accountId] { #expect(!answer.stderr.contains(secret)) }

        // The audit record: a keyed hash of the id, the time, the providers; nothing more.
        let key = Array((try #require(FileIO.readFile(d.h.dir + "/audit-key"))).prefix(64))
        let audit = try d.h.database().query(
            "SELECT account_hash, providers, apple_revocation, revocation_id, deleted_at FROM deletion_audit")
        #expect(audit.count == 1)
        #expect(audit.first?.blob(0) == HMACSHA256.mac(key: key, message: Array(accountId.utf8)))
        #expect(audit.first?.text(1) == "apple")
        #expect(audit.first?.text(2) == "not_requested")
        #expect(audit.first?[3] == .null)
        #expect(abs((audit.first?.int(4) ?? 0) - Clock.now()) < 30)
        let keyMode = try #require(fileMode(d.h.dir + "/audit-key"))
        #expect(keyMode == 0o600)
    }

    @Test func aPasswordAccountWithCodesPendingLeavesNothingEither() throws {
        let d = try DeletionWorld()
        let email = "Paula.Pending@example.org"
        let made = try d.h.register(email, "a password of hers")
        let session = try #require(made.body["sessionToken"]?.stringValue)
        // Own-email verification with a mailed code, and a Google join waiting on the same address.
        let own = try d.h.verify([("action", "verify_own_email")], authorization: "Bearer \(session)")
        let ticket = try #require(own.body["ticket"]?.stringValue)
        #expect(try d.h.verify([("action", "send_code"), ("ticket", .string(ticket))]).status == 200)
        #expect(try d.h.signInGoogle(try d.h.google.token(sub: "g-paula", email: email)).errorCode == "proof_required")
        for table in ["email_tickets", "email_codes", "tickets"] { #expect(try d.h.count(table) > 0, "\(table)") }

        let answer = try d.delete(session)
        #expect(answer.body == .object([("deleted", true), ("appleRevocation", "not_applicable")]))
        for table in Self.personalTables + ["email_tickets", "email_codes"] {
            #expect(try d.h.count(table) == 0, "\(table)")
        }
        let bytes = d.storeBytes()
        for secret in [email, email.lowercased()] { #expect(!bytes.contains(secret), "\(secret)") }
        #expect(try d.h.database().query("SELECT providers FROM deletion_audit").first?.text(0) == "password")
    }

    @Test func theOldSessionIsDeadAndTheSameIdentityMakesANewAccount() throws {
        let d = try DeletionWorld()
        let (session, accountId) = try d.googleAccount("g-del-2", email: "del.two@gmail.com")
        let answer = try d.delete(session)
        #expect(answer.body["appleRevocation"] == "not_applicable")
        #expect(try d.delete(session).status == 401)
        let out = try d.h.run("sign-out", body: [], contentType: nil, authorization: "Bearer \(session)")
        #expect(out.status == 401)
        let again = try d.h.signInGoogle(try d.h.google.token(sub: "g-del-2", email: "del.two@gmail.com"))
        #expect(again.status == 200)
        #expect(again.body["created"] == true)
        #expect(again.body["accountId"] != .string(accountId))
        // A fresh Apple authorization changes nothing for an account without Apple.
        let fresh = try d.freshBody(sub: "apple-nobody")
        let second = try #require(again.body["sessionToken"]?.stringValue)
        #expect(try d.delete(second, body: fresh.body).body["appleRevocation"] == "not_applicable")
        #expect(d.firebase.revocations.isEmpty)
    }

    @Test(arguments: [nil, "Bearer", "Basic abc", "Bearer not-a-session",
                      "Bearer AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "expired"])
    func withoutALiveSessionNothingIsDeleted(_ authorization: String?) throws {
        let d = try DeletionWorld()
        let (session, _) = try d.googleAccount("g-del-401", email: "del.401@gmail.com")
        var header = authorization
        if authorization == "expired" {
            try d.h.database().run("UPDATE sessions SET expires_at = ?", [.integer(Clock.now() - 1)])
            header = "Bearer \(session)"
        }
        let answer = try d.h.run("delete-account", json: "{}", authorization: header)
        #expect(answer.status == 401)
        #expect(answer.errorCode == "unauthorized")
        #expect(try d.h.count("accounts") == 1)
        #expect(try d.h.count("identities") == 1)
        #expect(try d.h.count("deletion_audit") == 0)
    }

    @Test func malformedAppleMembersAre400BeforeAnythingIsDeleted() throws {
        let d = try DeletionWorld()
        let (session, _) = try d.appleAccount("apple-del-400")
        let bodies = [
            #"{"appleAuthorizationCode": 5}"#, #"{"appleAuthorizationCode": "has space"}"#,
            #"{"appleIdentityToken": "not.a-token"}"#, #"{"appleRawNonce": ["x"]}"#, "[]", "{",
        ]
        for body in bodies {
            let answer = try d.delete(session, body: body)
            #expect(answer.status == 400, "\(body)")
            #expect(answer.errorCode == "invalid_request", "\(body)")
        }
        #expect(try d.h.count("accounts") == 1)
        // No body at all is fine: the app may send none.
        let bare = try d.h.run("delete-account", body: [], contentType: nil, authorization: "Bearer \(session)")
        #expect(bare.status == 200)
        #expect(bare.body["appleRevocation"] == "not_requested")
    }

    @Test func theAuditKeyCanComeFromAFileTheConfigNames() throws {
        let keyFile = "/tmp/frontdoor-audit-key-\(getpid())-\(Clock.monotonicMillis())"
        let d = try DeletionWorld()
        try d.h.writeText(keyFile, "an operator's audit key of more than 32 bytes\n")
        defer { unlink(keyFile) }
        try d.w.writeConfig([
            ("processLifetimeSeconds", .number(Double(DeletionWorld.processLifetime))),
            ("deletion", .object([("auditKeyFile", .string(keyFile)), ("revocationBudgetSeconds", 5)])),
        ])
        let (session, accountId) = try d.googleAccount("g-del-key")
        #expect(try d.delete(session).status == 200)
        let hash = try d.h.database().query("SELECT account_hash FROM deletion_audit").first?.blob(0)
        let key = Array("an operator's audit key of more than 32 bytes".utf8)
        #expect(hash == HMACSHA256.mac(key: key, message: Array(accountId.utf8)))
        #expect(FileIO.readFile(d.h.dir + "/audit-key") == nil)
    }

    func fileMode(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o777
    }
}
