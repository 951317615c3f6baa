#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// Rule 10 through real nginx and fcgiwrap: the app's routes behind frontdoor-protect.conf, one
/// FastCGI (the whoami example) and one proxied to a loopback HTTP server that records what it
/// got. A client's own X-Frontdoor-Account, in any spelling, never reaches either.
@Suite(.serialized) struct ProtectIntegrationTests {
    /// Client headers trying to pass as nginx's: every case and underscore spelling, repeated,
    /// empty, and the session header too.
    static let forgeries: [[String]] = {
        let single = [
            ["X-Frontdoor-Account: forged-a"], ["x-frontdoor-account: forged-b"], ["X-FRONTDOOR-ACCOUNT: forged-c"],
            ["X_Frontdoor_Account: forged-d"], ["x_frontdoor-account: forged-e"], ["X-Frontdoor_Account: forged-f"],
            ["X-Frontdoor-Account: forged-g", "X-Frontdoor-Account: forged-h"],
            ["X-Frontdoor-Account: forged-i", "x_frontdoor_account: forged-j"],
            ["X-Frontdoor-Account:"], ["X-Frontdoor-Account: "], ["X-Frontdoor-Account: forged-k", "X-Frontdoor-Account:"],
            ["X-Frontdoor-Session: forged-s", "X_Frontdoor_Session: forged-t", "x-frontdoor_session: forged-u"],
        ]
        return single + [single.flatMap { $0 }]
    }()

    struct World {
        let h: Harness
        let app: LoopbackHTTPServer
        let stack: Stack
    }

