#if canImport(Glibc)
import Glibc
#endif
import Shared

// The operator's self-check (never routed by nginx). See `frontdoor-check --help`.

let usage = """
    usage: frontdoor-check [--config PATH] [--hosts FILE] [--routes ipv4=yes|no,ipv6=yes|no] [--timeout SECONDS]
                           [--nginx DIR]
           frontdoor-check --prune [--config PATH]
           frontdoor-check --forget-relay-users [--config PATH]
           frontdoor-check --deliver [--retry-now] [--config PATH]
           frontdoor-check --print-association-files [--out DIR] [--config PATH]
           frontdoor-check --print-kit-files [--out DIR] [--config PATH]
           frontdoor-check --settle FILE...
    The config is PATH, else $AUTH_CONFIG, else /etc/frontdoor/config.json.
    --nginx is nginx's configuration folder (default /etc/nginx): with snippets/frontdoor-protect.conf
    installed, some file there must define its internal session-check location, the snippet must
    include the install's proof, and no location under a protected one may pass to the app without
    the snippet (a nested location with its own headers or parameters, a named location reached
    by try_files or error_page, a plain prefix location a regex location can win over).
    --hosts answers name lookups from FILE (lines: host A|AAAA address) instead of DNS;
    --routes says which routes this host has instead of asking the kernel.
    --forget-relay-users drops the records of relay users past the deletion window once they
    have been removed in the Firebase console (Authentication, Users), and prints their uids.
    With firebase.serviceAccountFile each uid is looked up first and only those Firebase no
    longer has are dropped; those the Admin API is still deleting are kept.
    --prune removes expired rows; --deliver sends every account event that is due to events.url
    (even while the receiver rests after a failure), oldest first, stopping at the first failure
    of the receiver (an event it refuses with a 4xx waits for its own retry, and the rest go on);
    with --retry-now, events waiting for their next retry are due at once (the receiver is back).
    --print-association-files prints the files the passkeys.rpId domain must serve under
    /.well-known/ (apple-app-site-association from passkeys.iosAppIds, assetlinks.json from
    passkeys.androidApps); with --out it writes them into DIR instead (make install does, for
    nginx) and removes one the config no longer gives. The self-check fetches the live files
    from passkeys.siteUrl and names where they differ from the config.
    --print-kit-files prints what nginx serves beside the web kit (/auth/kit/): config.json, the
    sign-in page's configuration from the config's provider and kit sections (public ids and
    script URLs only), and headers.conf, the kit's headers with its Content-Security-Policy; with
    --out it writes them into DIR (make install does). A config that does not load still gets
    both files, without providers or passkeys, and the exit status 1.
    --settle drops each FILE from the page cache and reads it back in large pieces, which makes
    every exec of a release program cheaper (fcgiwrap's drop-in runs it before its pool starts);
    it prints only what fails.
    Exit status: 0 when every check passed, 1 when one failed, 2 for a usage error.
    """

/// The command line, consumed option by option; whatever is left over is a usage error.
struct Arguments {
    var rest: [String]

    mutating func take(_ name: String) -> String? {
        guard let i = rest.firstIndex(of: name) else { return nil }
        guard i + 1 < rest.count else {
            print(usage)
            exit(2)
        }
        let value = rest[i + 1]
        rest.removeSubrange(i...(i + 1))
        return value
    }

    mutating func flag(_ name: String) -> Bool {
        guard let i = rest.firstIndex(of: name) else { return false }
        rest.remove(at: i)
        return true
    }
}

var arguments = Arguments(rest: Array(CommandLine.arguments.dropFirst()))
if arguments.flag("--help") || arguments.flag("-h") {
    print(usage)
    exit(0)
}
if arguments.rest.first == "--settle" {
    let files = arguments.rest.dropFirst()
    guard !files.isEmpty else {
        print(usage)
        exit(2)
    }
    var status: Int32 = 0
    for file in files {
        do throws(PageCache.Failure) {
            try PageCache.settle(path: file)
        } catch {
            print("✗ \(file) \(error)")
            status = 1
        }
    }
    exit(status)
}
let configPath = arguments.take("--config") ?? getenv("AUTH_CONFIG").map { String(cString: $0) } ?? "/etc/frontdoor/config.json"
let hostsFile = arguments.take("--hosts")
let routesText = arguments.take("--routes")
let timeout = arguments.take("--timeout").flatMap(Double.init) ?? 5
let nginxDirectory = arguments.take("--nginx") ?? "/etc/nginx"
let prune = arguments.flag("--prune")
let forgetRelayUsers = arguments.flag("--forget-relay-users")
let deliver = arguments.flag("--deliver")
let retryNow = arguments.flag("--retry-now")
let printAssociationFiles = arguments.flag("--print-association-files")
let printKitFiles = arguments.flag("--print-kit-files")
let associationDirectory = arguments.take("--out")
guard arguments.rest.isEmpty, associationDirectory == nil || printAssociationFiles || printKitFiles,
    !(printAssociationFiles && printKitFiles)
else {
    print(usage)
    exit(2)
}

/// The config for --prune, --deliver and --forget-relay-users, which write to the store: never
/// while a restore holds the door closed (their writes could land in the file it moves aside).
func writableConfig() throws -> Config {
    let config = try Config.load(environment: ["AUTH_CONFIG": configPath])
    if let closed = Door.closedAt(config.databasePath) {
        print("✗ " + SelfCheck.doorClosedText(config.databasePath, since: closed))
        exit(1)
    }
    return config
}

