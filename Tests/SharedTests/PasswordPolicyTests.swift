#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Testing
@testable import Shared

/// Rule 19 on the box: the length in code points after NFC, the shipped list (as `make deps`
/// built it), runs and context words covering more than half, what is left on the list.
@Suite struct PasswordPolicyTests {
    static let list: PasswordList? = try? PasswordList(path: PasswordListFile.built)
    static let rules = Config.Passwords()

    func verdict(
        _ password: String, email: String? = nil, rules: Config.Passwords = Self.rules,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> PasswordPolicy.Reason? {
        let list = try #require(Self.list, "make deps builds \(PasswordListFile.built)", sourceLocation: sourceLocation)
        return PasswordPolicy.verdict(password, context: .init(email: email), rules: rules, list: list)
    }

    @Test func lengthIsCodePointsAfterNFCWithCombiningMarks() throws {
        // 15 code points in NFC; typed with ü and ä decomposed it is 18 code points and more bytes.
        let fifteen = "grüne äpfel süß"
        let decomposed = "gru\u{308}ne a\u{308}pfel su\u{308}ß"
        #expect(decomposed.unicodeScalars.count == 18 && EmailAddress.nfc(decomposed).unicodeScalars.count == 15)
        #expect(try verdict(fifteen) == nil)
        #expect(try verdict(decomposed) == nil)
        // 14 in NFC: too short however it was typed.
        let fourteen = "gru\u{308}ne a\u{308}pfel su\u{308}"
        #expect(fourteen.unicodeScalars.count == 17)
        #expect(try verdict(fourteen) == .tooShort)
        #expect(try verdict("grüne äpfel sü") == .tooShort)
        // A mark NFC cannot compose with its letter stays a code point of its own: 14 letters and it make 15.
        #expect(try verdict("zugvogel rauch\u{301}") == nil)
        #expect(try verdict("zugvogel rauc\u{301}") == .tooShort)
    }

    @Test func theMinimumIsTheConfigsAndTheMaximum256() throws {
        #expect(try verdict("tram oak plum") == .tooShort)
        #expect(try verdict("tram oak plum", rules: Config.Passwords(minLength: 8)) == nil)
        #expect(try verdict("tramoak", rules: Config.Passwords(minLength: 8)) == .tooShort)
        var random = SplitMix(label: "theMinimumIsTheConfigsAndTheMaximum256")
        let letters = Array("bcdfghjkmnpqrstvwxz aeiou".unicodeScalars)
        let long = String(String.UnicodeScalarView((0..<256).map { _ in letters[Int(random.next() % UInt64(letters.count))] }))
        #expect(try verdict(long) == nil)
        #expect(try verdict(long + "y") == .tooLong)
        #expect(try verdict(String(repeating: "é", count: 257)) == .tooLong)
    }

    @Test func aListedPasswordInAnotherCaseIsCommon() throws {
        for password in ["acknowledgements", "ACKNOWLEDGEMENTS", "AcKnOwLeDgEmEnTs", "1Q2W3E4R5T6Y7U8I"] {
            #expect(try verdict(password) == .common, "\(password)")
        }
        let eight = Config.Passwords(minLength: 8)
        for password in ["password", "PASSWORD", "Elephant", "iloveyou", "Qwertyuiop"] {
            #expect(try verdict(password, rules: eight) != nil, "\(password)")
        }
        #expect(try verdict("PASSWORD", rules: eight) == .common)
        // A word on the list with something after it is a password of its own.
        #expect(try verdict("acknowledgements of sorts") == nil)
    }

    @Test func repeatedAndSequentialRunsAndKeyboardRows() throws {
        for password in [
            "aaaaaaaaaaaaaaa", "123456789012345", "abcdefghijklmno", "onmlkjihgfedcba", "qwertyuiopasdfg",
            "poiuytrewqlkjhg", "abababababababab", "passwordpassword", "543210987654321", "zxcvbnm,./qwerty",
            "!@#$%^&*()_+!@#", "azertyuiopqsdfgh", "ÄÄÄÄÄÄÄÄÄÄÄÄÄÄÄ",
        ] {
            #expect(try verdict(password) == .repetitive, "\(password)")
        }
    }

    @Test func moreThanHalfIsTheEdge() throws {
        // 15 code points: 8 in a run is more than half, 7 is not.
        #expect(try verdict("12345678zqjwvkx") == .repetitive)
        #expect(try verdict("1234567zqjwvkxm") == nil)
        // 16: 8 is exactly half, which is not more.
        #expect(try verdict("12345678zqjwvkxm") == nil)
        #expect(try verdict("123456789zqjwvkx") == .repetitive)
        // Runs and context words count together: neither alone is more than half here, both are.
        // The reason is whichever covers more, the words on a tie.
        #expect(try verdict("orchid1234567xq", email: "orchid@example.org") == .repetitive)
        #expect(try verdict("orchid123456xqz", email: "orchid@example.org") == .containsContext)
        #expect(try verdict("orchid xqzjwvbm", email: "orchid@example.org") == nil)
    }

    @Test func aSequenceInTheMiddleOfAPassphraseIsAllowedWhenTheRestIsLong() throws {
        #expect(try verdict("correct horse 123456789 battery staple") == nil)
        #expect(try verdict("oak 1234567890 elm") == .repetitive)
        #expect(try verdict("plum 123456789 tram") == nil)
        #expect(try verdict("sunny qwertyuiop meadow river") == nil)
    }

    @Test func contextWordsTheAddressItsLocalPartItsDomainsFirstLabel() throws {
        let email = "Ada.Lovelace@Analytical.example"
        #expect(try verdict("ada.lovelace@analytical.example", email: email) == .containsContext)
        #expect(try verdict("ADA.LOVELACE1815!", email: email) == .containsContext)
        #expect(try verdict("analytical-analytical", email: email) == .containsContext)
        #expect(try verdict("ada.lovelace loves counting engines", email: email) == nil)
        // A word shorter than 3 code points is left out: it would mark letters of any password.
        #expect(try verdict("jojo jumps over the moon", email: "jo@x.io") == nil)
        let app = Config.Passwords(contextWords: [PasswordKey.fold("FrontDoor")])
        // Repeated too, but the words alone cover more than half: the more telling reason.
        #expect(try verdict("frontdoor-frontdoor-1", rules: app) == .containsContext)
        #expect(try verdict("my frontdoor is painted green", rules: app) == nil)
        // Without an address, nothing of one is looked for.
        #expect(try verdict("ada.lovelace1815!") == nil)
    }

    @Test func whatIsLeftOfARunOrAWordIsCheckedAgainstTheList() throws {
        #expect(try verdict("password1234567") == .common)
        #expect(try verdict("PASSWORD7654321") == .common)
        #expect(try verdict("qwertyuelephant") == .common)
        #expect(try verdict("elephant-1234567") == .common)
        #expect(try verdict("ada elephant 1234", email: "ada@example.org") == .common)
        #expect(try verdict("password!1234567") == .common)
        #expect(try verdict("a.c.k.n.o.w.l.e.d.g.e.m.e.n.t.s") == .common)
        #expect(try verdict("correct horse battery staple") == nil)
        #expect(try verdict("elephant-giraffe-1234567") == nil)
    }

    /// The whole list as the build wrote it in text: every entry, folded and fingerprinted in
    /// Swift, is found, so Python's folding in scripts/password-list and Swift's agree.
    @Test func everyEntryTheBuildListedIsFound() throws {
        let list = try #require(Self.list)
        let text = try #require(FileIO.readFile(PasswordListFile.builtText, limit: 16 << 20))
        var entries = 0
        var missing: [String] = []
        for line in text.split(separator: 0x0A) {
            let entry = String(decoding: line, as: UTF8.self)
            entries += 1
            if !list.contains(PasswordKey.fold(entry)) { missing.append(entry) }
        }
        #expect(entries == list.count)
        #expect(missing.isEmpty, "not found: \(missing.prefix(10))")
        #expect(list.description.contains("Django 5.2.8") && list.description.contains("zxcvbn 4.5.0"))
        #expect(list.description.contains("wamerican 2020.12.07-2"))
        #expect(list.damage() == nil)
    }

    @Test func passwordsNotOnTheListAreNotFound() throws {
        let list = try #require(Self.list)
        var random = SplitMix(label: "passwordsNotOnTheListAreNotFound")
        let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789".unicodeScalars)
        for _ in 0..<20_000 {
            let password = (0..<20).map { _ in letters[Int(random.next() % UInt64(letters.count))] }
            #expect(!list.contains(password))
        }
    }

    @Test func aMissingOrDamagedListIsRefusedByName() throws {
        try withStoreDirectory { dir in
            #expect(throws: PasswordList.Failure.self) { try PasswordList(path: dir.path + "/none") }
            let good = try #require(FileIO.readFile(PasswordListFile.built, limit: 16 << 20))
            func write(_ bytes: [UInt8]) -> String {
                let path = dir.path + "/list"
                let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
                FileIO.writeAll(fd, bytes)
                close(fd)
                return path
            }
            for bytes in [[], Array(good.dropLast(8)), good + [0, 0, 0, 0, 0, 0, 0, 0], [0x00] + good.dropFirst()] {
                #expect(throws: PasswordList.Failure.self) { try PasswordList(path: write(Array(bytes))) }
            }
            // Two fingerprints swapped: opens (no look-up reads past the file), the full check sees it.
            var swapped = good
            let end = swapped.count
            for i in 0..<8 { swapped.swapAt(end - 16 + i, end - 8 + i) }
            let damaged = try PasswordList(path: write(swapped))
            #expect(damaged.damage() != nil)
            #expect(try PasswordList(path: write(good)).damage() == nil)
            // The endpoints: a 500 naming the key, never a password let through unchecked.
            var config = try Config.parse(Array(#"{"databasePath": "/tmp/x.sqlite3", "passwords": {"listFile": "\#(dir.path)/none"}}"#.utf8))
            do {
                try PasswordPolicy.check("a perfectly fine passphrase", context: .init(email: nil), config: config)
                Issue.record("checked without its list")
            } catch let error as FrontdoorError {
                #expect(error.code == .internal && error.status == 500)
                #expect(error.detail?.contains("passwords.listFile") == true, "\(error)")
            } catch {
                Issue.record("\(error)")
            }
            // Too short is said without the list.
            config.passwords = Config.Passwords(listFile: dir.path + "/none")
            #expect(throws: FrontdoorError(.invalidPassword, "")) {
                try PasswordPolicy.check("short", context: .init(email: nil), config: config)
            }
        }
    }

    @Test func theRefusalSaysWhyAndTheMinimum() throws {
        let error = PasswordPolicy.refusal(.tooShort, minLength: 15)
        #expect(error.status == 422 && error.code == .invalidPassword)
        #expect(error.extra.first { $0.0 == "reason" }?.1 == "too_short")
        #expect(error.extra.first { $0.0 == "minLength" }?.1 == 15)
        for reason in PasswordPolicy.Reason.allCases {
            #expect(!PasswordPolicy.refusal(reason, minLength: 8).message.isEmpty)
        }
    }

    @Test func theInstalledLayoutFindsTheList() {
        #expect(PasswordList.installedPath(executable: "/usr/local/libexec/frontdoor/signin-email")
            == "/usr/local/share/frontdoor/common-passwords")
        #expect(PasswordList.installedPath(executable: "/opt/fd/sbin/frontdoor-check") == "/opt/fd/share/frontdoor/common-passwords")
        #expect(PasswordList.installedPath(executable: "/work/.build/debug/signin-email") == nil)
    }
}

/// SplitMix64, its seed printed: `FRONTDOOR_SEED` replays a run.
struct SplitMix: RandomNumberGenerator {
    private var state: UInt64

    init(label: String) {
        let given = getenv("FRONTDOOR_SEED").flatMap { UInt64(String(cString: $0)) }
        state = given ?? UInt64(Clock.monotonicMillis() * 1000) ^ UInt64(Clock.now())
        print("\(label): seed \(state) (FRONTDOOR_SEED=\(state) replays it)")
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
