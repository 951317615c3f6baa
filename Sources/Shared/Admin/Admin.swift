#if canImport(Glibc)
import Glibc
#endif

/// `frontdoor-admin` (rule 14): the operator's hands, run over ssh, never routed by nginx. Each
/// command prints one JSON object on stdout, and on failure a sentence on stderr too; the exit
/// status follows `sysexits.h` (`AdminError`). Each action leaves one syslog line (`AdminAudit`).
public enum Admin {
    public static let usage = """
        usage: frontdoor-admin [--config PATH] COMMAND
          find <email or accountId>       the account as stored, plus disabled and disabledAt
          export <accountId>              the person's own copy, exactly as `account get` answers it
          disable <accountId>             sign-ins answer 403 account_disabled; every session ends
          enable <accountId>              sign-ins work again
          sign-out <accountId>            every session of the account ends
          delete <accountId>              the person's own deletion (event, ledger line, audit)
          unlink <accountId> <provider>   removes its google or apple identity, never the last way in
          backup <directory> [--keep N]   a checked snapshot file (mode 0600); keeps the newest N
          restore <snapshot>              closes the door, puts the snapshot back, re-applies the
                                          ledger (deletions and every security action since), opens the door
          reapply-deletions <ledger>...   re-applies ledgers to a store put back by other means
          copy-to-postgres <sqlite file>  copies a one-box SQLite store into the config's empty
                                          PostgreSQL store (postgresUrl), in one transaction
          stats                           counts of accounts, sessions, waiting events, relay users
          risc register [--url URL]       registers the Cross-Account Protection stream with Google
                                          (google.risc.serviceAccountFile; URL: https://<host>/auth/google-risc)
          risc status | verify | disable  the stream as Google has it; a test event; stops it
        The config is PATH, else $AUTH_CONFIG, else /etc/frontdoor/config.json. Run it as the user
        the store belongs to (sudo -u www-data frontdoor-admin …).
        Exit status: 0 done, 64 usage, 66 no such account or file, 69 the store is unavailable or
        the action is refused, 70 anything else.
        """

    /// A command: how many operands it takes (nil: one or more), and whether it writes to the store.
    struct Command {
        let operands: Int?
        let writes: Bool
    }

    static let commands: [(String, Command)] = [
        ("find", Command(operands: 1, writes: false)), ("export", Command(operands: 1, writes: false)),
        ("disable", Command(operands: 1, writes: true)), ("enable", Command(operands: 1, writes: true)),
        ("sign-out", Command(operands: 1, writes: true)), ("delete", Command(operands: 1, writes: true)),
        ("unlink", Command(operands: 2, writes: true)), ("backup", Command(operands: 1, writes: false)),
        ("restore", Command(operands: 1, writes: false)), ("reapply-deletions", Command(operands: nil, writes: false)),
        ("stats", Command(operands: 0, writes: false)), ("risc", Command(operands: nil, writes: false)),
        // Not under the writers' ceiling: a big store takes longer than a request may; one transaction all the same.
        ("copy-to-postgres", Command(operands: 1, writes: false)),
    ]

    static let accountCommands = ["export", "disable", "enable", "sign-out", "delete", "unlink"]

    public static func main(_ arguments: [String]) -> Never {
        var rest = arguments
        if rest.contains("--help") || rest.contains("-h") {
            print(usage)
            exit(0)
        }
        let parsed: (configPath: String, name: String, command: Command, operands: [String], keep: Int?)
        do {
            parsed = try parse(&rest)
        } catch {
            fail(error, usageToo: true)
        }
        // `risc register` and the rest are audited as `risc-register`, ….
        let action = parsed.name == "risc" ? "risc-" + (parsed.operands.first ?? "") : parsed.name
        // The audit line's account: the one named, or the one `find` finds (never the address asked for).
        var accountId = accountCommands.contains(parsed.name) ? parsed.operands.first : nil
        do {
            let session = try AdminSession(configPath: parsed.configPath)
            if parsed.name != "restore" && parsed.name != "reapply-deletions" { try session.refuseWhileDoorClosed() }
            // Rule 9 for the commands that write: a restore waits out this ceiling before it moves
            // the store, so none can commit to the file it moves aside.
            if parsed.command.writes { Lifetime.start(seconds: session.config.processLifetimeSeconds) }
            var count: Int?
            let output = try run(parsed.name, parsed.operands, keep: parsed.keep, session: session, found: &accountId, count: &count)
            // PostgreSQL has no restore of ours, so no door to wait on.
            if parsed.command.writes, !session.config.usesPostgres {
                let permit = Door.AnswerPermit(databasePath: session.config.databasePath)
                guard !permit.closed else {
                    throw AdminError(
                        .unavailable, "A restore began while this ran: the change went to the store it replaces. "
                            + "Run it again once the restore is done.")
                }
                emit(output)
                permit.release()
            } else {
                emit(output)
            }
            AdminAudit.record(action: action, accountId: accountId, result: "ok", count: count)
            deliverEvents(session.config)
            exit(0)
        } catch {
            let failure = adminError(error)
            AdminAudit.record(action: action, accountId: accountId, result: failure.code)
            fail(failure, usageToo: false)
        }
    }