if printAssociationFiles {
    do {
        let config = try Config.load(environment: ["AUTH_CONFIG": configPath])
        if let associationDirectory {
            for line in try AssociationFilesCommand.write(config, to: associationDirectory) { print("✓ " + line) }
        } else {
            print(AssociationFilesCommand.text(config), terminator: "")
        }
        exit(0)
    } catch let error as ConfigError {
        print("✗ config \(configPath): \(error)")
    } catch let error as FrontdoorError {
        print("✗ association files: \(error.detail ?? error.message)")
    } catch {
        print("✗ association files: \(error)")
    }
    exit(1)
}

if printKitFiles {
    var config: Config? = nil
    var status: Int32 = 0
    do {
        config = try Config.load(environment: ["AUTH_CONFIG": configPath])
    } catch {
        // The page and nginx still get their files (strict, no provider), so nginx starts.
        print("✗ config \(configPath): \(error): the kit's files name no provider")
        status = 1
    }
    do {
        if let directory = associationDirectory {
            for line in try KitFilesCommand.write(config, source: configPath, to: directory) { print("✓ " + line) }
        } else if let config {
            print(KitFilesCommand.text(config, source: configPath), terminator: "")
        }
    } catch {
        print("✗ kit files: \(error.detail ?? error.message)")
        status = 1
    }
    exit(status)
}

if prune {
    do {
        let config = try writableConfig()
        let db = try Database(config: config)
        var total: [String: Int] = [:]
        // Bounded batches, so a huge backlog never holds the write lock for long.
        while true {
            let removed = try db.transaction { () throws(FrontdoorError) in try Housekeeping.prune(db, now: Clock.now(), limit: 500) }
            for (table, count) in removed { total[table, default: 0] += count }
            if removed.allSatisfy({ $0.1 == 0 }) { break }
        }
        total["account_views"] = try db.transaction { () throws(FrontdoorError) in try Housekeeping.pruneViews(db) }
        if Database.isCheckpointOwed(config.databasePath) { db.payOwedCheckpoint() } else { try? db.checkpoint() }
        print("✓ pruned expired rows: " + total.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        exit(0)
    } catch let error as ConfigError {
        print("✗ config \(configPath): \(error)")
    } catch let error as FrontdoorError {
        print("✗ prune: \(error.detail ?? error.message)")
    } catch {
        print("✗ prune: \(error)")
    }
    exit(1)
}

if forgetRelayUsers {
    do {
        let config = try writableConfig()
        let done = try SelfCheckRelay.forgetPastWindow(config)
        for line in SelfCheckRelay.lines(done) { print(line) }
        exit(done.ok ? 0 : 1)
    } catch let error as ConfigError {
        print("✗ config \(configPath): \(error)")
    } catch let error as FrontdoorError {
        print("✗ forget-relay-users: \(error.detail ?? error.message)")
    } catch {
        print("✗ forget-relay-users: \(error)")
    }
    exit(1)
}

if deliver {
    do {
        let config = try writableConfig()
        guard let events = config.events else {
            print("✗ deliver: events is not configured in \(configPath)")
            exit(1)
        }
        let db = try Database(config: config)
        if retryNow { try EventBacklog.retryNow(db, now: Clock.now()) }
        let delivery = try EventDelivery(settings: events, db: db, databasePath: config.databasePath)
        var report = delivery.run(.operator)
        // A request's process is delivering (or was killed doing it): its lease ends within one attempt.
        if let busy = report.busyUntil {
            sleep(UInt32(clamping: max(0, busy - Clock.now()) + 1))
            report = delivery.run(.operator)
        }
        let now = Clock.now()
        let backlog = try EventBacklog.read(db)
        var line = "delivered \(report.delivered)"
        if report.dropped > 0 { line += ", dropped \(report.dropped) past events.retainSeconds (see syslog)" }
        if report.refused > 0 {
            line += ", refused \(report.refused) (last: \(report.refusal ?? "-")), each retried later on its own"
        }
        if let failure = report.failure { line += ", then stopped: \(failure)" }
        if report.busyUntil != nil { line += "; another process is delivering" }
        line += "; \(backlog.summary(now: now))"
        let clean = report.failure == nil && report.dropped == 0 && report.refused == 0
        print((clean ? "✓ events: " : "✗ events: ") + line)
        exit(clean ? 0 : 1)
    } catch let error as ConfigError {
        print("✗ config \(configPath): \(error)")
    } catch let error as FrontdoorError {
        print("✗ deliver: \(error.detail ?? error.message)")
    } catch {
        print("✗ deliver: \(error)")
    }
    exit(1)
}

let resolver: NameResolver
if let hostsFile {
    guard let bytes = FileIO.readFile(hostsFile) else {
        print("✗ --hosts \(hostsFile): cannot be read")
        exit(2)
    }
    resolver = FileResolver(text: String(decoding: bytes, as: UTF8.self))
} else {
    resolver = SystemResolver()
}
let routes: Routes
if let routesText {
    guard let parsed = Routes.parse(routesText) else {
        print(usage)
        exit(2)
    }
    routes = parsed
} else {
    routes = Routes.probe()
}
var check = SelfCheck(
    configPath: configPath, resolver: resolver, routes: routes, timeoutSeconds: timeout, nginxDirectory: nginxDirectory)
let findings = check.run { print($0.line) }
let failed = findings.filter { !$0.ok }.count
print(failed == 0 ? "frontdoor-check: all \(findings.count) checks passed" : "frontdoor-check: \(failed) of \(findings.count) checks failed")
exit(failed == 0 ? 0 : 1)
