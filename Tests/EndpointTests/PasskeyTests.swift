import DevSupport
import Shared
import Testing

/// `passkey` and `signin-passkey` (rule 17) through the built programs: the ceremonies, every
/// check refused with nothing changed, and a passkey as a way in of the account model.
@Suite struct PasskeyTests {
    @Test(arguments: [COSEAlgorithm.es256, .rs256])
    func registrationAndSignInMakeASessionLikeEveryOther(_ algorithm: COSEAlgorithm) throws {
        let w = try PasskeyWorld()
        let ada = try w.person("ada")
        let begun = try w.registerBegin(ada)
        // The options a phone hands to the platform, as the contract gives them.
        #expect(begun.options["rp"] == .object([("id", "example.com"), ("name", "Example")]))
        #expect(begun.options["user"]?["name"] == "ada@gmail.com")
        #expect(begun.options["attestation"] == "none")
        #expect(begun.options["pubKeyCredParams"]?.arrayValue?.count == 2)
        #expect(begun.options["authenticatorSelection"]?["residentKey"] == "required")
        #expect(begun.options["excludeCredentials"] == .array([]))
        #expect(begun.challenge.count == 32)
        let handle = try #require(begun.userHandle)
        #expect(handle.count == 32 && !Base64URL.encode(handle).contains(ada.accountId))

        let phone = try SoftwareAuthenticator(algorithm: algorithm)
        let made = try phone.register(challenge: begun.challenge, rpId: PasskeyWorld.rpId, origin: PasskeyWorld.origin)
        let answer = try w.registerFinish(ada, begun, SoftwareAuthenticator.json(made), name: "Ada's iPhone")
        #expect(answer.status == 200, "\(answer.rawBody)")
        let passkeyId = try #require(answer.body["passkeyId"]?.stringValue)
        #expect(passkeyId == Base64URL.encode(phone.credentialId))
        #expect(answer.body["createdAt"]?.stringValue != nil)
        // The ceremony is spent.
        #expect(try w.h.count(.passkeyCeremony) == 0)

        let listed = try w.passkey([("action", "list")], ada)
        #expect(listed.body["passkeys"]?.arrayValue?.count == 1)
        #expect(listed.body["passkeys"]?.arrayValue?.first?["name"] == "Ada's iPhone")
        #expect(listed.body["passkeys"]?.arrayValue?.first?["lastUsedAt"] == .null)
        // The next registration excludes it.
        let again = try w.registerBegin(ada)
        #expect(again.options["excludeCredentials"]?.arrayValue?.first?["id"]?.stringValue == passkeyId)
        #expect(again.userHandle == handle)

        // Sign-in: discoverable, no session needed, the same body as every sign-in.
        let signIn = try w.signInBegin()
        #expect(signIn.options["rpId"] == "example.com")
        #expect(signIn.options["allowCredentials"] == .array([]))
        #expect(signIn.options["userVerification"] == "required")
        let assertion = try phone.assert(
            challenge: signIn.challenge, rpId: PasskeyWorld.rpId, origin: PasskeyWorld.origin, userHandle: handle)
        let session = try w.signInFinish(signIn, SoftwareAuthenticator.json(assertion), deviceName: "Ada's iPhone")
        #expect(session.status == 200, "\(session.rawBody)")
        #expect(session.body["accountId"]?.stringValue == ada.accountId)
        #expect(session.body["created"] == false)
        #expect(session.body["email"] == "ada@gmail.com")
        #expect(session.body["providers"] == .array(["google", "passkey"]))
        let token = try #require(session.body["sessionToken"]?.stringValue)
        #expect(session.body["sessionId"]?.stringValue != nil)
        // The new session is a session: the check admits it and lists the passkey.
        let check = try w.h.run("session", body: [], method: "GET", contentType: nil, authorization: "Bearer \(token)")
        #expect(check.status == 200)
        #expect(check.body["providers"] == .array(["google", "passkey"]))
        // `account get` lists the passkey, with its use.
        let stored = try w.h.run("account", json: #"{"action":"get"}"#, authorization: "Bearer \(token)")
        #expect(stored.body["passkeys"]?.arrayValue?.first?["passkeyId"]?.stringValue == passkeyId)
        #expect(stored.body["passkeys"]?.arrayValue?.first?["lastUsedAt"]?.stringValue != nil)
        #expect(stored.body["sessions"]?.arrayValue?.contains { $0["deviceName"] == "Ada's iPhone" } == true)
        // Only the second registration, begun and never finished, waits for its expiry.
        #expect(try w.h.count(.passkeyCeremony) == 1)
    }

    @Test func theOutboxGetsAccountLinkedWithProviderPasskey() throws {
        let w = try PasskeyWorld()
        let events = try EventsFixture(w.h)
        try w.h.writeConfig([PasskeyWorld.section, events.member])
        let ada = try w.person("ada-events")
        _ = try w.register(try SoftwareAuthenticator(), for: ada)
        let taken = events.taken
        #expect(taken.last == "account.linked \(ada.accountId) [google,passkey] passkey", "\(taken)")
    }

    /// Every spoiled response is refused and changes nothing but its ceremony, which is spent (the
    /// third review: a failed finish left its challenge usable for the rest of its 5 minutes).
    @Test func everySpoiledRegistrationIsRefusedWithNothingChanged() throws {
        let w = try PasskeyWorld()
        let ada = try w.person("ada-spoil")
        let phone = try SoftwareAuthenticator()
        var spoils: [(String, SoftwareAuthenticator.Spoil, Int)] = []
        func spoil(_ name: String, _ status: Int = 401, _ change: (inout SoftwareAuthenticator.Spoil) -> Void) {
            var s = SoftwareAuthenticator.Spoil()
            change(&s)
            spoils.append((name, s, status))
        }
        spoil("type") { $0.type = "webauthn.get" }
        spoil("challenge") { $0.challenge = [UInt8](repeating: 7, count: 32) }
        spoil("crossOrigin") { $0.crossOrigin = true }
        spoil("topOrigin") { $0.topOrigin = "https://evil.example" }
        spoil("rpId") { $0.rpId = "evil.example" }
        spoil("user presence") { $0.removeFlags = [.userPresent] }
        spoil("user verification") { $0.removeFlags = [.userVerified] }
        spoil("backup state without eligibility") { $0.removeFlags = [.backupEligible] }
        spoil("attestation format") { $0.format = "packed" }
        spoil("attested id") { $0.attestedCredentialId = [UInt8](repeating: 9, count: 16) }
        spoil("trailing bytes", 400) { $0.trailingBytes = [0] }
        _ = try w.registerBegin(ada)  // the account's user handle is made at its first begin
        for (name, s, status) in spoils {
            let before = try w.snapshot()
            let begun = try w.registerBegin(ada)
            let afterBegin = try w.snapshot()
            let response = try phone.register(
                challenge: begun.challenge, rpId: PasskeyWorld.rpId, origin: PasskeyWorld.origin, spoil: s)
            let answer = try w.registerFinish(ada, begun, SoftwareAuthenticator.json(response))
            #expect(answer.status == status, "\(name): \(answer.rawBody)")
            #expect(answer.errorCode == (status == 401 ? "invalid_credentials" : "invalid_request"), "\(name)")
            #expect(try w.snapshot() == before, "\(name) changed something, or left its ceremony")
            #expect(before != afterBegin)
            // The ceremony is spent: a good response to its challenge is refused too.
            let good = try phone.register(challenge: begun.challenge, rpId: PasskeyWorld.rpId, origin: PasskeyWorld.origin)
            let again = try w.registerFinish(ada, begun, SoftwareAuthenticator.json(good))
            #expect(again.status == 400 && again.errorCode == "invalid_ticket", "\(name): \(again.rawBody)")
        }
        // A foreign origin, and an Android app's key we do not know: refused, the key in the log.
        // (Not the all-zero hash: 32 zero bytes are the unknown ceremony id below, a secret the log
        // scan looks for.)
        let strangerKey = "android:apk-key-hash:" + Base64URL.encode(SHA256.hash(Array("a key of nobody's app".utf8)))
        for origin in ["https://evil.example", strangerKey] {
            let begun = try w.registerBegin(ada)
            let response = try phone.register(challenge: begun.challenge, rpId: PasskeyWorld.rpId, origin: origin)
            let answer = try w.registerFinish(ada, begun, SoftwareAuthenticator.json(response))
            #expect(answer.status == 401, "\(origin): \(answer.rawBody)")
            if origin.hasPrefix("android:") {
                #expect(answer.stderr.contains("origin:" + strangerKey))
            }
        }
        #expect(try w.h.count("passkeys") == 0)
        // The Android app's own key registers.
        _ = try w.register(phone, for: ada, origin: PasskeyWorld.androidOrigin)
        #expect(try w.h.count("passkeys") == 1)
    }

    @Test func everySpoiledSignInIsRefusedWithNothingChanged() throws {
        let w = try PasskeyWorld()
        let ada = try w.person("ada-signin-spoil")
        let phone = try SoftwareAuthenticator()
        let (_, handle) = try w.register(phone, for: ada)
        var spoils: [(String, SoftwareAuthenticator.Spoil, [UInt8]?)] = []
        func spoil(_ name: String, handle h: [UInt8]? = handle, _ change: (inout SoftwareAuthenticator.Spoil) -> Void) {
            var s = SoftwareAuthenticator.Spoil()
            change(&s)
            spoils.append((name, s, h))
        }
        spoil("type") { $0.type = "webauthn.create" }
        spoil("challenge") { $0.challenge = [UInt8](repeating: 7, count: 32) }
        spoil("crossOrigin") { $0.crossOrigin = true }
        spoil("rpId") { $0.rpId = "evil.example" }
        spoil("user presence") { $0.removeFlags = [.userPresent] }
        spoil("user verification") { $0.removeFlags = [.userVerified] }
        spoil("signature") { $0.signature = true }
        spoil("no user handle", handle: nil) { _ in }
        spoil("another user handle", handle: [UInt8](repeating: 1, count: 32)) { _ in }
        for (name, s, userHandle) in spoils {
            let before = try w.snapshot()
            let begun = try w.signInBegin()
            let response = try phone.assert(
                challenge: begun.challenge, rpId: PasskeyWorld.rpId, origin: PasskeyWorld.origin, userHandle: userHandle,
                spoil: s)
            let answer = try w.signInFinish(begun, SoftwareAuthenticator.json(response))
            #expect(answer.status == 401, "\(name): \(answer.rawBody)")
            #expect(answer.errorCode == "invalid_credentials", "\(name)")
            #expect(try w.snapshot() == before, "\(name) changed something, or left its ceremony")
            // The ceremony is spent: the right response to its challenge no longer signs in.
            let good = try phone.assert(
                challenge: begun.challenge, rpId: PasskeyWorld.rpId, origin: PasskeyWorld.origin, userHandle: handle)
            let again = try w.signInFinish(begun, SoftwareAuthenticator.json(good))
            #expect(again.status == 400 && again.errorCode == "invalid_ticket", "\(name): \(again.rawBody)")
        }
        // An unknown credential: the same refusal, and its ceremony spent too.
        let stranger = try SoftwareAuthenticator()
        let begun = try w.signInBegin()
        let unknown = try w.signInFinish(begun, SoftwareAuthenticator.json(try stranger.assert(
            challenge: begun.challenge, rpId: PasskeyWorld.rpId, origin: PasskeyWorld.origin, userHandle: handle)))
        #expect(unknown.status == 401 && unknown.errorCode == "invalid_credentials")
        #expect(try w.h.count(.passkeyCeremony) == 0)
        #expect(try w.h.count("sessions") == 1)
    }

    @Test func ceremoniesAreUsedOnceOfTheirKindWithinTheirTimeByTheirSession() throws {
        let w = try PasskeyWorld()
        let ada = try w.person("ada-ceremony")
        let phone = try SoftwareAuthenticator()
        let (_, handle) = try w.register(phone, for: ada)

        // A replayed sign-in: the same response twice.
        let begun = try w.signInBegin()
        let response = try phone.assert(
            challenge: begun.challenge, rpId: PasskeyWorld.rpId, origin: PasskeyWorld.origin, userHandle: handle,
            spoil: { var s = SoftwareAuthenticator.Spoil(); s.signCount = 5; return s }())
        #expect(try w.signInFinish(begun, SoftwareAuthenticator.json(response)).status == 200)
        let replay = try w.signInFinish(begun, SoftwareAuthenticator.json(response))
        #expect(replay.status == 400 && replay.errorCode == "invalid_ticket", "\(replay.rawBody)")

        // A registration's ceremony for a sign-in, and a sign-in's for a registration.
        let registration = try w.registerBegin(ada)
        let crossed = try phone.assert(
            challenge: registration.challenge, rpId: PasskeyWorld.rpId, origin: PasskeyWorld.origin, userHandle: handle)
        #expect(try w.signInFinish(registration, SoftwareAuthenticator.json(crossed)).errorCode == "invalid_ticket")
        let other = try SoftwareAuthenticator()
        let signIn = try w.signInBegin()
        let made = try other.register(challenge: signIn.challenge, rpId: PasskeyWorld.rpId, origin: PasskeyWorld.origin)
        #expect(try w.registerFinish(ada, signIn, SoftwareAuthenticator.json(made)).errorCode == "invalid_ticket")

        // Another session of the same account cannot finish a registration begun by the first.
        let second = try w.person("ada-ceremony")
        #expect(second.accountId == ada.accountId)
        let begunByFirst = try w.registerBegin(ada)
        let fresh = try other.register(
            challenge: begunByFirst.challenge, rpId: PasskeyWorld.rpId, origin: PasskeyWorld.origin)
        let stolen = try w.registerFinish(second, begunByFirst, SoftwareAuthenticator.json(fresh))
        #expect(stolen.status == 400 && stolen.errorCode == "invalid_ticket", "\(stolen.rawBody)")
        // ...and the first session still can (the refusal changed nothing).
        #expect(try w.registerFinish(ada, begunByFirst, SoftwareAuthenticator.json(fresh)).status == 200)

        // Expired: a ceremony past its five minutes (moved there in the store, not waited for).
        let late = try w.signInBegin()
        let row = try #require(try w.h.database().query(
            "SELECT expires_at - since FROM ephemeral WHERE kind = ?", [.integer(Ephemeral.Kind.passkeyCeremony.rawValue)]
        ).first)
        #expect(row.int(0) == 300)
        try w.h.database().run(
            "UPDATE ephemeral SET expires_at = expires_at - 301 WHERE kind = ?", [.integer(Ephemeral.Kind.passkeyCeremony.rawValue)])
        let lateResponse = try phone.assert(
            challenge: late.challenge, rpId: PasskeyWorld.rpId, origin: PasskeyWorld.origin, userHandle: handle,
            spoil: { var s = SoftwareAuthenticator.Spoil(); s.signCount = 9; return s }())
        #expect(try w.signInFinish(late, SoftwareAuthenticator.json(lateResponse)).errorCode == "invalid_ticket")
        // Unknown and malformed ids.
        for id in ["", "not-a-ceremony", Base64URL.encode([UInt8](repeating: 0, count: 32))] {
            let answer = try w.signIn([("action", "finish"), ("ceremonyId", .string(id)),
                                       ("credential", SoftwareAuthenticator.json(lateResponse))])
            #expect(answer.status == 400, "\(id): \(answer.rawBody)")
        }
        // Housekeeping takes the expired ceremony.
        let db = try w.h.database()
        try Housekeeping.prune(db, now: Clock.now())
        #expect(try w.h.count(.passkeyCeremony) == 0)
    }

    @Test func hostileCBORIsMalformed() throws {
        let w = try PasskeyWorld()
        let ada = try w.person("ada-cbor")
        let phone = try SoftwareAuthenticator()
        let hostile: [(String, [UInt8])] = [
            ("deep nesting", [UInt8](repeating: 0x81, count: 4000) + [0x00]),
            ("huge declared length", [0x5B, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            ("huge map", [0xBB, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            ("tags", [UInt8](repeating: 0xC6, count: 3000) + [0x00]),
            ("indefinite map", [0xBF, 0x63] + Array("fmt".utf8) + [0x64] + Array("none".utf8) + [0xFF]),
            ("float", [0xFB, 0, 0, 0, 0, 0, 0, 0, 0]),
            ("not CBOR", Array("{\"fmt\":\"none\"}".utf8)),
        ]
        _ = try w.registerBegin(ada)  // the account's user handle is made at its first begin
        for (name, bytes) in hostile {
            let before = try w.snapshot()
            let begun = try w.registerBegin(ada)
            var response = try phone.register(challenge: begun.challenge, rpId: PasskeyWorld.rpId, origin: PasskeyWorld.origin)
            response.attestationObject = bytes
            let answer = try w.registerFinish(ada, begun, SoftwareAuthenticator.json(response))
            #expect(answer.status == 400 && answer.errorCode == "invalid_request", "\(name): \(answer.rawBody)")
            #expect(answer.exitStatus == 0)
            #expect(try w.snapshot() == before, "\(name) changed something, or left its ceremony")
        }
        // Malformed JSON around it: bad base64url, a missing credential.
        let begun = try w.registerBegin(ada)
        for credential: JSONValue in [
            .null, "text", .object([("type", "public-key")]),
            .object([("id", "a+b/"), ("rawId", "a+b/"), ("type", "public-key"), ("response", .object([]))]),
        ] {
            let answer = try w.registerFinish(ada, begun, credential)
            #expect(answer.status == 400 && answer.errorCode == "invalid_request", "\(credential): \(answer.rawBody)")
        }
        #expect(try w.passkey([("action", "register_finish"), ("ceremonyId", .string(begun.ceremonyId))], ada).status == 400)
    }

    @Test func aPasskeyIsAddedOnlyFromASessionToAProvenOrEmptyEmail() throws {
        let w = try PasskeyWorld()
        // No session.
        #expect(try w.passkey([("action", "register_begin")], nil).status == 401)
        #expect(try w.passkey([("action", "list")], nil).status == 401)
        // An email typed and never proven.
        let typed = try w.h.register("typed@example.org", "a long enough password")
        let token = try #require(typed.body["sessionToken"]?.stringValue, "\(typed.rawBody)")
        let person = PasskeyWorld.Person(accountId: try #require(typed.body["accountId"]?.stringValue), session: token)
        let refused = try w.passkey([("action", "register_begin")], person)
        #expect(refused.status == 403 && refused.errorCode == "email_not_verified", "\(refused.rawBody)")
        #expect(try w.h.count(.passkeyCeremony) == 0)
        // No email at all (a Google token without one).
        let bare = try w.h.signInGoogle(try w.h.google.token(sub: "g-no-email", email: nil))
        let noEmail = PasskeyWorld.Person(
            accountId: try #require(bare.body["accountId"]?.stringValue),
            session: try #require(bare.body["sessionToken"]?.stringValue))
        let begun = try w.registerBegin(noEmail)
        #expect(begun.options["user"]?["name"] == "Example")
    }

    @Test func aCredentialRegisteredAnywhereIsTaken() throws {
        let w = try PasskeyWorld()
        let ada = try w.person("ada-taken")
        let bob = try w.person("bob-taken")
        let phone = try SoftwareAuthenticator()
        _ = try w.register(phone, for: ada)
        let begun = try w.registerBegin(bob)
        let afterBegin = try w.snapshot()
        let response = try phone.register(challenge: begun.challenge, rpId: PasskeyWorld.rpId, origin: PasskeyWorld.origin)
        let answer = try w.registerFinish(bob, begun, SoftwareAuthenticator.json(response))
        #expect(answer.status == 409 && answer.errorCode == "credential_taken", "\(answer.rawBody)")
        #expect(try w.snapshot() == afterBegin)
    }

    @Test func deletingAPasskeyEndsNoSessionAndAnotherAccountsIsNotFound() throws {
        let w = try PasskeyWorld()
        let ada = try w.person("ada-delete")
        let bob = try w.person("bob-delete")
        let phone = try SoftwareAuthenticator()
        let (passkeyId, handle) = try w.register(phone, for: ada)
        let viaPasskey = try w.signInWith(phone, userHandle: handle)
        #expect(viaPasskey.status == 200)
        let sessionsBefore = try w.h.count("sessions")
        let foreign = try w.passkey([("action", "delete"), ("passkeyId", .string(passkeyId))], bob)
        #expect(foreign.status == 404 && foreign.errorCode == "not_found")
        #expect(try w.passkey([("action", "delete"), ("passkeyId", "%%%")], ada).status == 404)
        #expect(try w.h.count("passkeys") == 1)
        let deleted = try w.passkey([("action", "delete"), ("passkeyId", .string(passkeyId))], ada)
        #expect(deleted.status == 200 && deleted.body["deleted"] == true, "\(deleted.rawBody)")
        #expect(try w.h.count("passkeys") == 0)
        #expect(try w.h.count("sessions") == sessionsBefore)
        // Rule 18: the person is told, with the "This wasn't me" link.
        let told = try #require(w.h.smtp.messages.last { $0.recipients == ["ada-delete@gmail.com"] })
        #expect(told.data.contains("Subject: A passkey was removed from your account"), "\(told.data)")
        #expect(NoticeLinkTests.onlyLinkIsNotMe(told.data), "\(told.data)")
        // The session the passkey made still checks; the passkey no longer signs in.
        let token = try #require(viaPasskey.body["sessionToken"]?.stringValue)
        #expect(try w.h.run("session", body: [], method: "GET", contentType: nil, authorization: "Bearer \(token)").status == 200)
        #expect(try w.signInWith(phone, userHandle: handle).status == 401)
        #expect(try w.passkey([("action", "delete"), ("passkeyId", .string(passkeyId))], ada).status == 404)
    }

    @Test func aCounterThatGoesBackAndBackupFlagsThatChangeAreCountedNeverRefused() throws {
        let w = try PasskeyWorld()
        let ada = try w.person("ada-counter")
        let phone = try SoftwareAuthenticator()
        let (_, handle) = try w.register(phone, for: ada)
        var up = SoftwareAuthenticator.Spoil()
        up.signCount = 10
        #expect(try w.signInWith(phone, userHandle: handle, spoil: up).status == 200)
        var back = SoftwareAuthenticator.Spoil()
        back.signCount = 3
        back.removeFlags = [.backupState]
        let answer = try w.signInWith(phone, userHandle: handle, spoil: back)
        #expect(answer.status == 200, "\(answer.rawBody)")
        let row = try #require(try w.h.database().query(
            "SELECT sign_count, counter_regressions, backup_changes, backup_state FROM passkeys").first)
        #expect(row.int(0) == 3 && row.int(1) == 1 && row.int(2) == 1 && row.int(3) == 0)
        // Synced passkeys send 0 every time: no signal.
        let zero = try w.signInWith(phone, userHandle: handle)
        #expect(zero.status == 200)
    }

    @Test func aDisabledAccountSignsInWithNothingChanged() throws {
        let w = try PasskeyWorld()
        let ada = try w.person("ada-disabled")
        let phone = try SoftwareAuthenticator()
        let (_, handle) = try w.register(phone, for: ada)
        // Disabling removes the passkeys its ended sessions added (`PasskeyTakeback`), but never
        // the last way in: an account whose only way in is its passkey keeps it.
        #expect(try w.h.admin(["unlink", ada.accountId, "google"]).status == 0)
        #expect(try w.h.admin(["disable", ada.accountId]).status == 0)
        #expect(try w.h.count("passkeys") == 1)
        let begun = try w.signInBegin()
        let afterBegin = try w.snapshot()
        let response = try phone.assert(
            challenge: begun.challenge, rpId: PasskeyWorld.rpId, origin: PasskeyWorld.origin, userHandle: handle)
        let answer = try w.signInFinish(begun, SoftwareAuthenticator.json(response))
        #expect(answer.status == 403 && answer.errorCode == "account_disabled", "\(answer.rawBody)")
        #expect(try w.snapshot() == afterBegin)
    }

    @Test func deletingTheAccountDeletesItsPasskeysAndUnlinkCountsThem() throws {
        let w = try PasskeyWorld()
        let ada = try w.person("ada-gone")
        let phone = try SoftwareAuthenticator()
        let (_, handle) = try w.register(phone, for: ada)
        // With a passkey, Google is no longer the last way in.
        let unlinked = try w.h.admin(["unlink", ada.accountId, "google"])
        #expect(unlinked.status == 0, "\(unlinked.stdout) \(unlinked.stderr)")
        #expect(unlinked.json["providers"] == .array(["passkey"]))
        let session = try w.signInWith(phone, userHandle: handle)
        #expect(session.body["providers"] == .array(["passkey"]))
        let token = try #require(session.body["sessionToken"]?.stringValue)
        let gone = try w.h.run("delete-account", json: "{}", authorization: "Bearer \(token)")
        #expect(gone.status == 200, "\(gone.rawBody)")
        #expect(try w.h.count("passkeys") == 0)
        #expect(try w.h.count("accounts") == 0)
        #expect(try w.signInWith(phone, userHandle: handle).status == 401)
    }

    @Test func withoutAPasskeysSectionBothEndpointsAreNotFound() throws {
        let h = try Harness()
        let begin = try h.run("signin-passkey", json: #"{"action":"begin"}"#)
        #expect(begin.status == 404 && begin.errorCode == "not_found")
        let register = try h.run("passkey", json: #"{"action":"list"}"#)
        #expect(register.status == 404 && register.errorCode == "not_found")
        #expect(try h.count(.passkeyCeremony) == 0)
    }
}
