import Testing
@testable import Shared

@Suite struct ConfigTests {
    func parse(_ text: String) throws(ConfigError) -> Config { try Config.parse(Array(text.utf8)) }

    func expectKey(_ key: String, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try parse(text)
            Issue.record("accepted a config that should name \(key)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.key == key, "\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func minimalGoogleConfigGetsTheDefaults() throws {
        let config = try parse(#"{"databasePath": "/tmp/x.sqlite3", "google": {"clientIds": ["a"]}}"#)
        #expect(config.google?.certsUrl == "https://www.googleapis.com/oauth2/v3/certs")
        #expect(config.sessionLifetimeSeconds == 30 * 86_400)
        #expect(config.keyCache.graceSeconds == 6 * 3600)
        #expect(config.processLifetimeSeconds == 30)
        #expect(config.apple == nil && config.firebase == nil && config.mail == nil)
    }

    /// Issue 15: the optional service account is a secret file; its token URL is an outbound URL
    /// like every other (TLS, or loopback), asked only when there is a service account.
    @Test func theServiceAccountKeys() throws {
        let base = #"{"databasePath": "/tmp/x.sqlite3", "apple": {"bundleIds": ["b"]}, "firebase": {"projectId": "p", "apiKey": "k""#
        let without = try parse(base + "}}")
        #expect(without.firebase?.serviceAccountFile == nil)
        #expect(without.firebase?.oauthTokenUrl == "https://oauth2.googleapis.com/token")
        #expect(!without.outboundURLs.contains { $0.key == "firebase.oauthTokenUrl" })
        let with = try parse(base + #", "serviceAccountFile": "/etc/frontdoor/secrets/sa.json"}}"#)
        #expect(with.firebase?.serviceAccountFile == "/etc/frontdoor/secrets/sa.json")
        #expect(with.secretFiles.contains { $0.key == "firebase.serviceAccountFile" && $0.path == "/etc/frontdoor/secrets/sa.json" })
        #expect(with.outboundURLs.contains { $0.key == "firebase.oauthTokenUrl" })
        expectKey("firebase.oauthTokenUrl", base + #", "oauthTokenUrl": "http://oauth2.googleapis.com/token"}}"#)
        expectKey("firebase.serviceAccountFile", base + #", "serviceAccountFile": ""}}"#)
    }

    @Test func designBriefExampleLoads() throws {
        let config = try parse(
            """
            {
              "databasePath": "/var/lib/frontdoor/frontdoor.sqlite3",
              "google":   { "clientIds": ["x.apps.googleusercontent.com"], "certsUrl": "https://www.googleapis.com/oauth2/v3/certs" },
              "apple":    { "bundleIds": ["com.example.app"], "mode": "relay", "keysUrl": "https://appleid.apple.com/auth/keys" },
              "firebase": { "projectId": "p", "apiKey": "k", "identityToolkitUrl": "https://identitytoolkit.googleapis.com",
                            "securetokenUrl": "https://securetoken.googleapis.com",
                            "certsUrl": "https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com" },
              "mail":     { "smtpUrl": "smtps://mail.example.com", "from": "noreply@example.com" }
            }
            """)
        #expect(config.apple?.mode == .relay)
        #expect(config.firebase?.projectId == "p")
        #expect(config.mail?.smtpUrl == "smtps://mail.example.com")
    }

    @Test func errorsNameTheKey() {
        expectKey("(file)", "{")
        expectKey("(top level)", "[]")
        expectKey("databasePath", "{}")
        expectKey("databasePath", #"{"databasePath": 5}"#)
        expectKey("google.clientIds", #"{"databasePath": "x", "google": {}}"#)
        expectKey("google.clientIds", #"{"databasePath": "x", "google": {"clientIds": []}}"#)
        expectKey("google.clientIds[1]", #"{"databasePath": "x", "google": {"clientIds": ["a", 3]}}"#)
        expectKey("google.certsUrl", #"{"databasePath": "x", "google": {"clientIds": ["a"], "certsUrl": "http://example.com/k"}}"#)
        expectKey("google.certsUrl", #"{"databasePath": "x", "google": {"clientIds": ["a"], "certsUrl": "ftp://127.0.0.1/k"}}"#)
        expectKey("google.clientId", #"{"databasePath": "x", "google": {"clientId": ["a"], "clientIds": ["a"]}}"#)
        expectKey("databsePath", #"{"databasePath": "x", "databsePath": "y"}"#)
        expectKey("sessionLifetimeSeconds", #"{"databasePath": "x", "sessionLifetimeSeconds": -5}"#)
        expectKey("apple.mode", #"{"databasePath": "x", "apple": {"bundleIds": ["b"], "mode": "magic"}}"#)
        expectKey("firebase", #"{"databasePath": "x", "apple": {"bundleIds": ["b"]}}"#)
        expectKey("firebase.apiKey", #"{"databasePath": "x", "firebase": {"projectId": "p"}}"#)
        expectKey("firebase.apiKeyFile", #"{"databasePath": "x", "firebase": {"projectId": "p", "apiKeyFile": "/nonexistent/key"}}"#)
        expectKey("mail.smtpUrl", #"{"databasePath": "x", "mail": {"smtpUrl": "https://x", "from": "a@b"}}"#)
        expectKey("processLifetimeSeconds", #"{"databasePath": "x", "processLifetimeSeconds": 6, "http": {"totalTimeoutSeconds": 5}}"#)
        expectKey("sessionLifetimeSeconds", #"{"databasePath": "x", "sessionLifetimeSeconds": 0}"#)
        expectKey("sessions.renewAfterSeconds", #"{"databasePath": "x", "sessions": {"renewAfterSeconds": -1}}"#)
        expectKey("sessions.renewAfterSeconds", #"{"databasePath": "x", "sessionLifetimeSeconds": 60, "sessions": {"renewAfterSeconds": 60}}"#)
        expectKey("sessions.maxLifetimeSeconds", #"{"databasePath": "x", "sessions": {"maxLifetimeSeconds": 0}}"#)
        expectKey("sessions.maxLifetime", #"{"databasePath": "x", "sessions": {"maxLifetime": 5}}"#)
        expectKey("sessions.recentSignInSeconds", #"{"databasePath": "x", "sessions": {"recentSignInSeconds": 0}}"#)
        expectKey("sessions.recentSignInSeconds", #"{"databasePath": "x", "sessions": {"recentSignInSeconds": 34560001}}"#)
        expectKey("sessions.recentSignInSeconds", #"{"databasePath": "x", "sessions": {"recentSignInSeconds": "600"}}"#)
    }

    /// Rule 18's window: 600 s unless set; a time is recent within it, ahead of it (another box's
    /// clock) too, and 0 (a session from before the column) never.
    @Test func recentSignInKey() throws {
        #expect(try parse(#"{"databasePath": "x"}"#).sessions.recentSignInSeconds == 600)
        let set = try parse(#"{"databasePath": "x", "sessions": {"recentSignInSeconds": 60}}"#).sessions
        #expect(set.recentSignInSeconds == 60)
        #expect(set.isRecent(signedInAt: 1_000, now: 1_060) && !set.isRecent(signedInAt: 1_000, now: 1_061))
        #expect(set.isRecent(signedInAt: 1_005, now: 1_000))
        #expect(!set.isRecent(signedInAt: 0, now: 30) && !set.isRecent(signedInAt: 0, now: 1_000_000))
        #expect(!set.isRecent(signedInAt: Int64.min, now: Int64.max))
    }

    @Test func sessionKeys() throws {
        let defaults = try parse(#"{"databasePath": "x"}"#).sessions
        #expect(defaults == SessionPolicy(lifetimeSeconds: 30 * 86_400, renewAfterSeconds: 86_400, maxLifetimeSeconds: nil))
        // Any whole number of seconds from 1; a lifetime under two days renews at half of it by default.
        let short = try parse(#"{"databasePath": "x", "sessionLifetimeSeconds": 3}"#)
        #expect(short.sessionLifetimeSeconds == 3 && short.sessions.lifetimeSeconds == 3 && short.sessions.renewAfterSeconds == 1)
        #expect(try parse(#"{"databasePath": "x", "sessionLifetimeSeconds": 1}"#).sessions.renewAfterSeconds == 0)
        let set = try parse(#"{"databasePath": "x", "sessions": {"renewAfterSeconds": 0, "maxLifetimeSeconds": 604800}}"#)
        #expect(set.sessions == SessionPolicy(lifetimeSeconds: 30 * 86_400, renewAfterSeconds: 0, maxLifetimeSeconds: 604_800))
    }

    @Test func loopbackURLsAreAllowedForDevelopment() throws {
        let config = try parse(#"{"databasePath": "x", "google": {"clientIds": ["a"], "certsUrl": "http://127.0.0.1:9/certs/"}}"#)
        #expect(config.google?.certsUrl == "http://127.0.0.1:9/certs")
    }
}

@Suite struct CGIRequestTests {
    /// The byte-level reading of ASCII headers says what the Character-level one says.
    @Test func bearerTokenOnBytesMatchesTheUnicodeRules() {
        func reference(_ text: String) -> String? {
            let parts = text.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else { return nil }
            return String(parts[1])
        }
        let inputs = [
            "Bearer abc", "  bearer   abc  ", "BEARER x", "BeArEr x-y_z.~+/=", "Bearer\tabc", "Bearer a b", "Bearerx abc",
            "Bear abc", "", " ", "   ", "Bearer", "Bearer  ", " Bearer", "Basic dXNlcg==", "bearer bearer", "x Bearer abc",
            "Bearer \u{7F}", "Bearer é", "Bearer abc\u{301}", "Bearer\u{00A0}abc", "Bearer  a\u{200B}",
        ]
        for text in inputs {
            let request = CGIRequest(method: "GET", contentType: nil, contentLength: 0, authorization: text, remoteAddress: nil, body: [])
            #expect(request.bearerToken == reference(text), "\(Array(text.utf8))")
        }
    }

    @Test func bearerTokenAndContentType() {
        func request(authorization: String?, contentType: String?) -> CGIRequest {
            CGIRequest(method: "POST", contentType: contentType, contentLength: 0, authorization: authorization, remoteAddress: nil, body: [])
        }
        #expect(request(authorization: "Bearer abc", contentType: nil).bearerToken == "abc")
        #expect(request(authorization: "bearer  abc", contentType: nil).bearerToken == "abc")
        #expect(request(authorization: "Bearer", contentType: nil).bearerToken == nil)
        #expect(request(authorization: "Basic abc", contentType: nil).bearerToken == nil)
        #expect(request(authorization: "Bearer a b", contentType: nil).bearerToken == nil)
        #expect(request(authorization: nil, contentType: "Application/JSON; charset=utf-8").hasJSONContentType)
        #expect(!request(authorization: nil, contentType: "application/jsonx").hasJSONContentType)
        #expect(!request(authorization: nil, contentType: nil).hasJSONContentType)
    }

    @Test func contentLengthMustBeANumber() {
        for bad in ["-1", "abc", "1e3", " 5"] {
            #expect(throws: FrontdoorError.invalidRequest("")) {
                try CGIRequest.read(environment: ["REQUEST_METHOD": "POST", "CONTENT_LENGTH": bad], input: -1)
            }
        }
    }

    @Test func oversizedBodyIsRefusedBeforeReading() {
        #expect(throws: FrontdoorError(.payloadTooLarge, "")) {
            try CGIRequest.read(environment: ["REQUEST_METHOD": "POST", "CONTENT_LENGTH": "16385"], input: -1)
        }
    }

    @Test func errorsBecomeTheContractsBody() {
        let response = CGIResponse(error: FrontdoorError(.rateLimited, "Slow down.", retryAfterSeconds: 30))
        #expect(response.status == 429)
        #expect(response.serialized.hasPrefix("Status: 429 Too Many Requests\r\n"))
        #expect(response.serialized.contains("Retry-After: 30\r\n"))
        #expect(response.serialized.contains("Cache-Control: no-store\r\n"))
        #expect(response.body == .object([("error", "rate_limited"), ("message", "Slow down.")]))
    }

    @Test func everyCodeHasItsStatus() {
        let expected: [(FrontdoorError.Code, Int)] = [
            (.invalidRequest, 400), (.invalidTicket, 400), (.invalidToken, 401), (.invalidCredentials, 401),
            (.invalidCode, 401), (.unauthorized, 401), (.emailNotVerified, 403), (.methodNotAllowed, 405),
            (.emailTaken, 409), (.proofRequired, 409), (.payloadTooLarge, 413), (.unsupportedMediaType, 415),
            (.invalidEmail, 422), (.invalidPassword, 422), (.rateLimited, 429), (.tooManyAttempts, 429),
            (.upstreamUnavailable, 503), (.internal, 500),
        ]
        for (code, status) in expected {
            #expect(FrontdoorError(code, "m").status == status, "\(code)")
        }
    }
}

@Suite struct SmallRulesTests {
    @Test func emailMatchKeyTrimsAndFoldsCase() {
        #expect(EmailAddress.matchKey("  Ada@Example.COM\n") == "ada@example.com")
        #expect(EmailAddress.matchKey("\u{2003}\u{C9}ve@Example.com ") == "\u{E9}ve@example.com")
    }

    /// ASCII addresses take a byte path; it must agree with the Unicode rules on every ASCII byte.
    @Test func emailMatchKeyOfASCIIAgreesWithUnicodeRules() {
        for byte in UInt8(0)..<0x80 {
            let c = String(decoding: [byte], as: UTF8.self)
            for address in [c, c + "aB" + c, " " + c + "Q@x" + c + "\t", c + c + "\u{0B}"] {
                #expect(EmailAddress.matchKey(address) == address.trimmingWhitespace().lowercased())
            }
        }
    }

    @Test func googleSpeaksForGmailAndHostedDomainsOnly() {
        #expect(GoogleSignIn.isAuthoritative(email: "a@gmail.com", hostedDomain: nil))
        #expect(GoogleSignIn.isAuthoritative(email: "A@GMAIL.COM", hostedDomain: nil))
        #expect(GoogleSignIn.isAuthoritative(email: "a@school.example", hostedDomain: "school.example"))
        #expect(!GoogleSignIn.isAuthoritative(email: "a@school.example", hostedDomain: nil))
        #expect(!GoogleSignIn.isAuthoritative(email: "a@notgmail.com.evil", hostedDomain: nil))
        #expect(!GoogleSignIn.isAuthoritative(email: "a@school.example", hostedDomain: ""))
    }

    @Test func maxAgeIsReadAndBounded() {
        #expect(KeySetCache.maxAge("public, max-age=19166, must-revalidate, no-transform") == 19166)
        #expect(KeySetCache.maxAge("max-age=1") == 60)
        #expect(KeySetCache.maxAge("max-age=99999999") == 172_800)
        #expect(KeySetCache.maxAge("no-cache") == nil)
        #expect(KeySetCache.maxAge(nil) == nil)
    }

    @Test func aNullSettingMeansItsDefault() throws {
        let config = try Config.parse(Array(#"{"databasePath": "/x", "sessionLifetimeSeconds": null, "http": {"totalTimeoutSeconds": null}}"#.utf8))
        #expect(config.sessionLifetimeSeconds == 30 * 86_400)
        #expect(config.http.totalTimeoutSeconds == 5)
    }
}

/// `Config.Scope.sessionCheck`: the session check reads its own settings and no other section.
@Suite struct ConfigScopeTests {
    func parse(_ text: String, _ scope: Config.Scope) throws(ConfigError) -> Config {
        try Config.parse(Array(text.utf8), scope: scope)
    }

    func refusedKey(_ text: String, _ scope: Config.Scope) -> String? {
        do {
            _ = try parse(text, scope)
            return nil
        } catch {
            return error.key
        }
    }

    /// Sections the check leaves unread: a broken one, and a secret file nobody can read.
    static let brokenServices = #"""
        "google": {"clientIds": []}, "firebase": {"projectId": "p", "apiKeyFile": "/nonexistent/api-key"},
        "mail": {"smtpUrl": "http://mail.example.com"}, "limits": {"loginFailuresPerEmail": 0},
        "http": {"totalTimeoutSeconds": 1000}, "keyCache": {"nonsense": 1}, "password": {"memoryKiB": 1},
        "deletion": {"revocationBudgetSeconds": 0}, "apple": {"mode": "neither"}
        """#

    @Test func theCheckReadsItsSettingsAndLeavesTheOtherSectionsUnread() throws {
        let text = #"{"databasePath": "/tmp/x.sqlite3", "sessionLifetimeSeconds": 600, "processLifetimeSeconds": 20, "sessions": {"renewAfterSeconds": 60, "maxLifetimeSeconds": 900}, "#
            + Self.brokenServices + "}"
        let config = try parse(text, .sessionCheck)
        #expect(config.databasePath == "/tmp/x.sqlite3")
        #expect(config.sessions == SessionPolicy(lifetimeSeconds: 600, renewAfterSeconds: 60, maxLifetimeSeconds: 900))
        #expect(config.processLifetimeSeconds == 20)
        #expect(config.google == nil && config.firebase == nil && config.mail == nil && config.apple == nil)
        #expect(config.secretFiles.isEmpty, "a secret file was named: \(config.secretFiles)")
        // Every other program refuses the same file, at the first broken section it reads.
        #expect(refusedKey(text, .everything) == "http.totalTimeoutSeconds")
    }

    @Test func theCheckStillRefusesWhatItReads() {
        for (text, key) in [
            (#"{"sessionLifetimeSeconds": 600}"#, "databasePath"),
            (#"{"databasePath": "/tmp/x.sqlite3", "sessionLifetimeSeconds": 0}"#, "sessionLifetimeSeconds"),
            (#"{"databasePath": "/tmp/x.sqlite3", "sessions": {"renewAfterSeconds": -1}}"#, "sessions.renewAfterSeconds"),
            (#"{"databasePath": "/tmp/x.sqlite3", "sessions": {"renewEvery": 5}}"#, "sessions.renewEvery"),
            (#"{"databasePath": "/tmp/x.sqlite3", "sesions": {}}"#, "sesions"),
            (#"{"databasePath": "/tmp/x.sqlite3", "events": {"url": "http://app.example.com/events"}}"#, "events.url"),
        ] {
            #expect(refusedKey(text, .sessionCheck) == key, "\(text)")
            #expect(refusedKey(text, .everything) == key, "\(text)")
        }
    }

    /// The check carries due events like every request, so it reads the receiver and its secret.
    @Test func theCheckReadsTheEventReceiver() throws {
        let secret = EventConfigTests.goodSecret
        try EventConfigTests().withSecret(secret + "\n") { path in
            let text = #"{"databasePath": "/tmp/x.sqlite3", "events": {"url": "http://127.0.0.1:9/events", "secretFile": ""#
                + path + #""}, "google": {"clientIds": []}}"#
            let config = try parse(text, .sessionCheck)
            #expect(config.events?.url == "http://127.0.0.1:9/events")
            #expect(config.events?.secret == Array(secret.utf8))
        }
    }
}
