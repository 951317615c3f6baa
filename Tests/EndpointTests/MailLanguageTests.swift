import DevSupport
@testable import Shared
import Testing

/// The mails come in the account's language (issue 45, item 8): the language the person used when
/// the account was made (`"language"` in the sign-up's body, as the kit sends the page's), kept
/// on the account, shown by `get` and changed by `update`. Both engines.
@Suite struct MailLanguageTests {
    /// The mail's subject, its RFC 2047 encoded words decoded.
    static func subject(_ mail: SMTPSink.Message) -> String {
        let lines = mail.data.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        guard var index = lines.firstIndex(where: { $0.hasPrefix("Subject: ") }) else { return "" }
        var header = String(lines[index].dropFirst("Subject: ".count))
        while index + 1 < lines.count, lines[index + 1].hasPrefix(" ") {
            index += 1
            header += lines[index]
        }
        guard header.hasPrefix("=?UTF-8?B?") else { return header }
        let bytes = header.split(separator: " ").compactMap { word -> [UInt8]? in
            let inner = word.dropFirst("=?UTF-8?B?".count).dropLast(2)
            return Base64URL.decode(String(inner.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 }.filter { $0 != "=" }))
        }.flatMap { $0 }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func body(_ mail: SMTPSink.Message) -> String {
        guard let blank = mail.data.firstRange(of: "\r\n\r\n") else { return "" }
        return String(mail.data[blank.upperBound...]).replacingAll("\r\n", with: "\n")
    }

    static func header(_ mail: SMTPSink.Message) -> String {
        guard let blank = mail.data.firstRange(of: "\r\n\r\n") else { return mail.data }
        return String(mail.data[..<blank.lowerBound])
    }

    /// A French registration: its reset code comes in French, and `get` says `"fr"`.
    @Test func aRegistrationsLanguageIsItsMails() throws {
        let w = try SettingsWorld()
        let made = try w.h.signInEmail([
            ("action", "register"), ("email", "amelie@example.org"), ("password", .string(SettingsWorld.password)),
            ("language", "fr-FR"),
        ])
        let amelie = try SettingsWorld.person(made)
        #expect(try w.account("get", as: amelie).body["language"] == "fr")
        _ = try w.h.verify([("action", "reset_request"), ("email", "amelie@example.org")])
        let mail = try #require(w.mails(to: "amelie@example.org").last)
        #expect(Self.subject(mail) == MailWords.fr.codeSubject, "\(mail.data)")
        #expect(Self.body(mail).contains(MailWords.fr.purposeNewPassword), "\(mail.data)")
    }

    /// Google with Arabic: the notice of a password added is Arabic, its subject encoded words and
    /// its "This wasn't me" paragraph Arabic too.
    @Test func aProviderSignUpsLanguageIsItsNotices() throws {
        let w = try SettingsWorld()
        let token = try w.h.google.token(sub: "layla", email: "layla@gmail.com")
        let made = try w.h.run("signin-google", json: JSONValue.object([("idToken", .string(token)), ("language", "ar")]).serialized)
        let layla = try SettingsWorld.person(made)
        #expect(try w.account("set_password", [("newPassword", .string(SettingsWorld.password))], as: layla).status == 200)
        let mail = try #require(w.mails(to: "layla@gmail.com").last)
        #expect(Self.subject(mail) == MailWords.ar.passwordSetSubject, "\(mail.data)")
        let text = Self.body(mail)
        #expect(text.contains(MailWords.ar.ifYou) && text.contains(Harness.pageUrl + "#not-me="), "\(text)")
        #expect(!text.contains("{"), "\(text)")
        #expect(Self.header(mail).utf8.allSatisfy { $0 < 0x80 }, "the header is ASCII")
    }

    /// `update` changes it (the next notice is German), null puts it back to English; a language
    /// without mails is English; what is not a language tag is refused with nothing changed.
    @Test func updateChangesItAndBadTagsAreRefused() throws {
        let w = try SettingsWorld()
        let ada = try w.proven("ada.lang@example.org")
        #expect(try w.account("get", as: ada).body["language"] == "en")
        #expect(try w.account("update", [("language", "de")], as: ada).body["language"] == "de")
        let changed = try w.account(
            "change_password", [("currentPassword", .string(SettingsWorld.password)),
                                ("newPassword", .string(SettingsWorld.newPassword))], as: ada)
        #expect(changed.status == 200)
        let mail = try #require(w.mails(to: "ada.lang@example.org").last)
        #expect(Self.subject(mail) == MailWords.de.passwordChangedSubject, "\(mail.data)")
        #expect(try w.account("update", [("language", "tlh")], as: ada).body["language"] == "en")
        #expect(try w.account("update", [("language", "de"), ("name", "Ada")], as: ada).body["language"] == "de")
        #expect(try w.account("update", [("language", .null)], as: ada).body["language"] == "en")
        let before = try w.snapshot()
        for bad: JSONValue in ["f", "fr_FR", "", "français", "fr--FR", 42, .array([]), .string(String(repeating: "a", count: 40))] {
            let answer = try w.account("update", [("language", bad)], as: ada)
            #expect(answer.status == 400 && answer.errorCode == "invalid_request", "\(bad): \(answer.rawBody)")
            let register = try w.h.signInEmail([
                ("action", "register"), ("email", "bad.lang@example.org"), ("password", .string(SettingsWorld.password)),
                ("language", bad),
            ])
            #expect(register.status == 400, "\(bad): \(register.rawBody)")
        }
        #expect(try w.snapshot() == before)
        // Neither member: nothing changes, and the account is answered.
        let neither = try w.account("update", [], as: ada)
        #expect(neither.status == 200 && neither.body["language"] == "en")
        #expect(try w.snapshot() == before)
    }
}
