import DevSupport
import Shared
import Testing

/// Issue 19, item 6: registrations and reset requests also count by an IPv6 client's /48, so one
/// site's 65,536 /64s do not each bring the per-client allowance.
@Suite struct NetworkLimitTests {
    func register(_ h: Harness, _ email: String, from address: String) throws -> CGIAnswer {
        let body = JSONValue.object([("action", "register"), ("email", .string(email)), ("password", "a long password")])
        return try h.run("signin-email", body: Array(body.serialized.utf8), extraEnvironment: ["REMOTE_ADDR": address])
    }

    func reset(_ h: Harness, _ email: String, from address: String) throws -> CGIAnswer {
        let body = JSONValue.object([("action", "reset_request"), ("email", .string(email))])
        return try h.run("verify-email", body: Array(body.serialized.utf8), extraEnvironment: ["REMOTE_ADDR": address])
    }

    @Test func registrationsAreCountedPerSlash48() throws {
        let h = try Harness(config: [
            ("limits", .object([("registrationsPerClientPerHour", 5), ("registrationsPerNetworkPerHour", 3)]))
        ])
        for (i, address) in ["2001:db8:7:1::1", "2001:db8:7:2::1", "2001:db8:7:ffff::9"].enumerated() {
            #expect(try register(h, "net\(i)@example.org", from: address).status == 201)
        }
        // A fourth /64 of the same /48, under its own per-client allowance: refused.
        let refused = try register(h, "net3@example.org", from: "2001:db8:7:4::1")
        #expect(refused.status == 429)
        #expect(refused.errorCode == "rate_limited")
        #expect(refused.header("retry-after") != nil)
        #expect(try h.count("accounts") == 3)
        // Another /48 and an IPv4 client are counted apart.
        #expect(try register(h, "net4@example.org", from: "2001:db8:8:1::1").status == 201)
        #expect(try register(h, "net5@example.org", from: "198.51.100.1").status == 201)
    }

    @Test func resetRequestsAreCountedPerSlash48() throws {
        let h = try Harness(config: [
            ("limits", .object([("resetRequestsPerClientPerHour", 5), ("resetRequestsPerNetworkPerHour", 2)]))
        ])
        #expect(try reset(h, "r1@example.org", from: "2001:db8:9:1::1").status == 200)
        #expect(try reset(h, "r2@example.org", from: "2001:db8:9:2::1").status == 200)
        #expect(try reset(h, "r3@example.org", from: "2001:db8:9:3::1").status == 429)
        #expect(try reset(h, "r4@example.org", from: "2001:db8:a:1::1").status == 200)
        #expect(try reset(h, "r5@example.org", from: "198.51.100.2").status == 200)
    }
}
