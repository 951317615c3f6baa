#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Testing
@testable import Shared

/// frontdoor-check --nginx: with frontdoor-protect.conf installed, its internal location must exist,
/// the snippet must carry the install's proof, and no location the app's requests reach may lose
/// the snippet's headers (issue 19, item 2).
@Suite struct NginxCheckTests {
    static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    static let proof = "proxy_set_header X-Frontdoor-Proof \"\(String(repeating: "p", count: 43))\";\n"
        + "fastcgi_param HTTP_X_FRONTDOOR_PROOF \"\(String(repeating: "p", count: 43))\";\n"

    /// Writes `files` (paths under the nginx directory) with mode 0644, `frontdoor-proof.conf` 0600.
    func withNginx(_ files: [String: String], modes: [String: mode_t] = [:], _ body: (String) throws -> Void) throws {
        try withStoreDirectory { dir in
            let subs = ["snippets", "conf.d", "sites-enabled"]
            for sub in subs { mkdir(dir.path + "/" + sub, 0o755) }
            for (name, text) in files {
                let mode = modes[name] ?? (name == "frontdoor-proof.conf" ? 0o600 : 0o644)
                let fd = open(dir.path + "/" + name, O_WRONLY | O_CREAT | O_TRUNC, mode)
                FileIO.writeAll(fd, Array(text.utf8))
                fchmod(fd, mode)
                close(fd)
            }
            defer {
                for sub in subs {
                    for name in files.keys where name.hasPrefix(sub + "/") { unlink(dir.path + "/" + name) }
                    rmdir(dir.path + "/" + sub)
                }
            }
            try body(dir.path)
        }
    }

    static func shipped(_ name: String) -> String {
        String(decoding: FileIO.readFile(root + "/nginx/" + name) ?? [], as: UTF8.self)
    }

    /// The shipped snippets, their proof, and `site` in sites-enabled.
    static func installed(site: String? = nil) -> [String: String] {
        var files = [
            "snippets/frontdoor-protect.conf": shipped("frontdoor-protect.conf"),
            "snippets/frontdoor-endpoints.conf": shipped("frontdoor-endpoints.conf"),
            "snippets/frontdoor-fcgiwrap.conf": shipped("fcgiwrap.conf"),
            "frontdoor-proof.conf": proof,
        ]
        if let site { files["sites-enabled/site"] = site }
        return files
    }

    static func server(_ locations: String) -> String {
        "server {\n    listen 80;\n    include /etc/nginx/snippets/frontdoor-endpoints.conf;\n\(locations)\n}\n"
    }

    func findings(_ files: [String: String], modes: [String: mode_t] = [:]) throws -> [SelfCheck.Finding] {
        var out: [SelfCheck.Finding] = []
        try withNginx(files, modes: modes) { out = NginxCheck.findings(directory: $0) }
        return out
    }

    @Test func theShippedSnippetsAndTheDocumentedExamplesPass() throws {
        let site = Self.server(
            """
                location ~* \\.(css|js|png)$ { root /srv/static; expires 1d; }
                location ^~ /api/ {
                    include /etc/nginx/snippets/frontdoor-protect.conf;
                    proxy_set_header Host $host;
                    proxy_pass http://127.0.0.1:3000;
                }
                location ^~ /app/ {
                    include /etc/nginx/snippets/frontdoor-protect.conf;
                    fastcgi_pass unix:/run/fcgiwrap.socket;
                    include /etc/nginx/snippets/frontdoor-fcgiwrap.conf;
                    fastcgi_param SCRIPT_FILENAME /srv/app/cgi-bin/app;
                }
                location = /app/exact { include snippets/frontdoor-protect.conf; proxy_pass http://127.0.0.1:3000; }
            """)
        let found = try findings(Self.installed(site: site))
        #expect(found.allSatisfy { $0.ok }, "\(found.map(\.line))")
        #expect(found.contains { $0.text.contains("/_frontdoor/session is an internal location") })
        #expect(found.contains { $0.text.contains("the proof") && $0.text.contains("readable by its owner only") })
        #expect(found.contains { $0.text.contains("3 protected locations") }, "\(found.map(\.line))")
    }

