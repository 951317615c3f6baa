#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Issue 19, item 2, through real nginx: the three layouts in which frontdoor-protect.conf's
/// headers are lost (a nested location with its own headers or parameters, a named location
/// reached by try_files, a regex location that wins over a plain prefix), for a proxied app and a
/// FastCGI one, and (issue 29, finding 5) a re-route by URI into a location that is not protected
/// (rewrite … last, try_files … /uri, error_page … /uri) (Tests/Fixtures/protect-layouts.conf). An app that believes X-Frontdoor-Account
/// only beside the install's proof (docs/door.md) never believes a forged one in any of them; as
/// the docs write them, the app gets exactly the account, and never a bearer token.
@Suite(.serialized) struct ProtectLayoutTests {
    struct World {
        let h: Harness
        let app: LoopbackHTTPServer
        let stack: Stack
        let proof: String
    }

    enum Upstream { case proxied, fastcgi }

    struct Layout {
        let name: String
        let upstream: Upstream
        let path: String
        /// Written as docs/door.md says, or as the reviewer found it.
        let fixed: Bool
        /// Reached without a session when broken (the regex location carries no check at all).
        var openWhenBroken = false
    }

    static let layouts: [Layout] = [
        Layout(name: "nested", upstream: .proxied, path: "/l/nested-proxy/a.x", fixed: false),
        Layout(name: "nested", upstream: .proxied, path: "/l/nested-proxy-fixed/a.x", fixed: true),
        Layout(name: "nested", upstream: .fastcgi, path: "/l/nested-fcgi/a.x", fixed: false),
        Layout(name: "nested", upstream: .fastcgi, path: "/l/nested-fcgi-fixed/a.x", fixed: true),
        Layout(name: "named", upstream: .proxied, path: "/l/named-proxy/a", fixed: false),
        Layout(name: "named", upstream: .proxied, path: "/l/named-proxy-fixed/a", fixed: true),
        Layout(name: "named", upstream: .fastcgi, path: "/l/named-fcgi/a", fixed: false),
        Layout(name: "named", upstream: .fastcgi, path: "/l/named-fcgi-fixed/a", fixed: true),
        Layout(name: "regex", upstream: .proxied, path: "/l/regex-proxy/a.png", fixed: false, openWhenBroken: true),
        Layout(name: "regex", upstream: .proxied, path: "/l/caret-proxy/a.png", fixed: true),
        Layout(name: "regex", upstream: .fastcgi, path: "/l/regex-fcgi/a.gif", fixed: false, openWhenBroken: true),
        Layout(name: "regex", upstream: .fastcgi, path: "/l/caret-fcgi/a.gif", fixed: true),
        // Re-routed by URI into a location that is not protected: rewrite … last before the check.
        Layout(name: "rewrite", upstream: .proxied, path: "/l/rewrite-proxy/a", fixed: false, openWhenBroken: true),
        Layout(name: "rewrite", upstream: .proxied, path: "/l/rewrite-proxy-fixed/a", fixed: true),
        Layout(name: "try_files uri", upstream: .proxied, path: "/l/tryfiles-proxy/a", fixed: false),
        Layout(name: "try_files uri", upstream: .proxied, path: "/l/tryfiles-proxy-fixed/a", fixed: true),
        Layout(name: "error_page uri", upstream: .proxied, path: "/l/errorpage-proxy/a", fixed: false),
        Layout(name: "error_page uri", upstream: .proxied, path: "/l/errorpage-proxy-fixed/a", fixed: true),
    ]

    /// The FastCGI app: answers the identity parameters it was given, one `NAME=value` a line.
    static let recorder = """
        #!/bin/sh
        printf 'Status: 200 OK\\r\\nContent-Type: text/plain\\r\\n\\r\\n'
        env | grep -E '^HTTP_(X_FRONTDOOR_|AUTHORIZATION=)' | sort
        """

