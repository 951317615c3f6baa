#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Issue 23, item 4: `frontdoor-admin risc register|status|verify|disable` against a fake of
/// Google's RISC API, with the service account's self-signed JWT.
@Suite struct RISCAdminTests {
    static let serviceAccount = "risc-admin@frontdoor-project.iam.gserviceaccount.com"

    /// A world whose config has `google.risc`; the fake API's verification SETs are Google's.
    static func world(receiverUrl: String? = nil) throws -> (ProviderEventsWorld, FakeGoogleRISC) {
        let p = try ProviderEventsWorld()
        let google = p.google
        let api = try FakeGoogleRISC { state in
            try google.securityEvent([(RISCEvent.Kind.verification.uri, .object([("state", .string(state))]))])
        }
        let key = try TestKeys.rsa("risc-service-account-1")
        api.setServiceAccount(email: serviceAccount, key: key)
        let file = p.h.dir + "/risc-service-account.json"
        try p.h.writeText(file, try FakeFirebase.serviceAccountJSON(email: serviceAccount, key: key))
        for line in try key.privateKeyPEM().split(separator: "\n") where !line.hasPrefix("-----") {
            TestLogs.register(String(line))
        }
        var risc: [(String, JSONValue)] = [("serviceAccountFile", .string(file)), ("apiUrl", .string(api.baseURL))]
        if let receiverUrl { risc.append(("receiverUrl", .string(receiverUrl))) }
        try p.writeConfig([
            ("google", .object([
                ("clientIds", .array([.string(FakeGoogle.clientId)])), ("certsUrl", .string(google.certsURL)),
                ("risc", .object(risc)),
            ])),
        ])
        return (p, api)
    }

    @Test func registerStatusVerifyDisable() throws {
        let (p, api) = try Self.world()
        let url = "https://frontdoor.example.org/auth/google-risc"
        let registered = try p.h.admin(["risc", "register", "--url", url])
        #expect(registered.status == 0, "\(registered.stdout) \(registered.stderr)")
        #expect(registered.json["registered"] == true)
        #expect(api.stream?.url == url)
        #expect(api.stream?.eventsRequested.count == RISCEvent.Kind.allCases.count)
        #expect(api.stream?.eventsRequested.contains(RISCEvent.Kind.verification.uri) == true)
        #expect(registered.audit == [
            "frontdoor-admin action=risc-register account=- uid=\(getuid()) sudoUser=ops-person result=ok",
        ])

        let status = try p.h.admin(["risc", "status"])
        #expect(status.status == 0)
        #expect(status.json["url"]?.stringValue == url)
        #expect(status.json["status"] == "enabled")

        // verify: Google sends the verification SET; piped to google-risc, its state reaches syslog.
        let verify = try p.h.admin(["risc", "verify"])
        #expect(verify.status == 0, "\(verify.stdout)")
        let state = try #require(verify.json["state"]?.stringValue)
        let set = try #require(api.verificationSETs.last)
        #expect(try p.risc(set).status == 202)
        #expect(p.syslog.contains(try #require(verify.json["syslogLine"]?.stringValue)))
        #expect(p.syslog.contains("verification state=\(state)"))

        let disabled = try p.h.admin(["risc", "disable"])
        #expect(disabled.status == 0)
        #expect(api.stream?.status == "disabled")
        #expect(try p.h.admin(["risc", "status"]).json["status"] == "disabled")
        // Registering again turns it back on.
        #expect(try p.h.admin(["risc", "register", "--url", url]).status == 0)
        #expect(api.stream?.status == "enabled")
        #expect(api.calls.allSatisfy { $0.hasPrefix("GET /v1beta/") || $0.hasPrefix("POST /v1beta/") })
    }

    /// The 403 that names Firebase gets the plain-words hint, and exit 69.
    @Test func firebaseOwningTheStreamGetsAPlainHint() throws {
        let (p, api) = try Self.world(receiverUrl: "https://frontdoor.example.org/auth/google-risc")
        api.setRefusal(.firebaseManaged)
        let run = try p.h.admin(["risc", "register"])
        #expect(run.status == 69)
        #expect(run.stderr.contains("client ids in google.clientIds must sit in a Google Cloud project"), "\(run.stderr)")
        #expect(run.stderr.contains("Firebase Google provider is off"))
        #expect(run.audit.first?.hasSuffix("result=unavailable") == true)
        #expect(api.stream == nil)
        // Another 403 is told as Google said it, without the hint.
        api.setRefusal(.unauthorizedDomain)
        let other = try p.h.admin(["risc", "register"])
        #expect(other.status == 69)
        #expect(other.stderr.contains("authorized domains") && !other.stderr.contains("Firebase"))
    }

    @Test func badUsesAreRefused() throws {
        let (p, api) = try Self.world()
        #expect(try p.h.admin(["risc", "status"]).status == 66, "no stream yet")
        #expect(try p.h.admin(["risc", "register"]).status == 64, "no URL")
        #expect(try p.h.admin(["risc", "register", "--url", "http://frontdoor.example.org/auth/google-risc"]).status == 64)
        #expect(try p.h.admin(["risc", "enable"]).status == 64)
        #expect(try p.h.admin(["risc"]).status == 64)
        // A service account Google does not know: refused, nothing registered.
        api.setServiceAccount(email: Self.serviceAccount, key: try TestKeys.rsa("risc-someone-else"))
        #expect(try p.h.admin(["risc", "register", "--url", "https://frontdoor.example.org/auth/google-risc"]).status == 69)
        #expect(api.stream == nil)
        // Without google.risc there is nothing to register with.
        try p.writeConfig()
        #expect(try p.h.admin(["risc", "status"]).status == 70)
    }
}