    @Test func nothingToCheckWithoutTheSnippet() throws {
        #expect(try findings(["snippets/frontdoor-endpoints.conf": Self.shipped("frontdoor-endpoints.conf")]).isEmpty)
    }

    @Test func theSnippetWithoutItsLocationFails() throws {
        let found = try findings(["snippets/frontdoor-protect.conf": Self.shipped("frontdoor-protect.conf"), "frontdoor-proof.conf": Self.proof])
        #expect(found.contains { !$0.ok && $0.text.contains("include snippets/frontdoor-endpoints.conf") })
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
        let found = try findings([
            "snippets/frontdoor-protect.conf": Self.shipped("frontdoor-protect.conf"), "sites-enabled/site": open,
            "frontdoor-proof.conf": Self.proof,
        ])
        #expect(found.contains { !$0.ok && $0.text.contains("is not `internal`") })
    }

    @Test func theProofMustBeThereRootOnlyAndWhole() throws {
        var files = Self.installed()
        files.removeValue(forKey: "frontdoor-proof.conf")
        #expect(try findings(files).contains { !$0.ok && $0.text.contains("is missing") })
        let readable = try findings(Self.installed(), modes: ["frontdoor-proof.conf": 0o644])
        #expect(readable.contains { !$0.ok && $0.text.contains("readable by others") })
        var short = Self.installed()
        short["frontdoor-proof.conf"] = "proxy_set_header X-Frontdoor-Proof \"short\";\nfastcgi_param HTTP_X_FRONTDOOR_PROOF \"short\";\n"
        #expect(try findings(short).contains { !$0.ok && $0.text.contains("32 or more characters") })
        var halves = Self.installed()
        halves["frontdoor-proof.conf"] = Self.proof.replacingFirst("pppp\";\nfastcgi", with: "ppqq\";\nfastcgi")
        #expect(try findings(halves).contains { !$0.ok && $0.text.contains("to one secret") })
        var older = Self.installed()
        older["snippets/frontdoor-protect.conf"] = Self.shipped("frontdoor-protect.conf")
            .replacingFirst("include /etc/nginx/frontdoor-proof.conf;", with: "")
        #expect(try findings(older).contains { !$0.ok && $0.text.contains("includes no frontdoor-proof.conf") })
    }

