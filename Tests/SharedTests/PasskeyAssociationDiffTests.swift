import Shared
import Testing

/// Issue 24: the live association files held to the `passkeys` section, and `passkeys.siteUrl`.
@Suite struct PasskeyAssociationDiffTests {
    typealias O = PasskeyOriginsTests

    func passkeys(_ section: String = O.full) throws -> Config.Passkeys {
        try #require(try Config.parse(Array(#"{"databasePath": "/tmp/x.sqlite3", "passkeys": \#(section)}"#.utf8)).passkeys)
    }

    func json(_ text: String) throws -> JSONValue { try JSONParser.parse(Array(text.utf8)) }

    @Test func theFilesWrittenFromTheConfigMatchIt() throws {
        let p = try passkeys()
        let files = PasskeyAssociationFiles.files(p)
        #expect(files.map(\.name) == ["apple-app-site-association", "assetlinks.json"])
        #expect(PasskeyAssociationDiff.apple(files[0].json, iosAppIds: p.iosAppIds).isEmpty)
        #expect(PasskeyAssociationDiff.android(files[1].json, apps: p.androidApps).isEmpty)
        // A platform without apps gets no file; a section with neither gets none.
        let android = try passkeys(#"{"rpId": "example.com", "androidApps": [{"package": "com.example.app", "certSha256": ["\#(O.playKey)"]}]}"#)
        #expect(PasskeyAssociationFiles.files(android).map(\.name) == ["assetlinks.json"])
        #expect(PasskeyAssociationFiles.files(try passkeys(#"{"rpId": "example.com"}"#)).isEmpty)
    }

    @Test func appleDifferencesAreNamed() throws {
        let ids = ["ABCDE12345.com.example.app", "ABCDE12345.com.example.other"]
        let live = try json(#"{"applinks": {"details": []}, "webcredentials": {"apps": ["ABCDE12345.com.example.app", "ZZZZZ99999.com.stale.app"]}}"#)
        #expect(PasskeyAssociationDiff.apple(live, iosAppIds: ids) == [
            "missing app ABCDE12345.com.example.other", "extra app ZZZZZ99999.com.stale.app (not in passkeys.iosAppIds)",
        ])
        #expect(PasskeyAssociationDiff.apple(try json(#"{"applinks": {}}"#), iosAppIds: ids) == ["no webcredentials.apps"])
    }

    @Test func androidDifferencesAreNamed() throws {
        let p = try passkeys()
        let upload = PasskeyOrigins.fingerprintText(try #require(PasskeyOrigins.fingerprint(O.uploadKey)))
        let rotated = String(repeating: "AB:", count: 31) + "AB"
        // The Play key only (in lower case, which is the same key), one relation, a key the config
        // lacks; the second app absent; another app that takes logins; an App Link alone is no business of ours.
        let live = try json("""
            [{"relation": ["delegate_permission/common.get_login_creds"],
              "target": {"namespace": "android_app", "package_name": "com.example.app",
                         "sha256_cert_fingerprints": ["\(O.playKey.lowercased())", "\(rotated)", "not a key"]}},
             {"relation": ["delegate_permission/common.get_login_creds"],
              "target": {"namespace": "android_app", "package_name": "com.stale.app", "sha256_cert_fingerprints": []}},
             {"relation": ["delegate_permission/common.handle_all_urls"],
              "target": {"namespace": "android_app", "package_name": "com.links.only", "sha256_cert_fingerprints": []}},
             {"relation": ["delegate_permission/common.get_login_creds"],
              "target": {"namespace": "web", "site": "https://example.com"}}]
            """)
        #expect(PasskeyAssociationDiff.android(live, apps: p.androidApps) == [
            "com.example.app: missing relation delegate_permission/common.handle_all_urls",
            "com.example.app: missing key \(upload)",
            "com.example.app: extra key \(rotated) (not in its certSha256)",
            "missing app com.example.other",
            "extra app com.stale.app (not in passkeys.androidApps)",
            "com.example.app: unreadable fingerprint not a key",
        ])
        #expect(PasskeyAssociationDiff.android(try json(#"{"relation": []}"#), apps: p.androidApps) == ["not a list of statements"])
        // Two statements for one package count together.
        let split = try json("""
            [{"relation": ["delegate_permission/common.handle_all_urls"],
              "target": {"namespace": "android_app", "package_name": "com.example.other", "sha256_cert_fingerprints": ["\(O.playKey)"]}},
             {"relation": ["delegate_permission/common.get_login_creds"],
              "target": {"namespace": "android_app", "package_name": "com.example.other", "sha256_cert_fingerprints": ["\(O.playKey)"]}}]
            """)
        #expect(PasskeyAssociationDiff.android(split, apps: [p.androidApps[1]]).isEmpty)
    }

    @Test func theSiteURLIsTheRPIDsUnlessSet() throws {
        #expect(try passkeys(#"{"rpId": "example.com"}"#).siteUrl == "https://example.com")
        #expect(try passkeys(#"{"rpId": "example.com", "siteUrl": "http://127.0.0.1:8080/"}"#).siteUrl == "http://127.0.0.1:8080")
        let config = try Config.parse(Array(#"{"databasePath": "/tmp/x.sqlite3", "passkeys": {"rpId": "example.com"}}"#.utf8))
        #expect(config.outboundURLs.contains { $0.key == "passkeys.siteUrl" && $0.url == "https://example.com" })
        for bad in ["http://example.com", "https://example.com/site", "https://example.com?x=1", "https://user@example.com", "ftp://example.com"] {
            O().expectKey("passkeys.siteUrl", #"{"rpId": "example.com", "siteUrl": "\#(bad)"}"#)
        }
    }
}
