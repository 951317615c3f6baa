import Shared
import Testing

@Suite struct PasskeyOriginsTests {
    typealias F = PasskeyFixtures
    static let playKey = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"
    static let uploadKey = "a1:b2:c3:d4:e5:f6:07:18:29:3a:4b:5c:6d:7e:8f:90:01:12:23:34:45:56:67:78:89:9a:ab:bc:cd:de:ef:f0"

    func parse(_ passkeys: String) throws(ConfigError) -> Config {
        try Config.parse(Array(#"{"databasePath": "/tmp/x.sqlite3", "passkeys": \#(passkeys)}"#.utf8))
    }

    func expectKey(_ key: String, _ passkeys: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try parse(passkeys)
            Issue.record("accepted passkeys that should name \(key)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.key == key, "\(error)", sourceLocation: sourceLocation)
        }
    }

    static let full = """
        {"rpId": "example.com", "rpName": "Example",
         "androidApps": [{"package": "com.example.app", "certSha256": ["\(playKey)", "\(uploadKey)", "\(playKey.lowercased())"]},
                         {"package": "com.example.other", "certSha256": ["\(playKey)"]}],
         "iosAppIds": ["ABCDE12345.com.example.app"]}
        """

    @Test func readsThePasskeysSection() throws {
        let passkeys = try #require(try parse(Self.full).passkeys)
        #expect(passkeys.rpId == "example.com")
        #expect(passkeys.rpName == "Example")
        #expect(passkeys.androidApps.map(\.package) == ["com.example.app", "com.example.other"])
        // The same key in either case is one key.
        #expect(passkeys.androidApps[0].certSha256.count == 2)
        #expect(passkeys.iosAppIds == ["ABCDE12345.com.example.app"])
        let minimal = try #require(try parse(#"{"rpId": "example.com"}"#).passkeys)
        #expect(minimal.rpName == "example.com" && minimal.androidApps.isEmpty && minimal.iosAppIds.isEmpty)
        #expect(try Config.parse(Array(#"{"databasePath": "/tmp/x.sqlite3"}"#.utf8)).passkeys == nil)
    }

    /// The origins: `https://<rpId>`, then each signing key's Android origin once, in order. The
    /// Play key's value is checked against an independent computation (Python: base64.urlsafe_b64encode
    /// of the fingerprint's bytes, padding removed).
    @Test func derivesTheAllowedOrigins() throws {
        let passkeys = try #require(try parse(Self.full).passkeys)
        #expect(passkeys.relyingParty.origins == [
            "https://example.com", "android:apk-key-hash:FG3pg8VzBlDY7rmVLzT8ZBagg0LmHb6oigSWsj_PROU",
            "android:apk-key-hash:obLD1OX2BxgpOktcbX6PkAESIzRFVmd4iZqrvM3e7_A",
        ])
        #expect(passkeys.relyingParty.idHash == SHA256.hash(Array("example.com".utf8)))
    }

    @Test func spellsFingerprintsAsTheConsolesDo() {
        #expect(PasskeyOrigins.fingerprint(Self.playKey)?.first == 0x14)
        #expect(PasskeyOrigins.fingerprintText(PasskeyOrigins.fingerprint(Self.uploadKey) ?? []) == Self.uploadKey.uppercased())
        for bad in ["", String(Self.playKey.dropLast(3)), Self.playKey + ":00", Self.playKey.replacing(":", with: ""),
                    Self.playKey.replacing(":", with: " "), "1:" + Self.playKey.dropFirst(3), "G4" + Self.playKey.dropFirst(2),
                    Self.playKey.replacing("14:", with: "+4:")] {
            #expect(PasskeyOrigins.fingerprint(bad) == nil, "\(bad)")
        }
    }

    @Test func refusesBadPasskeysSettings() {
        expectKey("passkeys.rpId", "{}")
        for rpId in ["https://example.com", "Example.com", "example.com:443", "example.com/", "-example.com", "example..com",
                     "exa mple.com", "example.com.", "ex_ample.com"] {
            expectKey("passkeys.rpId", #"{"rpId": "\#(rpId)"}"#)
        }
        expectKey("passkeys.rpName", #"{"rpId": "example.com", "rpName": "a\u0007"}"#)
        expectKey("passkeys.androidApps", #"{"rpId": "example.com", "androidApps": {}}"#)
        expectKey("passkeys.androidApps[0].package", #"{"rpId": "example.com", "androidApps": [{"package": "app", "certSha256": ["\#(Self.playKey)"]}]}"#)
        expectKey("passkeys.androidApps[0].certSha256", #"{"rpId": "example.com", "androidApps": [{"package": "com.example.app"}]}"#)
        expectKey("passkeys.androidApps[0].certSha256[1]",
                  #"{"rpId": "example.com", "androidApps": [{"package": "com.example.app", "certSha256": ["\#(Self.playKey)", "AB:CD"]}]}"#)
        expectKey("passkeys.androidApps[0].sha256", #"{"rpId": "example.com", "androidApps": [{"package": "com.a.b", "certSha256": ["\#(Self.playKey)"], "sha256": 1}]}"#)
        expectKey("passkeys.iosAppIds[0]", #"{"rpId": "example.com", "iosAppIds": ["com.example.app"]}"#)
        expectKey("passkeys.iosAppIds[0]", #"{"rpId": "example.com", "iosAppIds": ["abcde12345.com.example.app"]}"#)
        expectKey("passkeys.origins", #"{"rpId": "example.com", "origins": ["https://evil.example"]}"#)
    }

    /// The two association files, as the domain must serve them, from the same section.
    @Test func writesTheAssociationFiles() throws {
        let passkeys = try #require(try parse(Self.full).passkeys)
        #expect(PasskeyAssociationFiles.assetLinks(passkeys.androidApps).serialized == """
            [{"relation":["delegate_permission/common.handle_all_urls","delegate_permission/common.get_login_creds"],\
            "target":{"namespace":"android_app","package_name":"com.example.app","sha256_cert_fingerprints":\
            ["\(Self.playKey)","\(Self.uploadKey.uppercased())"]}},\
            {"relation":["delegate_permission/common.handle_all_urls","delegate_permission/common.get_login_creds"],\
            "target":{"namespace":"android_app","package_name":"com.example.other","sha256_cert_fingerprints":\
            ["\(Self.playKey)"]}}]
            """)
        #expect(PasskeyAssociationFiles.webCredentials(passkeys.iosAppIds).serialized
            == #"{"webcredentials":{"apps":["ABCDE12345.com.example.app"]}}"#)
    }
}