    /// The fixture ProtectLayoutTests serves through nginx: frontdoor-check names the nine layouts
    /// that lose the snippet's headers, and none of the nine written as docs/door.md says.
    @Test func theBrokenLayoutsAreNamedAndTheFixedOnesPass() throws {
        let layouts = String(decoding: FileIO.readFile(Self.root + "/Tests/Fixtures/protect-layouts.conf") ?? [], as: UTF8.self)
        #expect(!layouts.isEmpty)
        let filled = layouts.replacingAll("@PROTECT@", with: "/etc/nginx/snippets/frontdoor-protect.conf")
            .replacingAll("@APP_PROXY@", with: "127.0.0.1:3000")
            .replacingAll("@APP_SOCKET@", with: "unix:/run/fcgiwrap.socket")
            .replacingAll("@FCGI_PARAMS@", with: "snippets/frontdoor-fcgiwrap.conf")
            .replacingAll("@RECORDER@", with: "/srv/app/cgi-bin/app")
        let found = try findings(Self.installed(site: Self.server(filled)))
        let problems = found.filter { !$0.ok }.map(\.text)
        #expect(problems.count == 9, "\(problems)")
        for broken in [
            "/l/nested-proxy/", "/l/nested-fcgi/", "@l_named_proxy ", "@l_named_fcgi ", "/l/regex-proxy/", "/l/regex-fcgi/",
            "/l/rewrite-proxy/", "/l/tryfiles-proxy/", "/l/errorpage-proxy/",
        ] {
            #expect(problems.filter { $0.contains(broken) }.count == 1, "\(broken): \(problems)")
        }
        for fixed in ["-fixed", "caret-"] { #expect(!problems.contains { $0.contains(fixed) }, "\(problems)") }
        #expect(problems.contains { $0.contains("sets its own proxy_set_header") })
        #expect(problems.contains { $0.contains("sets its own fastcgi_param") })
        #expect(problems.contains { $0.contains("write it `location ^~ /l/regex-fcgi/`") })
    }

    @Test func moreWaysToLoseTheHeaders() throws {
        let protect = "include /etc/nginx/snippets/frontdoor-protect.conf;"
        let cases: [(String, String)] = [
            // Under a plain prefix location, ^~ does not keep the server's regex locations out.
            ("location / { location ^~ /api/ { \(protect) proxy_pass http://a; } }", "inside location / "),
            // The first regex location that matches wins.
            ("location ~ \\.png$ { proxy_pass http://a; } location ~ ^/api/ { \(protect) proxy_pass http://a; }", "comes first"),
            // error_page hands the request on like try_files.
            ("location ^~ /api/ { \(protect) error_page 404 = @fallback; proxy_pass http://a; } location @fallback { proxy_pass http://b; }",
             "reached by error_page"),
            // A nested location's include that cannot be read may set anything.
            ("location ^~ /api/ { \(protect) proxy_pass http://a; location /api/x { include /nowhere/params; proxy_pass http://a; } }",
             "which cannot be read"),
            // Two levels down, and the modifier written joined to the URI.
            ("location ^~/api/ { \(protect) proxy_pass http://a; location /api/v1/ { location /api/v1/x { fastcgi_param A b; fastcgi_pass c; } } }",
             "sets its own fastcgi_param"),
        ]
        for (locations, expected) in cases {
            let problems = try findings(Self.installed(site: Self.server(locations))).filter { !$0.ok }.map(\.text)
            #expect(problems.count == 1 && problems[0].contains(expected), "\(locations): \(problems)")
        }
        // A named location that passes nothing on, and one of frontdoor's JSON pages, are fine.
        let fine = "location ^~ /api/ { \(protect) try_files $uri @gone; error_page 418 @frontdoor_404; proxy_pass http://a; } location @gone { return 404; }"
        let found = try findings(Self.installed(site: Self.server(fine)))
        #expect(found.allSatisfy { $0.ok }, "\(found.map(\.line))")
    }

    /// A protected location that hands its request on by URI (issue 29, finding 5): the check
    /// follows the URI to the location nginx would choose (exact, longest prefix and its nested
    /// locations, `^~`, regexes in order) and names it when it is not protected; a rewrite there
    /// lets requests without a session through. A URI it cannot follow is refused.
    @Test func reroutesByURIAreFollowedOrRefused() throws {
        let protect = "include /etc/nginx/snippets/frontdoor-protect.conf;"
        let open = "location /open/ { proxy_pass http://b; }"
        let broken: [(String, String)] = [
            ("location ^~ /api/ { \(protect) rewrite ^ /open/x last; proxy_pass http://a; } \(open)",
             "before the check has run: requests without a session get through"),
            // No flag: the changed URI is matched again, as with last.
            ("location ^~ /api/ { \(protect) rewrite ^/api/old$ /open/x; proxy_pass http://a; } \(open)", "before the check"),
            ("location ^~ /api/ { \(protect) if ($arg_x) { rewrite ^ /open/x last; } proxy_pass http://a; } \(open)",
             "before the check"),
            // After the check: a regex location (case-insensitive) takes the fallback URI.
            ("location ^~ /api/ { \(protect) try_files $uri /index.PHP?$args; } location ~* \\.php$ { fastcgi_pass c; }",
             "passes to its upstream without frontdoor-protect.conf"),
            ("location ^~ /api/ { \(protect) error_page 404 = /fallback; proxy_pass http://a; } location = /fallback { proxy_pass http://b; }",
             "the app gets the client's bearer token"),
            // A mirror's copy carries the client's headers to its own location (the fourth review's T5-11).
            ("location ^~ /api/ { \(protect) mirror /audit-copy/; proxy_pass http://a; } location /audit-copy/ { proxy_pass http://b; }",
             "the app gets the client's bearer token"),
            // A nested prefix inside the one the URI meets first.
            ("location ^~ /api/ { \(protect) try_files $uri /app/v1/x; } location /app/ { root /srv; location /app/v1/ { proxy_pass http://b; } }",
             "location /app/v1/"),
            // Inside a protected location, a nested one's re-route too.
            ("location ^~ /api/ { \(protect) proxy_pass http://a; location /api/x { rewrite ^ /open/x last; } } \(open)",
             "in location /api/x ("),
            // What cannot be followed is refused.
            ("location ^~ /api/ { \(protect) rewrite ^/api/(.*)$ /v2/$1 last; proxy_pass http://a; }", "cannot follow"),
            ("location ^~ /api/ { \(protect) try_files $uri $uri.html; proxy_pass http://a; }", "cannot follow"),
            ("location ^~ /api/ { \(protect) error_page 404 $fallback; proxy_pass http://a; }", "cannot follow"),
        ]
        for (locations, expected) in broken {
            let problems = try findings(Self.installed(site: Self.server(locations))).filter { !$0.ok }.map(\.text)
            #expect(problems.count == 1 && problems[0].contains(expected), "\(locations): \(problems)")
        }
        let fine = [
            // break stays in the location; a redirect, or a URL, goes back to the client.
            "location ^~ /api/ { \(protect) rewrite ^/api/(.*)$ /v2/$1 break; proxy_pass http://a; }",
            "location ^~ /api/ { \(protect) rewrite ^ /open/x redirect; rewrite ^ https://example.org/; } \(open)",
            // Into a protected location (the check runs there again).
            "location ^~ /api/ { \(protect) rewrite ^ /api2/x last; } location ^~ /api2/ { \(protect) proxy_pass http://b; }",
            // ^~ keeps the regex location out: /api/index.php stays in the protected location.
            "location ^~ /api/ { \(protect) try_files $uri /api/index.php; fastcgi_pass c; } location ~ \\.php$ { fastcgi_pass c; }",
            // After the check, a page nginx serves itself passes nothing upstream.
            "location ^~ /api/ { \(protect) error_page 502 /50x.html; try_files $uri /index.html; proxy_pass http://a; } "
                + "location = /50x.html { root /usr/share/nginx/html; } location / { root /srv/www; }",
            // A mirror into a protected location, and a mirror turned off.
            "location ^~ /api/ { \(protect) mirror /api2/copy; mirror off; proxy_pass http://a; } location ^~ /api2/ { \(protect) proxy_pass http://b; }",
            // A URI that no location takes is nginx's 404.
            "location ^~ /api/ { \(protect) try_files $uri /nowhere; }",
        ]
        for locations in fine {
            let found = try findings(Self.installed(site: Self.server(locations)))
            #expect(found.allSatisfy { $0.ok }, "\(locations): \(found.filter { !$0.ok }.map(\.text))")
        }
    }

    /// With nginx.conf there, the check reads what it includes, relative and absolute, globs too.
    @Test func nginxConfIsFollowedThroughItsIncludes() throws {
        var files = Self.installed()
        files["nginx.conf"] = "events {}\nhttp {\n    include conf.d/*.conf;\n    include /etc/nginx/sites-enabled/*;\n}\n"
        files["sites-enabled/app"] = Self.server("location /api/ { include snippets/frontdoor-protect.conf; proxy_pass http://a; }")
        let problems = try findings(files).filter { !$0.ok }.map(\.text)
        #expect(problems.count == 1 && problems[0].contains("write it `location ^~ /api/`"), "\(problems)")
    }

    @Test func quotesBracesAndVariablesAreReadAsNginxReadsThem() {
        let parsed = NginxConfig.parse(
            """
            location = /x { return 401 '{"error":"a;b}"}'; # } not a brace
                set $a "${b}c"; if ($http_authorization !~* "^ *bearer +[a-z]{43} *$") { return 401; }
            }
            """, file: "t")
        #expect(parsed.count == 1)
        let block = parsed.first?.block ?? []
        #expect(block.map(\.name) == ["return", "set", "if"])
        #expect(block.first?.args == ["401", #"{"error":"a;b}"}"#])
        #expect(block[1].args == ["$a", "${b}c"])
        #expect(block[2].block?.first?.name == "return")
        #expect(block[2].line == 2)
    }
}
