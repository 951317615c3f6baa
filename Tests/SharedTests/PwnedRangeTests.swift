import DevSupport
import Testing
@testable import Shared

/// The range service against `FakePwnedPasswords` over real sockets and libcurl: what leaves the
/// box, what counts as seen, and every way it can fail letting the password through.
@Suite struct PwnedRangeTests {
    static let breached = "a breached but long passphrase"

    func ask(_ fake: FakePwnedPasswords, _ password: String = Self.breached, timeout: Double = 2) -> PwnedRange.Answer {
        PwnedRange.ask(about: password, url: fake.url, timeoutSeconds: timeout)
    }

    @Test func sha1AsTheServiceKeysIt() throws {
        // The service's own example (troyhunt.com, "Enhancing Pwned Passwords Privacy with Padding").
        #expect(try SHA1.hexDigest(Array("P@ssw0rd".utf8)) == "21BD12DC183F740EE76F27B78EB39C8AD972A757")
    }

    @Test func onlyFiveHexDigitsLeaveWithThePaddingHeader() throws {
        let fake = try FakePwnedPasswords(breached: [Self.breached: 1234])
        #expect(ask(fake) == .seen(1234))
        let request = try #require(fake.requests.last)
        let hash = try SHA1.hexDigest(PasswordHasher.normalised(Self.breached))
        #expect(request.method == "GET")
        #expect(request.path == "/range/" + hash.prefix(5))
        #expect(request.header("Add-Padding") == "true")
        #expect(request.body.isEmpty)
        // Nothing of the password or the rest of its hash in anything that was sent.
        let sent = request.path + request.headers.map { "\($0.0): \($0.1)" }.joined()
        #expect(!sent.uppercased().contains(hash.dropFirst(5).prefix(6)))
        #expect(!sent.contains("breached"))
    }

    @Test func thePaddedAnswerIsTheRealOnesShape() throws {
        let fake = try FakePwnedPasswords(breached: [Self.breached: 3])
        let client = CurlHTTPClient()
        let padded = try client.send(HTTPRequest(url: fake.url + "/21bd1", headers: [("Add-Padding", "true")]))
        let lines = try #require(PwnedRange.parse(padded.body))
        #expect((800...1000).contains(lines.count))
        #expect(lines.allSatisfy { $0.count == 0 })
        #expect(String(decoding: padded.body, as: UTF8.self).contains("\r\n"))
        let plain = try client.send(HTTPRequest(url: fake.url + "/21BD1"))
        #expect(plain.status == 200 && plain.body.isEmpty)
        #expect(try client.send(HTTPRequest(url: fake.url + "/21BD")).status == 400)
    }

    @Test func notSeenAndPaddingCountNothing() throws {
        let fake = try FakePwnedPasswords(breached: [Self.breached: 5])
        #expect(ask(fake, "a passphrase nobody has ever used") == .notSeen)
        // The very suffix, answered with count 0 as padding is: not seen.
        try fake.setMode(.asPadding)
        #expect(ask(fake) == .notSeen)
    }

    @Test func everyFailureLetsThePasswordThrough() throws {
        let fake = try FakePwnedPasswords(breached: [Self.breached: 5])
        for mode: FakePwnedPasswords.Mode in [.status(500), .status(429), .garbage, .down] {
            try fake.setMode(mode)
            guard case .unavailable(let why) = ask(fake) else {
                Issue.record("\(mode) was taken as an answer")
                continue
            }
            #expect(!why.isEmpty)
        }
        try fake.setMode(.hang)
        let started = Clock.monotonicMillis()
        guard case .unavailable = ask(fake, timeout: 0.5) else {
            Issue.record("a hanging service was taken as an answer")
            return
        }
        // Bounded by the time-out (0.5 s), with a wide margin: never a person's wait without end.
        #expect(Clock.monotonicMillis() - started < 5_000)
        try fake.setMode(.answer)
        #expect(ask(fake) == .seen(5))
        // No route at all: a port nothing listens on.
        guard case .unavailable = PwnedRange.ask(about: Self.breached, url: "http://127.0.0.1:1/range", timeoutSeconds: 1)
        else {
            Issue.record("a closed port was taken as an answer")
            return
        }
    }

    @Test func parsingTheAnswer() {
        let suffix = String(repeating: "A", count: 35)
        #expect(PwnedRange.parse(Array("\(suffix):3\r\n\(suffix.lowercased()):0".utf8))?.map(\.count) == [3, 0])
        #expect(PwnedRange.parse(Array("\(suffix):3\n".utf8))?.first?.suffix == suffix)
        #expect(PwnedRange.parse(Array("\(suffix):".utf8)) == nil)
        #expect(PwnedRange.parse(Array("\(suffix)A:1".utf8)) == nil)
        #expect(PwnedRange.parse(Array("\(suffix.dropLast())G:1".utf8)) == nil)
        #expect(PwnedRange.parse(Array("\(suffix):1x".utf8)) == nil)
        #expect(PwnedRange.parse(Array("".utf8)) == nil)
        #expect(PwnedRange.parse(Array("<html>".utf8)) == nil)
    }

    /// The whole check: a hit refuses as `common`; an unreachable service refuses nothing.
    @Test func theCheckRefusesAHitAndNothingElse() throws {
        let fake = try FakePwnedPasswords(breached: [Self.breached: 9])
        let config = try Config.parse(Array(#"""
            {"databasePath": "/tmp/x.sqlite3", "passwords": {"listFile": "\#(PasswordListFile.built)",
             "rangeUrl": "\#(fake.url)", "rangeTimeoutSeconds": 1}}
            """#.utf8))
        do {
            try PasswordPolicy.check(Self.breached, context: .init(email: nil), config: config)
            Issue.record("a password the service has seen was accepted")
        } catch {
            #expect(error.code == .invalidPassword && error.extra.first { $0.0 == "reason" }?.1 == "common")
        }
        try PasswordPolicy.check("a passphrase nobody has ever used", context: .init(email: nil), config: config)
        try fake.setMode(.down)
        try PasswordPolicy.check(Self.breached, context: .init(email: nil), config: config)
    }
}
