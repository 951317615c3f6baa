#if canImport(Glibc)
import Glibc
#endif
import Shared

/// What `frontdoor-dev` serves: the fakes of the tests (Google, Apple, Firebase) on one port, with token
/// pages, a mail sink whose messages (with their codes) go to the log and to `/mail/last`, and,
/// given the events secret, the app's receiver of account events at `/events` (each one checked
/// and logged; the latest at `/events/last`).
public enum DevProvider {
    public static let smtpPort = 8025
    /// The development stack's passkeys: its RP ID, and the apps of the phone at `/phone/*`.
    public static let passkeyRpId = "localhost"
    public static let passkeyIOSAppId = "DEVTEAM001.dev.frontdoor.app"
    public static let passkeyAndroidPackage = "dev.frontdoor.app"
    /// A made-up signing key's SHA-256: the development Android app's origin and assetlinks line.
    public static let passkeyAndroidKey = SHA256.hash(Array("frontdoor development Android signing key".utf8))
    /// The development web's Services ID: the audience of the Apple stand-in's tokens (rule 21).
    public static let appleServicesId = "com.example.frontdoor.web"

    static func devPhone() -> DevPhone {
        DevPhone(rpId: passkeyRpId, origins: [
            .ios: "https://" + passkeyRpId, .android: PasskeyOrigins.android(certificateSHA256: passkeyAndroidKey),
        ])
    }

