import Testing
@testable import Shared

/// The keys signin-email and verify-email read: password cost, limits, mail.
extension ConfigTests {
    @Test func passwordCostAndLimitsHaveFloorsAndDefaults() throws {
        let base = #"{"databasePath": "/tmp/x.sqlite3""#
        let plain = try parse(base + "}")
        #expect(plain.passwordCost == .minimum)
        #expect(plain.limits.loginFailuresPerEmail == 10 && plain.limits.mailPerHour == 200)
        let set = try parse(base + #", "password": {"memoryKiB": 65536, "iterations": 3}, "limits": {"mailPerHour": 7}}"#)
        #expect(set.passwordCost == Config.PasswordCost(memoryKiB: 65536, iterations: 3))
        #expect(set.limits.mailPerHour == 7 && set.limits.mailIntervalSeconds == 60)
        expectKey("password.memoryKiB", base + #", "password": {"memoryKiB": 8192}}"#)
        expectKey("password.iterations", base + #", "password": {"iterations": 1}}"#)
        expectKey("limits.loginFailures", base + #", "limits": {"loginFailures": 3}}"#)
    }

    @Test func mailSectionIsChecked() throws {
        let base = #"{"databasePath": "/tmp/x.sqlite3", "mail": "#
        let ok = try parse(base + #"{"smtpUrl": "smtp://127.0.0.1:2525", "from": "a@b.c"}}"#)
        #expect(ok.mail?.timeoutSeconds == 10)
        expectKey("mail.smtpUrl", base + #"{"smtpUrl": "https://mail.example.com", "from": "a@b.c"}}"#)
        expectKey("mail.from", base + #"{"smtpUrl": "smtps://mail.example.com", "from": "Me <a@b.c>"}}"#)
        expectKey("processLifetimeSeconds",
                  #"{"databasePath": "/x", "processLifetimeSeconds": 10, "mail": {"smtpUrl": "smtps://m.example", "#
                      + #""from": "a@b.c", "timeoutSeconds": 6}}"#)
    }

    /// The page a notice's "This wasn't me" links to (rule 18): given, or the kit under
    /// `passkeys.siteUrl`, or none; and how long its links work.
    @Test func theNoticesPageIsCheckedAndDerived() throws {
        let mail = #""mail": {"smtpUrl": "smtps://m.example", "from": "a@b.c""#
        let base = #"{"databasePath": "/tmp/x.sqlite3", "# + mail
        let given = try parse(base + #", "pageUrl": "https://example.com/auth/kit/signin.html", "noticeLinkSeconds": 3600}}"#)
        #expect(given.noticePageUrl == "https://example.com/auth/kit/signin.html" && given.mail?.noticeLinkSeconds == 3600)
        let none = try parse(base + "}}")
        #expect(none.noticePageUrl == nil && none.mail?.noticeLinkSeconds == 14 * 86_400)
        #expect(SelfCheck.noticeLinkFinding(none)?.ok == false)
        let derived = try parse(base + #"}, "passkeys": {"rpId": "example.com"}}"#)
        #expect(derived.noticePageUrl == "https://example.com/auth/kit/")
        #expect(SelfCheck.noticeLinkFinding(derived)?.ok == true)
        for bad in ["http://example.com/auth/kit/", "https://example.com/auth/kit/#x", "ftp://example.com/", "https://ex ample.com/"] {
            expectKey("mail.pageUrl", base + #", "pageUrl": ""# + bad + #""}}"#)
        }
        expectKey("mail.noticeLinkSeconds", base + #", "noticeLinkSeconds": 60}}"#)
    }
}