    func world() throws -> World {
        let h = try Harness()
        let app = try LoopbackHTTPServer { _ in .respond(.json(#"{"proxied":true}"#)) }
        try h.writeText(h.dir + "/recorder", Self.recorder + "\n")
        chmod(h.dir + "/recorder", 0o755)
        let fixture = String(
            decoding: FileIO.readFile(Stack.root + "/Tests/Fixtures/protect-layouts.conf") ?? [], as: UTF8.self)
        try h.writeText(
            h.dir + "/layouts.conf",
            fixture.replacingAll("@APP_PROXY@", with: "127.0.0.1:\(app.port)").replacingAll("@RECORDER@", with: h.dir + "/recorder"))
        let stack = try Stack(h, environment: ["FRONTDOOR_APP_ROUTES": h.dir + "/layouts.conf", "FRONTDOOR_APP_OPEN": "yes"])
        let proof = String(decoding: FileIO.readFile(stack.varDir + "/app-proof") ?? [], as: UTF8.self)
            .trimmingWhitespace()
        return World(h: h, app: app, stack: stack, proof: proof)
    }

    /// What reached the app: the identity headers, named as FastCGI names them.
    func seen(_ w: World, _ layout: Layout, _ answer: RawHTTP) -> [String: String] {
        switch layout.upstream {
        case .fastcgi:
            var out: [String: String] = [:]
            for line in answer.body.split(separator: "\n") {
                guard let equals = line.firstIndex(of: "=") else { continue }
                out[String(line[..<equals])] = String(line[line.index(after: equals)...])
            }
            return out
        case .proxied:
            var out: [String: String] = [:]
            for (name, value) in w.app.requests.last?.headers ?? [] {
                let key = "HTTP_" + name.uppercased().map { $0 == "-" ? "_" : $0 }
                if key.hasPrefix("HTTP_X_FRONTDOOR_") || key == "HTTP_AUTHORIZATION" { out[key] = value }
            }
            return out
        }
    }

    /// What an app that follows docs/door.md believes: the account, only beside the proof.
    func believed(_ w: World, _ seen: [String: String]) -> String? {
        seen["HTTP_X_FRONTDOOR_PROOF"] == w.proof ? seen["HTTP_X_FRONTDOOR_ACCOUNT"] : nil
    }

    func get(_ w: World, _ path: String, _ headers: [String]) throws -> RawHTTP {
        try RawHTTP.exchange(port: w.stack.port, path: path, headers: headers)
    }

    @Test func aForgedAccountIsNeverBelievedInAnyLayout() throws {
        let w = try world()
        defer { w.stack.stop() }
        #expect(w.proof.utf8.count == 43)
        let me = try w.h.signedIn("g-layouts")
        Harness.registerSecrets(of: [], authorization: me.bearer)
        let forged = ["X-Frontdoor-Account: forged-account", "X-Frontdoor-Proof: a-guessed-proof-of-forty-three-characters-x"]
        for layout in Self.layouts {
            let label = "\(layout.name) \(layout.upstream) \(layout.path)"
            let before = w.app.requests.count
            let signedIn = try get(w, layout.path, ["Authorization: \(me.bearer)"] + forged)
            #expect(signedIn.status == 200, "\(label): \(signedIn.status) \(signedIn.body)")
            if layout.upstream == .proxied { #expect(w.app.requests.count == before + 1, "\(label)") }
            let got = seen(w, layout, signedIn)
            if layout.fixed {
                #expect(believed(w, got) == me.accountId, "\(label): \(got)")
                #expect(got["HTTP_X_FRONTDOOR_ACCOUNT"] == me.accountId, "\(label): \(got)")
                #expect(got["HTTP_AUTHORIZATION"] == nil, "\(label): the bearer token reached the app")
                #expect(got["HTTP_X_FRONTDOOR_SESSION"] == nil, "\(label): \(got)")
            } else {
                #expect(believed(w, got) == nil, "\(label): \(got)")
                // The control: this layout did lose the snippet's headers (frontdoor-check names it).
                #expect(got["HTTP_X_FRONTDOOR_ACCOUNT"] == "forged-account", "\(label): \(got)")
            }
            // Without a session: refused, except where the broken layout never asks.
            let anonymous = try get(w, layout.path, forged)
            if layout.openWhenBroken && !layout.fixed {
                #expect(anonymous.status == 200, "\(label): \(anonymous.status)")
                #expect(believed(w, seen(w, layout, anonymous)) == nil, "\(label)")
            } else {
                #expect(anonymous.status == 401, "\(label): \(anonymous.status) \(anonymous.body)")
                #expect(anonymous.json?["error"] == "unauthorized", "\(label): \(anonymous.body)")
            }
        }
        // No answer to a client ever carries the proof.
        #expect(!w.stack.accessLog().contains(w.proof))
        #expect(!w.stack.errorLog().contains(w.proof))
    }

    /// The example app (`frontdoor-whoami`) believes the account only beside the proof it reads
    /// from its own environment's file: a route without the snippet shows nobody, whatever the
    /// client sends, unless the client has the secret itself (the control: the proof decides).
    @Test func theExampleAppBelievesOnlyBesideTheProof() throws {
        let w = try world()
        defer { w.stack.stop() }
        let me = try w.h.signedIn("g-whoami-proof")
        Harness.registerSecrets(of: [], authorization: me.bearer)
        let protected = try get(w, "/app/whoami", ["Authorization: \(me.bearer)", "X-Frontdoor-Proof: wrong"])
        #expect(protected.json == .object([("account", .string(me.accountId))]), "\(protected.body)")
        for headers in [
            ["X-Frontdoor-Account: forged-open"],
            ["X-Frontdoor-Account: forged-open", "X-Frontdoor-Proof: wrong"],
            ["X-Frontdoor-Account: forged-open", "X-Frontdoor-Proof: " + w.proof + "x"],
            ["X-Frontdoor-Account: forged-open", "X-Frontdoor-Proof: " + String(w.proof.dropLast())],
        ] {
            let open = try get(w, "/app/open/whoami", headers)
            #expect(open.json == .object([("account", .null)]), "\(headers): \(open.body)")
        }
        let withTheSecret = try get(w, "/app/open/whoami", ["X-Frontdoor-Account: forged-open", "X-Frontdoor-Proof: " + w.proof])
        #expect(withTheSecret.json == .object([("account", "forged-open")]))
    }
}
