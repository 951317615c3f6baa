import Testing
@testable import Shared

/// The `passwords` section: defaults, and every refusal naming its key.
@Suite struct PasswordConfigTests {
    func config(_ passwords: String, top: String = "") throws(ConfigError) -> Config {
        try Config.parse(Array(#"{"databasePath": "/tmp/x.sqlite3", \#(top) "passwords": \#(passwords)}"#.utf8))
    }

    func expectKey(_ key: String, _ passwords: String, top: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try config(passwords, top: top)
            Issue.record("accepted passwords \(passwords)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.key == key, "\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func defaults() throws {
        let plain = try Config.parse(Array(#"{"databasePath": "/tmp/x.sqlite3"}"#.utf8)).passwords
        #expect(plain.minLength == 15)
        #expect(plain.contextWords.isEmpty)
        #expect(plain.rangeUrl == nil)
        #expect(plain.rangeTimeoutSeconds == 2)
        #expect(plain.listFile == nil)
        let set = try config(#"""
            {"minLength": 8, "contextWords": ["FrontDoor", "Ünïcode"], "rangeUrl": "https://api.pwnedpasswords.com/range/",
             "rangeTimeoutSeconds": 0.5, "listFile": "/srv/list"}
            """#).passwords
        #expect(set.minLength == 8)
        #expect(set.contextWords == [PasswordKey.fold("frontdoor"), PasswordKey.fold("ünïcode")])
        #expect(set.rangeUrl == "https://api.pwnedpasswords.com/range")
        #expect(set.rangeTimeoutSeconds == 0.5)
        #expect(set.listPath == "/srv/list")
        #expect(try config(#"{"minLength": 64}"#).passwords.minLength == 64)
    }

    @Test func minLengthFrom8To64() {
        expectKey("passwords.minLength", #"{"minLength": 7}"#)
        expectKey("passwords.minLength", #"{"minLength": 65}"#)
        expectKey("passwords.minLength", #"{"minLength": 0}"#)
        expectKey("passwords.minLength", #"{"minLength": "15"}"#)
    }

    @Test func everyOtherRefusalNamesItsKey() {
        expectKey("passwords.contextWords", #"{"contextWords": "frontdoor"}"#)
        expectKey("passwords.contextWords[1]", #"{"contextWords": ["frontdoor", "ab"]}"#)
        expectKey("passwords.contextWords[0]", #"{"contextWords": [3]}"#)
        expectKey("passwords.rangeUrl", #"{"rangeUrl": "http://api.pwnedpasswords.com/range"}"#)
        expectKey("passwords.rangeTimeoutSeconds", #"{"rangeTimeoutSeconds": 11}"#)
        expectKey("passwords.rangeTimeoutSeconds", #"{"rangeTimeoutSeconds": 0}"#)
        expectKey("passwords.listFile", #"{"listFile": ""}"#)
        expectKey("passwords.minLenght", #"{"minLenght": 15}"#)
        expectKey("processLifetimeSeconds", #"{"rangeTimeoutSeconds": 4}"#, top: #""processLifetimeSeconds": 8,"#)
    }

    @Test func theRangeServiceIsAnOutboundURLTheSelfCheckJudges() throws {
        let urls = try config(#"{"rangeUrl": "http://127.0.0.1:9/range"}"#).outboundURLs
        #expect(urls.contains { $0.key == "passwords.rangeUrl" && $0.url == "http://127.0.0.1:9/range" })
    }
}
