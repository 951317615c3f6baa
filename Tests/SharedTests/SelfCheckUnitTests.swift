#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Shared

@Suite struct SelfCheckUnitTests {
    @Test func glibcMustBeTheVersionTheBinariesWereBuiltWith() {
        #expect(SelfCheck.glibcFinding(built: "2.36", box: "glibc 2.36").ok)
        let newer = SelfCheck.glibcFinding(built: "2.36", box: "glibc 2.41")
        #expect(!newer.ok)
        #expect(newer.text.contains("built with 2.36, this box has 2.41"))
        #expect(newer.text.contains("build the release on this Debian version"))
        #expect(!SelfCheck.glibcFinding(built: "2.36", box: nil).ok)
    }

    @Test func theBoxsGlibcComesFromGetconf() throws {
        let box = try #require(SelfCheck.boxGlibc())
        #expect(box.hasPrefix("glibc 2."))
    }
}

/// frontdoor-check: with frontdoor-protect.conf installed, its internal location must exist.
@Suite struct NginxCheckTests {
    static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    func withNginx(_ files: [String: String], _ body: (String) throws -> Void) throws {
        try withStoreDirectory { dir in
            for sub in ["snippets", "conf.d", "sites-enabled"] { mkdir(dir.path + "/" + sub, 0o755) }
            for (name, text) in files {
                let fd = open(dir.path + "/" + name, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                FileIO.writeAll(fd, Array(text.utf8))
                close(fd)
            }
            defer {
                for sub in ["snippets", "conf.d", "sites-enabled"] {
                    for name in files.keys where name.hasPrefix(sub + "/") { unlink(dir.path + "/" + name) }
                    rmdir(dir.path + "/" + sub)
                }
            }
            try body(dir.path)
        }
    }

    func shipped(_ name: String) -> String {
        String(decoding: FileIO.readFile(Self.root + "/nginx/" + name) ?? [], as: UTF8.self)
    }

    @Test func theShippedSnippetsPass() throws {
        #expect(NginxCheck.authRequestURI(shipped("frontdoor-protect.conf")) == "/_frontdoor/session")
        try withNginx([
            "snippets/frontdoor-protect.conf": shipped("frontdoor-protect.conf"),
            "snippets/frontdoor-endpoints.conf": shipped("frontdoor-endpoints.conf"),
        ]) { dir in
            let finding = try #require(NginxCheck.finding(directory: dir))
            #expect(finding.ok, "\(finding.text)")
            #expect(finding.text.contains("/_frontdoor/session is an internal location"))
        }
    }

    @Test func nothingToCheckWithoutTheSnippet() throws {
        try withNginx(["snippets/frontdoor-endpoints.conf": shipped("frontdoor-endpoints.conf")]) { dir in
            #expect(NginxCheck.finding(directory: dir) == nil)
        }
    }

    @Test func theSnippetWithoutItsLocationFails() throws {
        try withNginx(["snippets/frontdoor-protect.conf": shipped("frontdoor-protect.conf")]) { dir in
            let finding = try #require(NginxCheck.finding(directory: dir))
            #expect(!finding.ok)
            #expect(finding.text.contains("include snippets/frontdoor-endpoints.conf"))
        }
    }

    @Test func aLocationThatIsNotInternalFails() throws {
        let open = """
            server {
                # location = /_frontdoor/session { internal; }  (a comment does not count)
                location = /_frontdoor/session {
                    location /nested { internal; }
                    fastcgi_pass unix:/run/fcgiwrap.socket;
                }
            }
            """
        try withNginx([
            "snippets/frontdoor-protect.conf": shipped("frontdoor-protect.conf"), "sites-enabled/site": open,
        ]) { dir in
            let finding = try #require(NginxCheck.finding(directory: dir))
            #expect(!finding.ok)
            #expect(finding.text.contains("is not `internal`"))
        }
    }
}
