#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared

/// Real nginx and fcgiwrap on loopback, started by `scripts/dev-stack` exactly as `make run` does,
/// serving the built programs with the harness's config.
final class Stack {
    let harness: Harness
    let port: Int
    let varDir: String
    static let root: String = {
        let file = #filePath
        var parts = file.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    /// `environment`: dev-stack's switches (`FRONTDOOR_RATE_LIMIT=off`, `FRONTDOOR_FCGIWRAP_CHILDREN`).
    /// The stack runs as the test's own user (`FRONTDOOR_STACK_USER=root` when that is root): the
    /// harness writes the same store from the test's processes.
    /// `port`: where to listen (a free one by default), for a config that must name it first.
    init(_ harness: Harness, port: Int? = nil, environment: [String: String] = [:]) throws {
        self.harness = harness
        varDir = harness.dir + "/stack"
        self.port = try port ?? Stack.freePort()
        let result = try ChildProcess.run(
            "/bin/bash",
            arguments: [Stack.root + "/scripts/dev-stack", "start", varDir, String(self.port), Harness.binDir, harness.configPath],
            // fcgiwrap hands its environment on to the programs: the harness's clock of the limits.
            environment: ["FRONTDOOR_STACK_USER": "root", "FRONTDOOR_TEST_LIMITS_NOW": String(harness.limitsNow)]
                .merging(environment) { $1 }
                .merging(["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"]) { $1 },
            workDir: harness.dir)
        guard result.exitStatus == 0 else {
            throw HarnessError("dev-stack start failed (\(result.exitStatus)): \(result.stderrText)")
        }
    }

    deinit { stop() }

    func stop() {
        // The programs' stderr reached nginx's error log: into the record for the log scan.
        if let log = FileIO.readFile(varDir + "/nginx-error.log", limit: 64 << 20) { TestLogs.appendOutput(log) }
        _ = try? ChildProcess.run(
            "/bin/bash", arguments: [Stack.root + "/scripts/dev-stack", "stop", varDir],
            environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"], workDir: harness.dir)
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    func post(
        _ path: String, json: String, authorization: String? = nil, contentType: String = "application/json",
        headers extra: [(String, String)] = []
    ) throws -> HTTPResponse {
        // Through nginx too, what the request carried must never reach a log (scanned after make test).
        Harness.registerSecrets(of: Array(json.utf8), authorization: authorization)
        var headers = [("Content-Type", contentType)] + extra
        if let authorization { headers.append(("Authorization", authorization)) }
        return try CurlHTTPClient(totalTimeoutSeconds: 20).send(
            HTTPRequest(method: "POST", url: baseURL + path, headers: headers, body: Array(json.utf8)))
    }

    func request(_ method: String, _ path: String, body: [UInt8] = []) throws -> HTTPResponse {
        try CurlHTTPClient(totalTimeoutSeconds: 20).send(
            HTTPRequest(method: method, url: baseURL + path, headers: [("Content-Type", "application/json")], body: body))
    }

    /// One line a request, session checks (subrequests) included: `… $uri cache=HIT|MISS|-`.
    func accessLog() -> String {
        String(decoding: FileIO.readFile(varDir + "/nginx-access.log", limit: 64 << 20) ?? [], as: UTF8.self)
    }

    func errorLog() -> String {
        String(decoding: FileIO.readFile(varDir + "/nginx-error.log", limit: 64 << 20) ?? [], as: UTF8.self)
    }

    /// A loopback port that refuses every connection for as long as the value lives: bound, never
    /// listening, so no other test's server can take it meanwhile (a port `freePort` named may be).
    final class RefusingPort: @unchecked Sendable {
        let port: Int
        private let fd: Int32

        init() throws {
            let held = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard held >= 0 else { throw HarnessError("socket failed") }
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            addr.sin_port = 0
            var len = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(held, $0, len) }
            }
            let named = withUnsafeMutablePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(held, $0, &len) }
            }
            guard bound == 0, named == 0 else {
                close(held)
                throw HarnessError("bind or getsockname failed")
            }
            fd = held
            port = Int(UInt16(bigEndian: addr.sin_port))
        }

        var url: String { "http://127.0.0.1:\(port)" }

        deinit { close(fd) }
    }

    /// A port nothing listens on at this moment (the socket that named it is closed at once).
    static func freePort() throws -> Int {
        try RefusingPort().port
    }
}

extension HTTPResponse {
    var json: JSONValue? { try? JSONParser.parse(body) }
}
