#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared
import Testing

/// DESIGN.md rule 20: every endpoint is held to openapi/openapi.json by schemathesis, through real
/// nginx and fcgiwrap with the development provider's fakes, on whichever store this pass runs
/// (make test runs EndpointTests on SQLite, then on PostgreSQL). openapi/fuzz.py checks the
/// document (openapi-spec-validator), runs every operation with schemathesis's default checks
/// (fuzz_hooks.py gives valid cases live tokens, tickets, codes and passkey ceremonies), prints the
/// answers per operation, and fails on any finding or on an operation that never answered 2xx.
/// Seeded: FRONTDOOR_SEED replays a run; FRONTDOOR_OPENAPI_EXAMPLES sets the cases per operation.
@Suite(.serialized) struct OpenAPIFuzzTests {
    /// The venv `make openapi-venv` fills from openapi/requirements.txt (FRONTDOOR_OPENAPI_PYTHON overrides).
    static var python: String {
        if let path = getenv("FRONTDOOR_OPENAPI_PYTHON").map({ String(cString: $0) }), !path.isEmpty { return path }
        return Stack.root + "/.build/openapi-venv/bin/python"
    }

    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The development config (`make run`'s) on this pass's store, with limits a fuzzer's few
    /// thousand requests from one address stay under (nginx's are off), and reset codes mailed at once.
    static func config(_ h: Harness, provider: PasskeyTourTests.DevProviderProcess) throws -> JSONValue {
        let postgres = h.postgres.map { ($0.url().description, h.ledgerPath, h.auditKeyPath) }
        let made = try DevProvider.config(
            databasePath: h.databasePath, providerURL: provider.url, smtpPort: provider.smtpPort,
            eventsSecretFile: h.dir + "/events-secret", siteURL: nil, postgres: postgres,
            passwordList: PasswordListFile.built)
        guard case .object(var members) = made else { throw HarnessError("the development config is no object") }
        let limits: [(String, JSONValue)] = [
            ("registrationsPerClientPerHour", 100_000), ("registrationsPerNetworkPerHour", 1_000_000),
            ("loginFailuresPerClient", 100_000), ("loginFailuresPerEmail", 1000),
            ("resetRequestsPerClientPerHour", 100_000), ("resetRequestsPerNetworkPerHour", 1_000_000),
            ("appleFailuresPerClientPerHour", 100_000), ("passkeyBeginsPerClientPerHour", 100_000),
            ("passkeyBeginsPerNetworkPerHour", 1_000_000), ("passkeyRegistrationsPerAccountPerHour", 10_000),
            ("mailIntervalSeconds", 1), ("mailPerEmailPerHour", 100), ("mailPerHour", 1_000_000),
            ("resetMailPerHour", 1_000_000), ("codeFailuresPerEmailPerDay", 10_000),
        ]
        members.append(("limits", .object(limits)))
        if let index = members.firstIndex(where: { $0.0 == "mail" }), case .object(var mail) = members[index].1 {
            mail.append(("resetDelaySeconds", 0))
            members[index].1 = .object(mail)
        }
        return .object(members)
    }

    @Test func everyOperationHoldsToTheDocument() throws {
        #expect(access(Self.python, X_OK) == 0, "no \(Self.python): make openapi-venv installs schemathesis (openapi/requirements.txt)")
        let h = try Harness()
        let provider = try PasskeyTourTests.DevProviderProcess(workDir: h.dir, arguments: ["--events-secret", h.dir + "/events-secret"])
        try h.writeText(h.configPath, try Self.config(h, provider: provider).serialized)
        let wellKnown = h.dir + "/well-known"
        #expect(mkdir(wellKnown, 0o755) == 0)
        let written = try ChildProcess.run(
            Harness.binDir + "/frontdoor-check", arguments: ["--print-association-files", "--config", h.configPath, "--out", wellKnown],
            environment: ["PATH": "/usr/bin:/bin"], workDir: h.dir)
        #expect(written.exitStatus == 0, "\(written.stdoutText)")
        let stack = try Stack(h, environment: ["FRONTDOOR_RATE_LIMIT": "off", "FRONTDOOR_WELL_KNOWN": wellKnown])
        defer { stack.stop() }

        var arguments = [Stack.root + "/openapi/fuzz.py", "--url", stack.baseURL, "--provider", provider.url, "--work", h.dir]
        arguments += ["--max-examples", Self.environment("FRONTDOOR_OPENAPI_EXAMPLES") ?? "15"]
        if let seed = Self.environment("FRONTDOOR_SEED") { arguments += ["--seed", seed] }
        let run = try ChildProcess.run(
            Self.python, arguments: arguments,
            environment: ["PATH": "/usr/bin:/bin", "HOME": h.dir, "PYTHONDONTWRITEBYTECODE": "1"], workDir: h.dir)
        print(run.stdoutText)
        if !run.stderrText.isEmpty { print(run.stderrText) }
        #expect(run.exitStatus == 0, "openapi/fuzz.py failed (exit \(run.exitStatus)): its output is above")
    }
}
