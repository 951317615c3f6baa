import DevSupport
import Shared
import Testing

/// Issue 24's bounds, in `PasskeyTests` so both engines run them: ceremonies begun per client, per
/// IPv6 /48 and (registrations) per account, and the passkeys one account may hold.
extension PasskeyTests {
    static let signInBegin: [(String, JSONValue)] = [("action", "begin")]
    static let registerBegin: [(String, JSONValue)] = [("action", "register_begin")]

    /// Every row a begin may write: the ceremonies and the rate-limit windows.
    func ephemeralRows(_ w: PasskeyWorld) throws -> [String] {
        let db = try w.h.database()
        return try db.query("SELECT kind, \(TestStore.hex("key", db)), number FROM ephemeral ORDER BY 1, 2")
            .map { row in (0..<row.count).map { "\(row[$0])" }.joined(separator: "|") }
    }

    @Test func beginsPerClientLetExactlyTheLimitThroughThen429WithNothingWritten() throws {
        let w = try PasskeyWorld(config: [("limits", .object([("passkeyBeginsPerClientPerHour", 3)]))])
        let ada = try w.person("ada-limit")
        // Sign-ins and registrations count together for the client.
        for _ in 0..<2 { #expect(try w.run("signin-passkey", Self.signInBegin, from: "198.51.100.7").status == 200) }
        #expect(try w.run("passkey", Self.registerBegin, ada, from: "198.51.100.7").status == 200)
        #expect(try w.h.count(.passkeyCeremony) == 3)
        let before = try ephemeralRows(w)
        for (endpoint, body, person) in [
            ("signin-passkey", Self.signInBegin, nil), ("passkey", Self.registerBegin, Optional(ada)),
        ] {
            let refused = try w.run(endpoint, body, person, from: "198.51.100.7")
            #expect(refused.status == 429 && refused.errorCode == "rate_limited", "\(endpoint): \(refused.rawBody)")
            let retryAfter = try #require(refused.header("retry-after").flatMap { Int($0) }, "\(endpoint)")
            #expect(retryAfter > 0 && retryAfter <= 3600)
            #expect(try ephemeralRows(w) == before, "\(endpoint) wrote something")
        }
        // Another client has its own count.
        #expect(try w.run("signin-passkey", Self.signInBegin, from: "198.51.100.8").status == 200)
        #expect(try w.h.count(.passkeyCeremony) == 4)
    }

    @Test func beginsAreCountedPerSlash48() throws {
        let w = try PasskeyWorld(config: [
            ("limits", .object([("passkeyBeginsPerClientPerHour", 5), ("passkeyBeginsPerNetworkPerHour", 2)]))
        ])
        #expect(try w.run("signin-passkey", Self.signInBegin, from: "2001:db8:24:1::1").status == 200)
        #expect(try w.run("signin-passkey", Self.signInBegin, from: "2001:db8:24:2::1").status == 200)
        // A third /64 of the same /48, under its own per-client allowance: refused.
        let refused = try w.run("signin-passkey", Self.signInBegin, from: "2001:db8:24:3::1")
        #expect(refused.status == 429 && refused.errorCode == "rate_limited", "\(refused.rawBody)")
        #expect(try w.h.count(.passkeyCeremony) == 2)
        #expect(try w.run("signin-passkey", Self.signInBegin, from: "2001:db8:25:1::1").status == 200)
    }

    @Test func registrationBeginsPerAccountLetExactlyTheLimitThroughThen429WithNothingWritten() throws {
        let w = try PasskeyWorld(config: [("limits", .object([("passkeyRegistrationsPerAccountPerHour", 2)]))])
        let ada = try w.person("ada-account-limit")
        let again = try w.person("ada-account-limit")
        #expect(again.accountId == ada.accountId)
        for _ in 0..<2 { _ = try w.registerBegin(ada) }
        let before = try ephemeralRows(w)
        let refused = try w.passkey(Self.registerBegin, ada)
        #expect(refused.status == 429 && refused.errorCode == "rate_limited", "\(refused.rawBody)")
        #expect(refused.header("retry-after") != nil)
        // Per account, not per session or client: another session of Ada's, from elsewhere, too.
        #expect(try w.run("passkey", Self.registerBegin, again, from: "203.0.113.9").status == 429)
        #expect(try ephemeralRows(w) == before)
        // Another account from the same client is not held back, and sign-ins go on.
        _ = try w.registerBegin(try w.person("bob-account-limit"))
        _ = try w.signInBegin()
    }

    @Test func anAccountHoldsAtMostTwentyPasskeysAndTheTwentyFirstWritesNothing() throws {
        let max = 20
        let w = try PasskeyWorld(config: [
            ("limits", .object([("passkeyRegistrationsPerAccountPerHour", 100), ("passkeyBeginsPerClientPerHour", 100)]))
        ])
        let ada = try w.person("ada-cap")
        for _ in 0..<(max - 1) { _ = try w.register(try SoftwareAuthenticator(), for: ada) }
        // Two ceremonies begun at 19: the first to finish makes 20, the second is refused at finish.
        let first = try w.registerBegin(ada)
        let second = try w.registerBegin(ada)
        let phone = try SoftwareAuthenticator()
        let made = try phone.register(challenge: first.challenge, rpId: PasskeyWorld.rpId, origin: PasskeyWorld.origin)
        #expect(try w.registerFinish(ada, first, SoftwareAuthenticator.json(made)).status == 200)
        #expect(try w.h.count("passkeys") == Int64(max))

        let late = try SoftwareAuthenticator()
        let lateMade = try late.register(challenge: second.challenge, rpId: PasskeyWorld.rpId, origin: PasskeyWorld.origin)
        let beforeFinish = try w.snapshot()
        let refusedFinish = try w.registerFinish(ada, second, SoftwareAuthenticator.json(lateMade))
        #expect(refusedFinish.status == 409 && refusedFinish.errorCode == "too_many_passkeys", "\(refusedFinish.rawBody)")
        #expect(try w.snapshot() == beforeFinish)

        // A full account is told at begin, before its phone makes a passkey: no ceremony, nothing counted.
        let beforeBegin = try ephemeralRows(w)
        let refusedBegin = try w.passkey(Self.registerBegin, ada)
        #expect(refusedBegin.status == 409 && refusedBegin.errorCode == "too_many_passkeys", "\(refusedBegin.rawBody)")
        #expect(try ephemeralRows(w) == beforeBegin)
        #expect(try w.h.count("passkeys") == Int64(max))
        #expect(try w.passkey([("action", "list")], ada).body["passkeys"]?.arrayValue?.count == max)

        // Deleting one makes room again; another account is not affected.
        let passkeyId = Base64URL.encode(phone.credentialId)
        #expect(try w.passkey([("action", "delete"), ("passkeyId", .string(passkeyId))], ada).status == 200)
        _ = try w.register(late, for: ada)
        _ = try w.register(try SoftwareAuthenticator(), for: try w.person("bob-cap"))
        #expect(try w.h.count("passkeys") == Int64(max + 1))
    }
}

extension PasskeyTests {
    /// Two finishes at 19 passkeys, the first held after its insert, uncommitted: on PostgreSQL the
    /// second is held there too (both counted 19), and SERIALIZABLE lets only one commit, the other
    /// retried whole and refused; on SQLite the second waits for the writer lock. Either way: 20.
    @Test func twoFinishesAtNineteenMakeTwentyNotTwentyOne() throws {
        let w = try PasskeyWorld(config: [
            ("limits", .object([("passkeyRegistrationsPerAccountPerHour", 100), ("passkeyBeginsPerClientPerHour", 100)]))
        ])
        let ada = try w.person("ada-cap-race")
        for _ in 0..<19 { _ = try w.register(try SoftwareAuthenticator(), for: ada) }
        func finish(_ begun: PasskeyWorld.Begun) throws -> HeldRequest {
            let made = try SoftwareAuthenticator().register(
                challenge: begun.challenge, rpId: PasskeyWorld.rpId, origin: PasskeyWorld.origin)
            let json = JSONValue.object([
                ("action", "register_finish"), ("ceremonyId", .string(begun.ceremonyId)),
                ("credential", SoftwareAuthenticator.json(made)),
            ]).serialized
            return try HeldRequest(w.h, "passkey", json: json, holdAt: "passkey-registered", authorization: ada.bearer)
        }
        let (one, two) = (try w.registerBegin(ada), try w.registerBegin(ada))
        let first = try finish(one)
        try first.waitUntilHeld()
        let second = try finish(two)
        if w.h.postgres != nil { try second.waitUntilHeld() }
        let answers = [try first.release(), try second.release()]
        #expect(answers.map(\.status).sorted() == [200, 409], "\(answers.map(\.rawBody))")
        #expect(answers.contains { $0.errorCode == "too_many_passkeys" })
        #expect(try w.h.count("passkeys") == 20)
        #expect(try w.h.count(.passkeyCeremony) == 1, "the refused finish's ceremony stays, as after any refusal")
    }
}
