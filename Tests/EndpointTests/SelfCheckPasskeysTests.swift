#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Issue 24: `frontdoor-check --print-association-files`, and the self-check holding the live
/// association files (a loopback fake of the RP ID's site) to the config.
@Suite struct SelfCheckPasskeysTests {
    /// The RP ID's site: what it serves at each path (absent: 404).
    final class Site: Sendable {
        let files = Locked<[String: LoopbackHTTPServer.Response]>([:])
        let server: LoopbackHTTPServer

        init() throws {
            let files = self.files
            server = try LoopbackHTTPServer { request in
                .respond(files.current[request.path] ?? .json(#"{"error":"not_found"}"#, status: 404))
            }
        }

        func serve(_ name: String, _ text: String, type: String = "application/json", status: Int = 200) {
            files.withLock {
                $0["/.well-known/" + name] = LoopbackHTTPServer.Response(
                    status: status, headers: [("Content-Type", type)], body: Array(text.utf8))
            }
        }

        deinit { server.stop() }
    }

    func world(siteUrl: String) throws -> Harness {
        let h = try Harness()
        guard case .object(var members) = PasskeyWorld.section.1 else { throw HarnessError("no section") }
        members.append(("siteUrl", .string(siteUrl)))
        try h.writeConfig([("passkeys", .object(members))])
        return h
    }

    func frontdoorCheck(_ h: Harness, _ arguments: [String]) throws -> ChildProcess.Result {
        try ChildProcess.run(
            Harness.binDir + "/frontdoor-check", arguments: ["--config", h.configPath] + arguments,
            environment: ["PATH": "/usr/bin:/bin"], workDir: h.dir)
    }

    func check(_ h: Harness) throws -> String {
        try frontdoorCheck(h, ["--routes", "ipv4=yes,ipv6=yes", "--timeout", "3", "--hosts", "/dev/null"]).stdoutText
    }

    /// The files exactly as `--print-association-files --out` writes them for this config.
    func written(_ h: Harness) throws -> [String: String] {
        let out = h.dir + "/well-known"
        #expect(mkdir(out, 0o755) == 0 || errno == EEXIST)
        let result = try frontdoorCheck(h, ["--print-association-files", "--out", out])
        #expect(result.exitStatus == 0, "\(result.stdoutText)")
        var files: [String: String] = [:]
        for name in [PasskeyAssociationFiles.appleName, PasskeyAssociationFiles.androidName] {
            if let bytes = FileIO.readFile(out + "/" + name) { files[name] = String(decoding: bytes, as: UTF8.self) }
        }
        return files
    }

    @Test func printsAndWritesTheFilesFromTheConfig() throws {
        let h = try world(siteUrl: "https://example.com")
        let printed = try frontdoorCheck(h, ["--print-association-files"])
        #expect(printed.exitStatus == 0)
        #expect(printed.stdoutText == """
            # /.well-known/apple-app-site-association
            {"webcredentials":{"apps":["ABCDE12345.com.example.app"]}}

            # /.well-known/assetlinks.json
            [{"relation":["delegate_permission/common.handle_all_urls","delegate_permission/common.get_login_creds"],\
            "target":{"namespace":"android_app","package_name":"com.example.app","sha256_cert_fingerprints":["\(PasskeyWorld.playKey)"]}}]

            """, "\(printed.stdoutText)")
        let files = try written(h)
        #expect(files[PasskeyAssociationFiles.appleName] == #"{"webcredentials":{"apps":["ABCDE12345.com.example.app"]}}"# + "\n")
        #expect(files[PasskeyAssociationFiles.androidName]?.contains(#""package_name":"com.example.app""#) == true)
        var info = stat()
        #expect(stat(h.dir + "/well-known/assetlinks.json", &info) == 0 && info.st_mode & 0o777 == 0o644)
        // A platform taken out of the config loses its file; no section, no files.
        try h.writeConfig([("passkeys", .object([("rpId", "example.com"), ("iosAppIds", .array(["ABCDE12345.com.example.app"]))]))])
        #expect(try written(h).keys.sorted() == [PasskeyAssociationFiles.appleName])
        try h.writeConfig()
        #expect(try written(h).isEmpty)
        #expect(try frontdoorCheck(h, ["--print-association-files"]).stdoutText == "# no passkeys section: no association files\n")
        // --out alone is a usage error; a broken config fails and names its key.
        #expect(try frontdoorCheck(h, ["--out", h.dir]).exitStatus == 2)
        try h.writeConfig([("passkeys", .object([("rpId", "Example.com")]))])
        let broken = try frontdoorCheck(h, ["--print-association-files"])
        #expect(broken.exitStatus == 1 && broken.stdoutText.contains("passkeys.rpId"), "\(broken.stdoutText)")
    }

    @Test func theLiveFilesAreHeldToTheConfig() throws {
        let site = try Site()
        let h = try world(siteUrl: site.server.baseURL)
        let apple = site.server.baseURL + "/.well-known/apple-app-site-association"
        let android = site.server.baseURL + "/.well-known/assetlinks.json"
        let files = try written(h)
        for (name, text) in files { site.serve(name, text) }
        let good = try check(h)
        #expect(good.contains("✓ passkeys: RP ID example.com, allowed origins https://example.com, \(PasskeyWorld.androidOrigin)"), "\(good)")
        #expect(good.contains("✓ passkeys: \(apple) matches passkeys.iosAppIds"), "\(good)")
        #expect(good.contains("✓ passkeys: \(android) matches passkeys.androidApps"), "\(good)")
        #expect(!good.contains("✗ passkeys"))

        // The site still serves last year's files: an iOS app and the upload key the config has since gained.
        let upload = "A1:B2:C3:D4:E5:F6:07:18:29:3A:4B:5C:6D:7E:8F:90:01:12:23:34:45:56:67:78:89:9A:AB:BC:CD:DE:EF:F0"
        guard case .object(var members) = PasskeyWorld.section.1 else { throw HarnessError("no section") }
        members.removeAll { $0.0 == "androidApps" || $0.0 == "iosAppIds" }
        members += [
            ("siteUrl", .string(site.server.baseURL)),
            ("androidApps", .array([.object([("package", "com.example.app"),
                                             ("certSha256", .array([.string(PasskeyWorld.playKey), .string(upload)]))])])),
            ("iosAppIds", .array(["ABCDE12345.com.example.app", "ABCDE12345.com.example.new"])),
        ]
        try h.writeConfig([("passkeys", .object(members))])
        site.serve(PasskeyAssociationFiles.appleName, #"{"webcredentials":{"apps":["ABCDE12345.com.example.app","ZZZZZ99999.com.old.app"]}}"#)
        let stale = try check(h)
        #expect(stale.contains("✗ passkeys: \(apple) differs from the config: missing app ABCDE12345.com.example.new; "
            + "extra app ZZZZZ99999.com.old.app (not in passkeys.iosAppIds)"), "\(stale)")
        #expect(stale.contains("✗ passkeys: \(android) differs from the config: com.example.app: missing key \(upload)"), "\(stale)")

        // Served as text, not at all, or through a redirect.
        site.serve(PasskeyAssociationFiles.appleName, #"{"webcredentials":{"apps":["ABCDE12345.com.example.app","ABCDE12345.com.example.new"]}}"#,
                   type: "text/plain")
        site.files.withLock { $0.removeValue(forKey: "/.well-known/assetlinks.json") }
        let served = try check(h)
        #expect(served.contains("✗ passkeys: \(apple) differs from the config: served as text/plain, not application/json"), "\(served)")
        #expect(served.contains("✗ passkeys: \(android) answered HTTP 404; serve the file frontdoor-check --print-association-files writes"),
                "\(served)")
        site.serve(PasskeyAssociationFiles.androidName, "", status: 301)
        #expect(try check(h).contains("✗ passkeys: \(android) answered HTTP 301 (a redirect: the phones follow none for this file)"))
    }

    @Test func anUnreachableSiteIsSaidAndFailsNothing() throws {
        // A port nobody listens on.
        let site = "http://127.0.0.1:\(try Stack.freePort())"
        let h = try world(siteUrl: site)
        let out = try check(h)
        #expect(out.contains("✓ passkeys: \(site)/.well-known/apple-app-site-association cannot be fetched ("), "\(out)")
        #expect(out.contains(": not compared"))
        #expect(!out.contains("✗ passkeys"), "\(out)")
        // A name with no address this host can reach (the --hosts file answers nothing).
        let named = try world(siteUrl: "https://example.com")
        let unnamed = try check(named)
        #expect(unnamed.contains("✓ passkeys: https://example.com cannot be reached from here (example.com has no address "
            + "this host can reach): association files not compared"), "\(unnamed)")
        // A section without apps: the site serves none, as it should.
        let bare = try Harness()
        let empty = try Site()
        try bare.writeConfig([("passkeys", .object([("rpId", "example.com"), ("siteUrl", .string(empty.server.baseURL))]))])
        let none = try check(bare)
        #expect(none.contains("✓ passkeys: \(empty.server.baseURL)/.well-known/assetlinks.json: none served, and passkeys.androidApps is empty"),
                "\(none)")
    }
}
