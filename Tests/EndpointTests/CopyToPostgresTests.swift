#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// `frontdoor-admin copy-to-postgres`: a one-box SQLite store, used for a while, copied into an
/// empty PostgreSQL store; every table's rows the same after, its people signing in (and out, and
/// deleting) on PostgreSQL as before; a second copy, a missing file and a SQLite config refused.
/// Always both engines; the Makefile runs it on the first pass only.
@Suite(.serialized) struct CopyToPostgresTests {
    /// Every row of every table, as text, sorted: the two stores hold the same when these agree.
    static func rows(_ db: Database) throws -> [String: [String]] {
        var out: [String: [String]] = [:]
        // The account views are SQLite's copies of the accounts (`AccountView`), not copied.
        for table in try TestStore.tableNames(db) where table != "event_delivery" && table != "account_views" {
            out[table] = try db.query("SELECT * FROM \(table)").map { row in
                (0..<row.count).map { "\(row[$0])" }.joined(separator: "|")
            }.sorted()
        }
        return out
    }

    @Test func aOneBoxStoreMovesWholeAndItsPeopleSignInOnPostgres() throws {
        let one = try Harness(postgres: false)
        var google: [(sub: String, accountId: String, token: String)] = []
        for i in 0..<4 {
            let me = try one.signedIn("g-moving-\(i)", email: "moving\(i)@gmail.com")
            google.append(("g-moving-\(i)", me.accountId, me.token))
        }
        #expect(try one.register("moving.email@example.org", "the moving password").status == 201)
        #expect(try one.login("moving.email@example.org", "wrong password").status == 401)
        #expect(try one.run("sign-out", body: [], contentType: nil, authorization: "Bearer \(google[3].token)").status == 200)
        let leaving = try one.signedIn("g-leaving-before", email: "leaving.before@gmail.com")
        #expect(try one.run("delete-account", json: "{}", authorization: leaving.bearer).status == 200)
        let source = try Self.rows(try one.database())
        #expect(source["accounts"]?.count == 5 && source["deletion_audit"]?.count == 1, "\(source.keys.sorted())")

        let pg = try Harness(postgres: true)
        // Every box holds the one-box store's server key: the audit rows, limits and sealed rows need it.
        try pg.writeText(pg.auditKeyPath, String(decoding: FileIO.readFile(one.auditKeyPath) ?? [], as: UTF8.self))

        let missing = try pg.admin(["copy-to-postgres", one.dir + "/no-such.sqlite3"])
        #expect(missing.status == 66, "\(missing.json)")
        let fromSQLite = try one.admin(["copy-to-postgres", one.databasePath])
        #expect(fromSQLite.status == 64 && fromSQLite.error == "usage", "\(fromSQLite.json)")

        let copied = try pg.admin(["copy-to-postgres", one.databasePath])
        #expect(copied.status == 0, "\(copied.json) \(copied.stderr)")
        #expect(copied.json["rows"]?.int64Value == Int64(source.values.map(\.count).reduce(0, +)), "\(copied.json)")
        #expect(copied.audit.count == 1 && copied.audit.first?.contains("action=copy-to-postgres") == true, "\(copied.audit)")
        let target = try Self.rows(try pg.database())
        #expect(Set(target.keys) == Set(source.keys))
        for table in source.keys.sorted() { #expect(target[table] == source[table], "\(table)") }

        let again = try pg.admin(["copy-to-postgres", one.databasePath])
        #expect(again.status == 69, "\(again.json)")
        #expect(try Self.rows(try pg.database()) == target, "a refused copy changes nothing")

        // On PostgreSQL: the sessions made on SQLite, the same accounts, the password, the sign-out.
        for (i, person) in google.enumerated() {
            #expect(try pg.check("Bearer \(person.token)").status == (i == 3 ? 401 : 200), "\(person.sub)")
            let again = try pg.signInGoogle(try pg.google.token(sub: person.sub, email: "moving\(i)@gmail.com"))
            #expect(again.status == 200 && again.body["created"] == false, "\(again.rawBody)")
            #expect(again.body["accountId"]?.stringValue == person.accountId)
        }
        #expect(try pg.login("moving.email@example.org", "the moving password").status == 200)
        // A deletion writes an audit row, whose id comes after the copied one's.
        #expect(try pg.run("delete-account", json: "{}", authorization: "Bearer \(google[0].token)").status == 200)
        #expect(try pg.count("deletion_audit") == 2)
        #expect(try StoreInvariants.violations(try pg.database()) == [])
    }

    @Test func aKeyThatIsNotTheStoresIsRefusedBeforeAnythingIsCopied() throws {
        let one = try Harness(postgres: false)
        let me = try one.signedIn("g-keyed", email: "keyed@gmail.com")
        #expect(try one.run("delete-account", json: "{}", authorization: me.bearer).status == 200)
        let pg = try Harness(postgres: true)
        let refused = try pg.admin(["copy-to-postgres", one.databasePath])
        #expect(refused.status == 69 && refused.json["message"]?.stringValue?.contains("auditKeyFile") == true, "\(refused.json)")
        #expect(try pg.count("accounts") == 0 && pg.count("deletion_audit") == 0)
    }

    /// Issue 29, finding 8: `frontdoor-admin backup`'s snapshot, the step docs/scaling.md gives, is
    /// copied (its `frontdoor_snapshot` table is not), and the server key is checked for it too:
    /// by its MAC, since no key lies beside a backup. A box whose key is not the store's is refused.
    @Test func aBackupIsCopiedAndItsServerKeyCheckedByItsMAC() throws {
        let one = try Harness(postgres: false)
        let me = try one.signedIn("g-backed-up", email: "backed.up@gmail.com")
        mkdir(one.dir + "/backups", 0o700)
        let backup = try one.admin(["backup", one.dir + "/backups"])
        let snapshot = try #require(backup.json["path"]?.stringValue, "\(backup.stdout)")
        let source = try Self.rows(try one.database())

        let pg = try Harness(postgres: true)
        let refused = try pg.admin(["copy-to-postgres", snapshot])
        #expect(refused.status == 69, "\(refused.json) \(refused.stderr)")
        #expect(refused.json["message"]?.stringValue?.contains("server key") == true, "\(refused.json)")
        #expect(try pg.count("accounts") == 0)

        try pg.writeText(pg.auditKeyPath, String(decoding: FileIO.readFile(one.auditKeyPath) ?? [], as: UTF8.self))
        let copied = try pg.admin(["copy-to-postgres", snapshot])
        #expect(copied.status == 0, "\(copied.json) \(copied.stderr)")
        let target = try Self.rows(try pg.database())
        for table in source.keys.sorted() { #expect(target[table] == source[table], "\(table)") }
        #expect(target["frontdoor_snapshot"] == nil)
        #expect(try pg.check(me.bearer).status == 200)
    }

    /// A file with neither a MAC nor the store's key beside it shows no key: refused.
    @Test func aFileThatShowsNoServerKeyIsRefused() throws {
        let one = try Harness(postgres: false)
        _ = try one.signedIn("g-keyless", email: "keyless@gmail.com")
        mkdir(one.dir + "/elsewhere", 0o700)
        try Files.copy(one.databasePath, to: one.dir + "/elsewhere/store.sqlite3")
        let pg = try Harness(postgres: true)
        let refused = try pg.admin(["copy-to-postgres", one.dir + "/elsewhere/store.sqlite3"])
        #expect(refused.status == 69 && refused.json["message"]?.stringValue?.contains(".mac") == true, "\(refused.json)")
        #expect(try pg.count("accounts") == 0)
    }
}