    public static func serve(port: Int, smtpPort: Int = smtpPort, eventsSecretFile: String? = nil) throws -> Never {
        let receiver = try eventsSecretFile.map { file in
            try FakeEventReceiver(secret: try DevEventsSecret.ensure(file), port: port, serve: false) { delivery in
                FileIO.log("frontdoor-dev: event " + FakeEventReceiver.summary(delivery).serialized)
            }
        }
        // Every key first: the port answers only once the token pages below are in place (almost:
        // callers wait for /google/token, not just for the port).
        let apple = try FakeApple(keys: [try SigningKey.rsa(kid: "dev-apple-\(Clock.now())")], serve: false)
        let firebase = try FakeFirebase(
            firebaseKeys: [try SigningKey.rsa(kid: "dev-firebase-\(Clock.now())")], appleKeys: { apple.keys },
            bundleIds: [FakeApple.bundleId, appleServicesId], serve: false)
        let sink = try SMTPSink(port: smtpPort) { message in
            FileIO.log("frontdoor-dev: mail to \(message.recipients.joined(separator: ", ")): code \(message.code ?? "-")")
        }
        let google = try FakeGoogle(keys: [try SigningKey.rsa(kid: "dev-\(Clock.now())")], port: port)
        let pwned = try FakePwnedPasswords(breached: breachedPasswords, serve: false)
        let phone = devPhone()
        google.server.setHandler { request in
            let (path, query) = splitQuery(request.path)
            if let answer = apple.respond(to: request) ?? firebase.respond(to: request) { return answer }
            if let answer = pwned.respond(to: request, under: pwnedPath) { return answer }
            if let answer = receiver?.respond(to: request) { return answer }
            if path.hasPrefix("/phone/") { return .respond(phoneAnswer(phone, path: path, query: query, body: request.body)) }
            if path.hasPrefix(KitStandIns.prefix) {
                return .respond(KitStandIns.answer(path: path, query: query, origin: google.server.baseURL, apple: apple, google: google))
            }
            switch path {
            case "/mail/code":
                // The code of the latest mail that carries one, for scripts (make run's tours): a
                // notice sent after its answer may have come since.
                guard let code = sink.messages.last(where: { $0.code != nil })?.code else {
                    return .respond(.json(#"{"error":"no mail with a code yet"}"#, status: 404))
                }
                return .respond(LoopbackHTTPServer.Response(
                    status: 200, headers: [("Content-Type", "text/plain")], body: Array(code.utf8)))
            case "/mail/list":
                // One line a mail, oldest first: its recipients and subject (the settings tour's notices).
                let lines = sink.messages.map { message in
                    let subject = message.data.split(separator: "\r\n").first { $0.hasPrefix("Subject: ") }
                        .map { String($0.dropFirst("Subject: ".count)) } ?? ""
                    return message.recipients.joined(separator: ", ") + " " + subject + "\n"
                }
                return .respond(LoopbackHTTPServer.Response(
                    status: 200, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(lines.joined().utf8)))
            case "/mail/last":
                guard let last = sink.messages.last else {
                    return .respond(.json(#"{"error":"no mail yet"}"#, status: 404))
                }
                return .respond(LoopbackHTTPServer.Response(
                    status: 200, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(last.data.utf8)))
            case "/apple/token":
                guard let sub = query["sub"], !sub.isEmpty, let nonce = query["nonce"], !nonce.isEmpty else {
                    return .respond(.json(#"{"error":"sub and nonce (the raw nonce) are required"}"#, status: 400))
                }
                let verified: JSONValue = query["email_verified"].map { .string($0) } ?? "true"
                guard let token = try? apple.token(
                    sub: sub, rawNonce: nonce, email: query["email"], emailVerified: verified)
                else { return .respond(.json(#"{"error":"minting failed"}"#, status: 500)) }
                return .respond(LoopbackHTTPServer.Response(
                    status: 200, headers: [("Content-Type", "text/plain")], body: Array(token.utf8)))
            case "/apple/authorization":
                // What Apple's sheet hands the phone for a deletion that revokes (rule 6): a fresh
                // authorization code and an identity token whose c_hash is that code's.
                guard let sub = query["sub"], !sub.isEmpty, let nonce = query["nonce"], !nonce.isEmpty else {
                    return .respond(.json(#"{"error":"sub and nonce (the raw nonce) are required"}"#, status: 400))
                }
                guard let code = try? apple.issueCode(sub: sub),
                    let token = try? apple.token(sub: sub, rawNonce: nonce, email: query["email"], code: code)
                else { return .respond(.json(#"{"error":"minting failed"}"#, status: 500)) }
                return .respond(.json(JSONValue.object([
                    ("identityToken", .string(token)), ("authorizationCode", .string(code)),
                ]).serialized))
            case "/apple/notification":
                // A notification as Apple posts it (docs/provider-events.md), for apple-notify.
                guard let sub = query["sub"], !sub.isEmpty else {
                    return .respond(.json(#"{"error":"sub is required"}"#, status: 400))
                }
                guard let token = try? apple.notificationToken(
                    type: query["type"] ?? "consent-revoked", sub: sub, email: query["email"],
                    isPrivateEmail: query["email"] == nil ? nil : "true")
                else { return .respond(.json(#"{"error":"minting failed"}"#, status: 500)) }
                return .respond(.json(FakeApple.notificationBody(token)))
            case "/google/risc":
                // A Security Event Token as Google pushes it, for google-risc.
                guard let sub = query["sub"], !sub.isEmpty else {
                    return .respond(.json(#"{"error":"sub is required"}"#, status: 400))
                }
                let event = FakeGoogle.riscEvent(query["type"] ?? "sessions-revoked", sub: sub, reason: query["reason"])
                guard let token = try? google.securityEvent([event])
                else { return .respond(.json(#"{"error":"minting failed"}"#, status: 500)) }
                return .respond(LoopbackHTTPServer.Response(
                    status: 200, headers: [("Content-Type", "application/secevent+jwt")], body: Array(token.utf8)))
            case "/dev/stats":
                // For the benchmark: what the programs asked of the fakes, and over how many connections.
                let server = google.server
                // And the relay's users and revocations (the box's tests: nothing kept, one revoked).
                let body = JSONValue.object([
                    ("requests", .number(Double(server.requests.count))),
                    ("connections", .number(Double(server.connectionCount))),
                    ("relayUsers", .number(Double(firebase.userCount))),
                    ("relayUsersCreated", .number(Double(firebase.usersCreated))),
                    ("relayUsersDeleted", .number(Double(firebase.usersDeleted))),
                    ("relayRevocations", .number(Double(firebase.revocations.count))),
                ])
                return .respond(.json(body.serialized))
            case "/google/token":
                guard let sub = query["sub"], !sub.isEmpty else {
                    return .respond(.json(#"{"error":"sub is required"}"#, status: 400))
                }
                let verified: JSONValue = query["email_verified"] == "false" ? false : true
                var overrides: [(String, JSONValue)] = []
                if let hd = query["hd"] { overrides.append(("hd", .string(hd))) }
                // As Apple's page: the raw nonce in, its lowercase hex SHA-256 as the claim.
                if let nonce = query["nonce"] { overrides.append(("nonce", .string(Hex.encode(SHA256.hash(Array(nonce.utf8)))))) }
                guard let token = try? google.token(sub: sub, email: query["email"], emailVerified: verified, overrides: overrides)
                else { return .respond(.json(#"{"error":"minting failed"}"#, status: 500)) }
                return .respond(LoopbackHTTPServer.Response(status: 200, headers: [("Content-Type", "text/plain")], body: Array(token.utf8)))
            default:
                return google.respond(to: request)
            }
        }
        FileIO.log("frontdoor-dev: serving development Google, Apple and Firebase on \(google.server.baseURL), mail on \(sink.url)")
        while true { pause() }
    }

    /// `/phone/create` and `/phone/get`: a begin answer in, the finish body out (`?as=android`
    /// plays the Android app; `?name=` names the passkey, or the session).
    static func phoneAnswer(_ phone: DevPhone, path: String, query: [String: String], body: [UInt8]) -> LoopbackHTTPServer.Response {
        guard let begin = try? JSONParser.parse(body) else {
            return .json(#"{"error":"post the begin answer of passkey or signin-passkey as the body"}"#, status: 400)
        }
        let platform: DevPhone.Platform = query["as"] == "android" ? .android : .ios
        do {
            switch path {
            case "/phone/create": return .json(try phone.create(begin, platform: platform, name: query["name"]).serialized)
            case "/phone/get": return .json(try phone.get(begin, platform: platform, deviceName: query["name"]).serialized)
            default: return .json(#"{"error":"the phone has /phone/create and /phone/get"}"#, status: 404)
            }
        } catch {
            FileIO.log("frontdoor-dev: phone: \(error.message)")
            return .json(JSONValue.object([("error", .string(error.message))]).serialized, status: 422)
        }
    }

    /// The development provider makes new keys at every start, while the store may still hold the
    /// last run's key set for an hour: a query naming this start keys the cache afresh (the fakes
    /// ignore it), so a restarted `make run` never waits out the one-refetch-a-minute rule.
    static var keysQuery: String { "?start=\(Clock.now())" }

    /// `eventsSecretFile`: the events section, pointed at the development receiver (the file is
    /// made if missing).
    /// `siteURL`: where the stack serves the association files (`passkeys.siteUrl`, for
    /// `frontdoor-check`); the phone at `/phone/*` plays its iOS and Android apps.
    /// `postgres`: the store on PostgreSQL instead of the SQLite file (`make run STORE=postgres`),
    /// with the box's ledger and the audit key every box shares.
    /// What the development range service (`/pwned/range/`) says it has seen: a password that
    /// passes every check made on the box, so `make run` shows the range service refusing it.
    public static let breachedPasswords = ["a breached dev password": 42]
    static let pwnedPath = "/pwned"

    /// `passwordList`: the list of common passwords (`passwords.listFile`); nil: the programs look
    /// beside their installed selves (`make install`'s layout).
    public static func config(
        databasePath: String, providerURL: String, smtpPort: Int = smtpPort, eventsSecretFile: String? = nil,
        siteURL: String? = nil, postgres: (url: String, ledgerFile: String, auditKeyFile: String)? = nil,
        passwordList: String? = nil
    ) throws -> JSONValue {
        var members = try baseConfig(databasePath: databasePath, providerURL: providerURL, smtpPort: smtpPort)
        var passwords: [(String, JSONValue)] = [("rangeUrl", .string(providerURL + pwnedPath + FakePwnedPasswords.path))]
        if let passwordList { passwords.append(("listFile", .string(passwordList))) }
        members.append(("passwords", .object(passwords)))
        if let postgres {
            members.removeAll { $0.0 == "databasePath" }
            members.insert(("postgresUrl", .string(postgres.url)), at: 0)
            members.append(("deletion", .object([
                ("ledgerFile", .string(postgres.ledgerFile)), ("auditKeyFile", .string(postgres.auditKeyFile)),
            ])))
        }
        var passkeys: [(String, JSONValue)] = [
            ("rpId", .string(passkeyRpId)), ("rpName", "frontdoor (development)"),
            ("androidApps", .array([.object([
                ("package", .string(passkeyAndroidPackage)),
                ("certSha256", .array([.string(PasskeyOrigins.fingerprintText(passkeyAndroidKey))])),
            ])])),
            ("iosAppIds", .array([.string(passkeyIOSAppId)])),
        ]
        if let siteURL {
            passkeys.append(("siteUrl", .string(siteURL)))
            // The web kit's page as a browser opens it: on localhost, a secure context whose
            // origin fits the RP ID (127.0.0.1 would not).
            if let port = siteURL.split(separator: ":").last.flatMap({ Int($0) }) {
                passkeys.append(("webOrigins", .array([.string("http://localhost:\(port)")])))
            }
        }
        members.append(("passkeys", .object(passkeys)))
        if let eventsSecretFile {
            _ = try DevEventsSecret.ensure(eventsSecretFile)
            members.append(("events", .object([
                ("url", .string(providerURL + FakeEventReceiver.path)), ("secretFile", .string(eventsSecretFile)),
            ])))
        }
        return .object(members)
    }

    static func baseConfig(databasePath: String, providerURL: String, smtpPort: Int) throws -> [(String, JSONValue)] {
        [
            ("databasePath", .string(databasePath)),
            ("development", true),
            ("google", .object([
                ("clientIds", .array([.string(FakeGoogle.clientId)])),
                ("certsUrl", .string(providerURL + "/google/certs" + keysQuery)),
            ])),
            // The provider answers the absolute-form request a proxy is sent, as the proxy would
            // pass it on: apple-notify then checks notifications as a relay-mode box does.
            ("apple", .object([
                ("bundleIds", .array([.string(FakeApple.bundleId)])), ("servicesIds", .array([.string(appleServicesId)])),
                ("mode", "relay"),
                ("keysUrl", .string(providerURL + FakeApple.keysPath + keysQuery)), ("keysProxy", .string(providerURL)),
            ])),
            ("firebase", .object([
                ("projectId", .string(FakeFirebase.projectId)), ("apiKey", .string(FakeFirebase.apiKey)),
                ("identityToolkitUrl", .string(providerURL + "/identitytoolkit")),
                ("securetokenUrl", .string(providerURL + "/securetoken")),
                ("certsUrl", .string(providerURL + FakeFirebase.certsPath + keysQuery)),
            ])),
            ("mail", .object([("smtpUrl", .string("smtp://127.0.0.1:\(smtpPort)")), ("from", "frontdoor-dev@localhost")])),
            // The web kit's page loads the development provider's stand-ins for Apple's and Google's scripts.
            ("kit", .object([
                ("appleScriptUrl", .string(providerURL + KitStandIns.appleScriptPath)),
                ("googleScriptUrl", .string(providerURL + KitStandIns.googleScriptPath)),
            ])),
        ]
    }

    public static func usage(port: String, providerURL: String, smtpPort: Int = smtpPort) -> String {
        """
        frontdoor is running on http://127.0.0.1:\(port) (development provider on \(providerURL)).

        The sign-in page (the web kit, with the provider's stand-ins for Apple's and Google's
        scripts; open it as localhost, where passkeys work):

          http://localhost:\(port)/auth/kit/signin.html

        Sign in with a development Google token:

          TOKEN=$(curl -s '\(providerURL)/google/token?sub=dev-user-1&email=dev.user@gmail.com')
          curl -s -X POST http://127.0.0.1:\(port)/auth/signin-google \\
               -H 'Content-Type: application/json' -d "{\\"idToken\\":\\"$TOKEN\\"}"

        Sign in with a development Apple token (relayed through the development Firebase):

          NONCE=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n')
          TOKEN=$(curl -s "\(providerURL)/apple/token?sub=dev-apple-1&nonce=$NONCE&email=dev@example.org")
          curl -s -X POST http://127.0.0.1:\(port)/auth/signin-apple \\
               -H 'Content-Type: application/json' \\
               -d "{\\"identityToken\\":\\"$TOKEN\\",\\"rawNonce\\":\\"$NONCE\\",\\"givenName\\":\\"Dev\\"}"

        The app's own route behind frontdoor (nginx asks /auth/session's program, then passes the
        account on as X-Frontdoor-Account); without a session it answers 401:

          curl -s http://127.0.0.1:\(port)/app/whoami -H "Authorization: Bearer <sessionToken>"

        Am I still signed in, and what is stored about me:

          curl -s http://127.0.0.1:\(port)/auth/session -H "Authorization: Bearer <sessionToken>"
          curl -s -X POST http://127.0.0.1:\(port)/auth/account -H "Authorization: Bearer <sessionToken>" \\
               -H 'Content-Type: application/json' -d '{"action":"get"}'

        Sign out with the sessionToken it answers (body {"scope":"others"} or {"scope":"all"} for more):

          curl -s -X POST http://127.0.0.1:\(port)/auth/sign-out -H "Authorization: Bearer <sessionToken>"

        Register and log in with a password:

          curl -s -X POST http://127.0.0.1:\(port)/auth/signin-email -H 'Content-Type: application/json' \\
               -d '{"action":"register","email":"dev.user@example.org","password":"a long dev passphrase"}'
          curl -s -X POST http://127.0.0.1:\(port)/auth/signin-email -H 'Content-Type: application/json' \\
               -d '{"action":"login","email":"dev.user@example.org","password":"a long dev passphrase"}'

        A password attackers would try first is refused with the reason (422 invalid_password):
        "password1234567" is on the shipped list once its sequence is taken out ("common"), and
        "a breached dev password" is one the development range service says it has seen ("common").

        Mail (codes for verify-email) goes to a sink on 127.0.0.1:\(smtpPort); read the latest with

          curl -s \(providerURL)/mail/last

        or find "mail to … code NNNNNN" lines in var/dev-provider.log.

        Account events (created, linked, email verified, deleted) go to the development receiver,
        which checks each signature; the latest one:

          curl -s \(providerURL)/events/last

        and one "frontdoor-dev: event …" line each in var/dev-provider.log. Make it fail to watch the
        retries: curl -s '\(providerURL)/events/mode?set=500' (or hang, refuse, accept).

        \(settingsTour(port: port, providerURL: providerURL))
        \(passkeyTour(port: port, providerURL: providerURL))
        Delete the account (no fresh Apple authorization: appleRevocation is not_requested or not_applicable):

          curl -s -X POST http://127.0.0.1:\(port)/auth/delete-account -H "Authorization: Bearer <sessionToken>"

        Logs: var/nginx-error.log (one line per request), var/dev-provider.log. Stop with: make stop
        """
    }

    /// The passkey part of the usage text: every indented line is a command, run in order by
    /// `PasskeyTourTests` against a stack, so the tour stays true.
    static func passkeyTour(port: String, providerURL: String) -> String {
        let auth = "http://127.0.0.1:\(port)/auth"
        let json = "-H 'Content-Type: application/json'"
        let bearer = "-H \"Authorization: Bearer $SESSION\""
        func field(_ name: String) -> String { "sed -n 's/.*\"\(name)\":\"\\([^\"]*\\)\".*/\\1/p'" }
        return """
            Passkey tour (RP ID \(passkeyRpId)). The development provider plays the phone: /phone/create and
            /phone/get take the begin answer as the app would, make the passkey or sign with it as the
            phone's authenticator does (?as=android for the Android app's origin), and answer the
            finish body the app posts. A passkey needs a proven email, so sign in by email first:

              SESSION=$(curl -s -X POST \(auth)/signin-email \(json) \\
                   -d '{"action":"register","email":"passkey.tour@example.org","password":"a long dev passphrase"}' | \(field("sessionToken")))
              TICKET=$(curl -s -X POST \(auth)/verify-email \(json) \(bearer) \\
                   -d '{"action":"verify_own_email"}' | \(field("ticket")))
              curl -s -X POST \(auth)/verify-email \(json) -d "{\\"action\\":\\"send_code\\",\\"ticket\\":\\"$TICKET\\"}"
              CODE=$(curl -s \(providerURL)/mail/code)
              curl -s -X POST \(auth)/verify-email \(json) \\
                   -d "{\\"action\\":\\"confirm\\",\\"ticket\\":\\"$TICKET\\",\\"code\\":\\"$CODE\\"}"

            Register a passkey on the phone:

              BEGIN=$(curl -s -X POST \(auth)/passkey \(json) \(bearer) -d '{"action":"register_begin"}')
              FINISH=$(curl -s -X POST '\(providerURL)/phone/create?name=Dev%20phone' -d "$BEGIN")
              curl -s -X POST \(auth)/passkey \(json) \(bearer) -d "$FINISH"

            Sign in with it (no email, no password: the phone picks its passkey):

              BEGIN=$(curl -s -X POST \(auth)/signin-passkey \(json) -d '{"action":"begin"}')
              FINISH=$(curl -s -X POST \(providerURL)/phone/get -d "$BEGIN")
              curl -s -X POST \(auth)/signin-passkey \(json) -d "$FINISH"

            List the account's passkeys, then delete the one made above:

              curl -s -X POST \(auth)/passkey \(json) \(bearer) -d '{"action":"list"}'
              PASSKEY=$(curl -s -X POST \(auth)/passkey \(json) \(bearer) -d '{"action":"list"}' | \(field("passkeyId")))
              curl -s -X POST \(auth)/passkey \(json) \(bearer) -d "{\\"action\\":\\"delete\\",\\"passkeyId\\":\\"$PASSKEY\\"}"

            The association files the stack serves for its RP ID (frontdoor-check compares them with the config):

              curl -s http://127.0.0.1:\(port)/.well-known/apple-app-site-association
              curl -s http://127.0.0.1:\(port)/.well-known/assetlinks.json

            """
    }

    /// The settings part of the usage text (rule 18): a change of password and of address, each
    /// mail on the mail page. Every indented line is a command, run in order by `SettingsTourTests`.
    static func settingsTour(port: String, providerURL: String) -> String {
        let auth = "http://127.0.0.1:\(port)/auth"
        let json = "-H 'Content-Type: application/json'"
        let bearer = "-H \"Authorization: Bearer $SESSION\""
        func field(_ name: String) -> String { "sed -n 's/.*\"\(name)\":\"\\([^\"]*\\)\".*/\\1/p'" }
        return """
            Settings tour: change the password and the address from inside the app. Each change is
            told to the person by mail after the answer (/mail/list lists every mail's recipient and
            subject), and the address change is proven by a code to the new address. A fresh session
            is a recent sign-in; one older than sessions.recentSignInSeconds (600 s) is asked to sign
            in again first (403 reauthentication_required), which any sign-in sent with its bearer does.

              SESSION=$(curl -s -X POST \(auth)/signin-email \(json) \\
                   -d '{"action":"register","email":"settings.tour@example.org","password":"a first dev password"}' | \(field("sessionToken")))
              curl -s -w '\\n' -X POST \(auth)/account \(json) \(bearer) \\
                   -d '{"action":"change_password","currentPassword":"a first dev password","newPassword":"a new dev password"}'
              TICKET=$(curl -s -X POST \(auth)/account \(json) \(bearer) \\
                   -d '{"action":"change_email","newEmail":"settings.moved@example.org"}' | \(field("ticket")))
              CODE=$(curl -s \(providerURL)/mail/code)
              curl -s -w '\\n' -X POST \(auth)/verify-email \(json) \(bearer) \\
                   -d "{\\"action\\":\\"confirm\\",\\"ticket\\":\\"$TICKET\\",\\"code\\":\\"$CODE\\"}"
              curl -s -w '\\n' -X POST \(auth)/signin-email \(json) \\
                   -d '{"action":"login","email":"settings.moved@example.org","password":"a new dev password"}'
              curl -s \(providerURL)/mail/list

            """
    }

    static func splitQuery(_ target: String) -> (String, [String: String]) {
        let parts = target.split(separator: "?", maxSplits: 1)
        let path = parts.first.map(String.init) ?? ""
        var query: [String: String] = [:]
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                guard let name = kv.first else { continue }
                query[percentDecode(name)] = kv.count == 2 ? percentDecode(kv[1]) : ""
            }
        }
        return (path, query)
    }

    static func percentDecode(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var i = text.utf8.startIndex
        let utf8 = text.utf8
        while i < utf8.endIndex {
            let c = utf8[i]
            if c == UInt8(ascii: "%"), let h = utf8.index(i, offsetBy: 2, limitedBy: utf8.endIndex), h < utf8.endIndex,
                let v = UInt8(String(decoding: utf8[utf8.index(after: i)...h], as: UTF8.self), radix: 16)
            {
                bytes.append(v)
                i = utf8.index(after: h)
            } else {
                bytes.append(c == UInt8(ascii: "+") ? 0x20 : c)
                i = utf8.index(after: i)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
