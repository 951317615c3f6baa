#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared

// The development identity provider for `make run`: Google's key endpoint on loopback, a page
// that mints development tokens, and a mail sink for codes (127.0.0.1:8025). Never deployed.

func option(_ name: String, in arguments: [String]) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}

func fail(_ message: String) -> Never {
    FileIO.log("frontdoor-dev: \(message)")
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "serve":
    let port = option("--port", in: arguments).flatMap(Int.init) ?? 8081
    let smtpPort = option("--smtp-port", in: arguments).flatMap(Int.init) ?? DevProvider.smtpPort
    do {
        try DevProvider.serve(port: port, smtpPort: smtpPort, eventsSecretFile: option("--events-secret", in: arguments))
    } catch {
        fail("cannot serve on port \(port) (mail on \(smtpPort)): \(error)")
    }
case "config":
    guard let database = option("--database", in: arguments), let provider = option("--provider", in: arguments) else {
        fail("usage: frontdoor-dev config --database PATH --provider URL [--smtp-port N] [--events-secret FILE] [--site URL]"
            + " [--postgres-url URL --ledger FILE --audit-key FILE] [--password-list FILE]")
    }
    var postgres: (url: String, ledgerFile: String, auditKeyFile: String)? = nil
    if let url = option("--postgres-url", in: arguments) {
        guard let ledger = option("--ledger", in: arguments), let auditKey = option("--audit-key", in: arguments) else {
            fail("config: --postgres-url needs --ledger FILE and --audit-key FILE")
        }
        postgres = (url, ledger, auditKey)
    }
    do {
        let config = try DevProvider.config(
            databasePath: database, providerURL: provider,
            smtpPort: option("--smtp-port", in: arguments).flatMap(Int.init) ?? DevProvider.smtpPort,
            eventsSecretFile: option("--events-secret", in: arguments), siteURL: option("--site", in: arguments),
            postgres: postgres, passwordList: option("--password-list", in: arguments))
        print(config.serialized)
    } catch {
        fail("config: \(error)")
    }
case "hint-cost":
    guard let database = option("--database", in: arguments) else { fail("usage: frontdoor-dev hint-cost --database PATH") }
    do {
        let f = try HintCost.measure(databasePath: database)
        // One line for scripts/bench: microseconds, medians.
        let figures = [f.statMissing, f.statPresent, f.selectPrepared, f.selectFirst, f.open]
        print(figures.map { Endpoint.formatMillis($0, digits: 2) }.joined(separator: " "))
    } catch {
        fail("hint-cost: \(error)")
    }
case "password-cost":
    guard let list = option("--list", in: arguments) else { fail("usage: frontdoor-dev password-cost --list PATH") }
    do {
        let f = try PasswordCost.measure(listPath: list)
        // One line for scripts/bench: µs, µs, ms, faults, and the check's share of the hash in %.
        print([Endpoint.formatMillis(f.openAndLookUp, digits: 1), Endpoint.formatMillis(f.check, digits: 1),
               Endpoint.formatMillis(f.hash, digits: 1), Endpoint.formatMillis(f.faults, digits: 0),
               Endpoint.formatMillis(f.check / (f.hash * 1000) * 100, digits: 3)].joined(separator: " "))
    } catch {
        fail("password-cost: \(error)")
    }
case "outbox-cost":
    guard let database = option("--database", in: arguments) else {
        fail("usage: frontdoor-dev outbox-cost --database PATH [--events N]")
    }
    do {
        let f = try OutboxCost.measure(
            databasePath: database, events: option("--events", in: arguments).flatMap(Int.init) ?? 200_000)
        // One line for scripts/bench: events, then milliseconds, medians.
        let figures = [f.nextDue, f.nextAttemptAt, f.expired, f.failingRun, f.deliveringRun, f.hint]
        print("\(f.events) " + figures.map { Endpoint.formatMillis($0, digits: 3) }.joined(separator: " "))
    } catch {
        fail("outbox-cost: \(error)")
    }
case "wal-stress":
    guard let database = option("--database", in: arguments), let writer = option("--writer", in: arguments),
        let commits = option("--commits", in: arguments).flatMap(Int.init),
        let seed = option("--seed", in: arguments).flatMap(UInt64.init)
    else { fail("usage: frontdoor-dev wal-stress --database PATH --writer NAME --commits N --seed N") }
    do {
        try WALStress.run(databasePath: database, writer: writer, commits: commits, seed: seed)
    } catch {
        fail("wal-stress: \(error.detail ?? error.message)")
    }
case "usage":
    let port = option("--port", in: arguments) ?? "8080"
    let provider = option("--provider", in: arguments) ?? "http://127.0.0.1:8081"
    print(DevProvider.usage(port: port, providerURL: provider))
default:
    fail(
        "usage: frontdoor-dev serve --port N [--smtp-port N] [--events-secret FILE] "
            + "| config --database PATH --provider URL [--smtp-port N] [--events-secret FILE] [--site URL] "
            + "| usage --port N --provider URL | hint-cost --database PATH | outbox-cost --database PATH [--events N] "
            + "| wal-stress --database PATH --writer NAME --commits N --seed N")
}