    func world(_ environment: [String: String] = [:]) throws -> World {
        let h = try Harness()
        let app = try LoopbackHTTPServer { _ in .respond(.json(#"{"proxied":true}"#)) }
        let stack = try Stack(h, environment: ["FRONTDOOR_APP_PROXY": "127.0.0.1:\(app.port)"].merging(environment) { $1 })
        return World(h: h, app: app, stack: stack)
    }

    func get(_ w: World, _ path: String, _ bearer: String?, _ extra: [String] = [], method: String = "GET", body: String = "") throws -> RawHTTP {
        Harness.registerSecrets(of: [], authorization: bearer)
        return try RawHTTP.exchange(
            port: w.stack.port, method: method, path: path, headers: (bearer.map { ["Authorization: \($0)"] } ?? []) + extra,
            body: body)
    }

    /// The headers the proxied app got on its last request, with the names as a framework that
    /// folds `_` into `-` would read them.
    func proxiedHeaders(_ w: World) -> [(String, String)] {
        (w.app.requests.last?.headers ?? []).map { (String($0.0.map { $0 == "_" ? "-" : $0 }), $0.1) }
    }

    @Test(arguments: ["off", "on"])
    func aForgedAccountHeaderNeverReachesTheApp(_ underscores: String) throws {
        let w = try world(["FRONTDOOR_APP_OPEN": "yes", "FRONTDOOR_UNDERSCORES_IN_HEADERS": underscores])
        defer { w.stack.stop() }
        let me = try w.h.signedIn("g-protected")
        let refusal = try w.h.check(nil).rawBody
        for forged in Self.forgeries {
            // No session: 401 in frontdoor's own JSON, and the app is never asked.
            let asked = w.app.requests.count
            for path in ["/app/whoami", "/app/proxied/anything"] {
                let refused = try get(w, path, nil, forged)
                #expect(refused.status == 401, "\(path) \(forged): \(refused.body)")
                #expect(refused.body == refusal)
                #expect(refused.header("content-type") == "application/json")
                #expect(refused.header("cache-control") == "no-store")
                #expect(refused.header("x-frontdoor-account") == nil)
                #expect(try get(w, path, "Bearer AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", forged).status == 401)
            }
            #expect(w.app.requests.count == asked)
            // A session: exactly its account, and nothing else that claims to be nginx's.
            let fastcgi = try get(w, "/app/whoami", me.bearer, forged)
            #expect(fastcgi.status == 200, "\(forged): \(fastcgi.body) \(w.stack.errorLog().suffix(2000))")
            #expect(fastcgi.json == .object([("account", .string(me.accountId))]), "\(forged): \(fastcgi.body)")
            let proxied = try get(w, "/app/proxied/anything", me.bearer, forged)
            #expect(proxied.status == 200, "\(forged): \(proxied.body)")
            let got = proxiedHeaders(w)
            #expect(got.filter { $0.0 == "x-frontdoor-account" }.map(\.1) == [me.accountId], "\(forged): \(got)")
            #expect(!got.contains { $0.0 == "x-frontdoor-session" || $0.0 == "authorization" }, "\(forged): \(got)")
        }
        // The control: without the snippet a forged header does reach a FastCGI app, so the
        // assertions above can see one; the example app shows it only beside the proof, which
        // this test, unlike any client, can read. Underscore spellings only when nginx lets them
        // through.
        let proof = "X-Frontdoor-Proof: " + String(decoding: FileIO.readFile(w.stack.varDir + "/app-proof") ?? [], as: UTF8.self)
            .trimmingWhitespace()
        let open = try get(w, "/app/open/whoami", nil, ["X-Frontdoor-Account: forged-open", proof])
        #expect(open.json == .object([("account", "forged-open")]))
        #expect(try get(w, "/app/open/whoami", nil, ["X-Frontdoor-Account: forged-open"]).json == .object([("account", .null)]))
        let underscored = try get(w, "/app/open/whoami", nil, ["X_Frontdoor_Account: forged-under", proof])
        #expect(underscored.json == .object([("account", underscores == "on" ? "forged-under" : .null)]))
    }

    @Test func theCheckItselfIsInternalAndTheSessionRouteAnswersThePhone() throws {
        let w = try world()
        defer { w.stack.stop() }
        let me = try w.h.signedIn("g-phone")
        let inside = try get(w, "/_frontdoor/session", me.bearer)
        #expect(inside.status == 404)
        #expect(inside.json?["error"] == "not_found")
        for (method, body) in [("GET", ""), ("POST", #"{"ignored": true}"#), ("POST", "")] {
            let answer = try get(w, "/auth/session", me.bearer, method: method, body: body)
            #expect(answer.status == 200, "\(method): \(answer.body)")
            #expect(answer.json?["accountId"]?.stringValue == me.accountId)
            #expect(answer.json?["sessionId"]?.stringValue == me.sessionId)
            #expect(answer.header("x-frontdoor-account") == me.accountId)
            #expect(answer.header("cache-control") == "no-store")
        }
        // No well-formed bearer token: nginx refuses it itself, with the program's own body, and
        // starts no check at all.
        let checks = w.stack.errorLog().components("endpoint=session ")
        let programsRefusal = try w.h.check(nil).rawBody
        for bearer in [nil, "Bearer", "Bearer short", "Basic dXNlcjpwYXNz", "Bearer " + String(repeating: "A", count: 44)] {
            for path in ["/auth/session", "/app/whoami"] {
                let refused = try get(w, path, bearer)
                #expect(refused.status == 401 && refused.body == programsRefusal, "\(path) \(bearer ?? "-"): \(refused.body)")
                #expect(refused.header("x-frontdoor-account") == nil)
                #expect(refused.header("content-type") == "application/json")
            }
        }
        #expect(w.stack.errorLog().components("endpoint=session ") == checks)
        // A well-formed one that is no session reaches the check, which refuses it alike.
        let unknown = try get(w, "/auth/session", "bearer   " + String(repeating: "A", count: 43))
        #expect(unknown.status == 401 && unknown.body == programsRefusal)
        #expect(w.stack.errorLog().components("endpoint=session status=401") == 1)
        // The account endpoint is routed too.
        let account = try w.stack.post("/auth/account", json: #"{"action":"get"}"#, authorization: me.bearer)
        #expect(account.status == 200 && account.json?["accountId"]?.stringValue == me.accountId)
    }

    /// A check that finds the store unavailable answers 503, which auth_request would make its own
    /// 500: the protect snippet gives the app's client 503 `upstream_unavailable` with the check's
    /// Retry-After instead, in JSON like the rest, and the app is never asked. The store is made
    /// unavailable by the door a restore closes (the same on both engines; `PostgresRestartTests`
    /// stops PostgreSQL itself). Any other failure of the check stays 500 `internal`.
    @Test func aCheckThatFindsTheStoreUnavailableIs503WithItsRetryAfter() throws {
        let w = try world()
        defer { w.stack.stop() }
        let me = try w.h.signedIn("g-unavailable")
        #expect(try get(w, "/app/whoami", me.bearer).status == 200)
        #expect(try get(w, "/app/proxied/x", me.bearer).status == 200)
        let asked = w.app.requests.count
        _ = try Door.close(w.h.databasePath, now: Clock.now())
        let phone = try get(w, "/auth/session", me.bearer)
        #expect(phone.status == 503 && phone.header("retry-after") == "60", "\(phone.status) \(phone.body)")
        for path in ["/app/whoami", "/app/proxied/x"] {
            let answer = try get(w, path, me.bearer)
            #expect(answer.status == 503, "\(path): \(answer.status) \(answer.body)")
            #expect(answer.json?["error"] == "upstream_unavailable", "\(path): \(answer.body)")
            #expect(answer.header("retry-after") == "60", "\(path): the check's own")
            #expect(answer.header("content-type") == "application/json")
            #expect(answer.header("cache-control") == "no-store")
            #expect(answer.header("x-frontdoor-account") == nil)
        }
        #expect(w.app.requests.count == asked)
        // Without a session nothing changes: nginx refuses it before any check.
        #expect(try get(w, "/app/whoami", nil).status == 401)
        try Door.open(w.h.databasePath)
        #expect(try get(w, "/app/whoami", me.bearer).json == .object([("account", .string(me.accountId))]))

        // The checks' own fcgiwrap gone: a failure of ours, auth_request's 500 in JSON, as before.
        let pid = try #require(FileIO.readFile(w.stack.varDir + "/fcgiwrap-checks.pid").flatMap {
            Int32(String(decoding: $0, as: UTF8.self).trimmingWhitespace())
        })
        #expect(kill(-pid, SIGKILL) == 0)
        let broken = try get(w, "/app/whoami", me.bearer)
        #expect(broken.status == 500 && broken.json?["error"] == "internal", "\(broken.status) \(broken.body)")
        #expect(broken.header("retry-after") == nil)
        #expect(w.app.requests.count == asked)
    }

    @Test func withoutTheCacheASignOutIsRefusedAtOnce() throws {
        let w = try world()
        defer { w.stack.stop() }
        let me = try w.h.signedIn("g-leaving")
        #expect(try get(w, "/app/whoami", me.bearer).status == 200)
        #expect(try get(w, "/app/proxied/x", me.bearer).status == 200)
        let out = try w.stack.post("/auth/sign-out", json: "{}", authorization: me.bearer)
        #expect(out.json == .object([("signedOut", true), ("ended", 1)]))
        #expect(try get(w, "/app/whoami", me.bearer).status == 401)
        #expect(try get(w, "/app/proxied/x", me.bearer).status == 401)
        let log = w.stack.errorLog()
        #expect(log.contains("endpoint=session status=200") && log.contains("endpoint=session status=401"))
        #expect(!w.stack.accessLog().contains("cache=HIT"))
        #expect(!log.contains(me.token))
    }

    /// The optional cache (2 s here): checks within it are answered by nginx, and a sign-out
    /// reaches the cached ones within that time. The bound asserted is ten times the cache's.
    @Test func withTheCacheASignOutIsRefusedWithinTheCacheTime() throws {
        let w = try world(["FRONTDOOR_SESSION_CACHE": "2s"])
        defer { w.stack.stop() }
        let me = try w.h.signedIn("g-cached")
        #expect(try get(w, "/app/whoami", me.bearer).json == .object([("account", .string(me.accountId))]))
        for _ in 0..<10 { #expect(try get(w, "/app/whoami", me.bearer).status == 200) }
        // The access log has the subrequests: some were answered from the cache.
        #expect(w.stack.accessLog().components("/_frontdoor/session cache=HIT") > 0, "\(w.stack.accessLog())")
        let out = try w.stack.post("/auth/sign-out", json: "{}", authorization: me.bearer)
        #expect(out.status == 200)
        let signedOut = Clock.monotonicMillis()
        var refusedAfter: Double?
        while Clock.monotonicMillis() - signedOut < 20_000 {
            if try get(w, "/app/whoami", me.bearer).status == 401 {
                refusedAfter = Clock.monotonicMillis() - signedOut
                break
            }
            usleep(50_000)
        }
        let after = try #require(refusedAfter, "a signed-out session still passed 20 s after a 2 s cache")
        print("ProtectIntegrationTests: with a 2 s cache, the sign-out was refused \(Int(after)) ms after it")
        #expect(try get(w, "/app/proxied/x", me.bearer).status == 401)
    }
}

extension String {
    /// How many times `needle` occurs (not overlapping).
    func components(_ needle: String) -> Int {
        var count = 0
        var rest = self[...]
        while let found = rest.firstRange(of: needle) {
            count += 1
            rest = rest[found.upperBound...]
        }
        return count
    }
}