    static func run(
        _ name: String, _ operands: [String], keep: Int?, session: AdminSession, found: inout String?, count: inout Int?
    ) throws -> JSONValue {
        let first = operands.first ?? ""
        switch name {
        case "find":
            let (account, id) = try AccountAdmin.find(first, session: session)
            found = id
            return account
        case "export": return try AccountAdmin.export(first, session: session)
        case "disable": return try AccountAdmin.disable(first, session: session)
        case "enable": return try AccountAdmin.enable(first, session: session)
        case "sign-out": return try AccountAdmin.signOut(first, session: session)
        case "delete": return try AccountAdmin.delete(first, session: session)
        case "unlink": return try AccountAdmin.unlink(first, provider: operands.last ?? "", session: session)
        case "backup" where session.config.usesPostgres, "restore" where session.config.usesPostgres:
            throw AdminError(
                .usage, "\(name) is for the SQLite store. On PostgreSQL, back up and restore with PostgreSQL's own "
                    + "tools (base backups and WAL archiving), then run reapply-deletions over every box's ledger "
                    + "(docs/scaling.md).")
        case "backup": return try Backup.run(directory: first, keep: keep, session: session)
        case "restore":
            let output = try Restore.run(snapshot: first, session: session)
            count = output["deletionsReapplied"]?.int64Value.map { Int($0) }
            return output
        case "reapply-deletions":
            let outcome = try Reapply.run(ledgers: operands, context: try session.requestContext(), missingIsEmpty: false)
            count = outcome.reapplied
            return .object([("deletionsReapplied", .number(Double(outcome.reapplied)))] + outcome.json)
        case "copy-to-postgres":
            let output = try CopyToPostgres.run(source: first, session: session)
            count = output["rows"]?.int64Value.map { Int($0) }
            return output
        case "stats": return try AdminStats.run(session: session)
        case "risc": return try RISCAdmin.run(operands, session: session)
        default: throw AdminError(.usage, "Unknown command \(name).")
        }
    }

    /// The command line: `--config PATH` anywhere, the command, its operands, and `--keep N` for backup.
    static func parse(
        _ rest: inout [String]
    ) throws -> (configPath: String, name: String, command: Command, operands: [String], keep: Int?) {
        var configPath = getenv("AUTH_CONFIG").map { String(cString: $0) } ?? "/etc/frontdoor/config.json"
        if let i = rest.firstIndex(of: "--config") {
            guard i + 1 < rest.count else { throw AdminError(.usage, "--config needs a path.") }
            configPath = rest[i + 1]
            rest.removeSubrange(i...(i + 1))
        }
        guard let name = rest.first else { throw AdminError(.usage, "No command given.") }
        rest.removeFirst()
        guard let command = commands.first(where: { $0.0 == name })?.1 else {
            throw AdminError(.usage, "Unknown command \(name).")
        }
        var keep: Int?
        if name == "backup", let i = rest.firstIndex(of: "--keep") {
            guard i + 1 < rest.count, let n = Int(rest[i + 1]), n >= 1 else {
                throw AdminError(.usage, "--keep needs a whole number of backups, 1 or more.")
            }
            keep = n
            rest.removeSubrange(i...(i + 1))
        }
        // Anything else is an operand, whatever it starts with: an account id (base64url) may begin
        // with "-" or "--", and is 22 characters, so never one of the options above.
        if let wanted = command.operands, rest.count != wanted {
            throw AdminError(.usage, "\(name) takes \(wanted == 0 ? "no" : String(wanted)) operand\(wanted == 1 ? "" : "s"), got \(rest.count).")
        }
        if command.operands == nil && rest.isEmpty { throw AdminError(.usage, "\(name) takes one or more operands.") }
        if rest.contains(where: \.isEmpty) { throw AdminError(.usage, "An operand of \(name) is empty.") }
        if name == "risc", let sub = rest.first, !RISCAdmin.subcommands.contains(sub) {
            throw AdminError(.usage, "risc takes \(RISCAdmin.subcommands.joined(separator: ", ")), not \(sub).")
        }
        if name == "unlink", let provider = rest.last, !AccountAdmin.unlinkable.contains(provider) {
            throw AdminError(.usage, "unlink takes a provider of \(AccountAdmin.unlinkable.joined(separator: " or ")), not \(provider).")
        }
        return (configPath, name, command, rest, keep)
    }

    /// As an endpoint's process does after its answer: the events this run wrote (a deletion's
    /// `account.deleted`) go to the app now, within the ceiling of a command that writes.
    static func deliverEvents(_ config: Config) {
        guard Events.recordedInThisProcess, let events = config.events, !Door.isClosed(config.databasePath),
            let db = try? Database(config: config),
            let delivery = try? EventDelivery(settings: events, db: db, databasePath: config.databasePath)
        else { return }
        _ = delivery.run(.writer)
    }

    /// The one JSON object, written straight to stdout (not buffered: it is out before what follows).
    static func emit(_ value: JSONValue) {
        FileIO.writeAll(STDOUT_FILENO, Array((value.serialized + "\n").utf8))
    }

    static func adminError(_ error: any Error) -> AdminError {
        if let admin = error as? AdminError { return admin }
        if let shared = error as? FrontdoorError { return AdminError(shared) }
        return AdminError(.failed, "\(error)")
    }

    static func fail(_ error: any Error, usageToo: Bool) -> Never {
        let failure = adminError(error)
        emit(.object([("error", .string(failure.code)), ("message", .string(failure.message))]))
        let hint = usageToo && failure.kind == .usage ? " (frontdoor-admin --help lists the commands)" : ""
        FileIO.log("frontdoor-admin: " + failure.message + hint)
        exit(failure.exitStatus)
    }
}
