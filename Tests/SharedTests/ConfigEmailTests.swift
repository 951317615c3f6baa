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
}
