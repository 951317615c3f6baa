#if canImport(Glibc)
import Glibc
#endif

/// The one-row table `event_delivery`: which process is delivering (a lease it renews before each
/// attempt, so a killed deliverer holds it for one attempt's time at most) and until when the
/// receiver is left alone after a failure. One deliverer at a time keeps the receiver from seeing
/// the same event from two processes at once and lets "stop at the first failure" hold for all.
enum EventLease {
    struct State {
        var owner: String?
        var leaseUntil: UnixTime
        var pausedUntil: UnixTime
    }

    /// An owner token: the process id (so a dead holder can be told from a live one), random
    /// bytes, and the box's host name (on PostgreSQL the holder may be a process of another box).
    static func newOwner() throws(FrontdoorError) -> String {
        "\(getpid()):" + Hex.encode(try SecureRandom.bytes(8)) + "@" + hostName
    }

    /// This box's name (`gethostname`), as the lease names it.
    static let hostName: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// Whether the lease's holder is certainly gone: a process of this box (the lease names the
    /// host) that no longer exists. A killed deliverer then holds nothing up; a reused id, or a
    /// holder on another box, only makes the lease run its course.
    static func holderIsGone(_ owner: String) -> Bool {
        let parts = owner.split(separator: "@", maxSplits: 1)
        guard parts.count == 2, parts[1] == hostName[...] else { return false }
        guard let pid = parts[0].split(separator: ":").first.flatMap({ Int32($0) }), pid > 0, pid != getpid() else {
            return false
        }
        return kill(pid, 0) != 0 && errno == ESRCH
    }

    static func read(_ db: Database) throws(FrontdoorError) -> State {
        let row = try db.query("SELECT owner, lease_until, paused_until FROM event_delivery WHERE id = 1").first
        return State(owner: row?.text(0), leaseUntil: row?.int(1) ?? 0, pausedUntil: row?.int(2) ?? 0)
    }

    static func take(owner: String, until: UnixTime, _ db: Database) throws(FrontdoorError) {
        try db.run("UPDATE event_delivery SET owner = ?, lease_until = ? WHERE id = 1", [.text(owner), .integer(until)])
    }

    /// False when the lease is no longer `owner`'s (it ran out and another process took it).
    static func renew(owner: String, until: UnixTime, _ db: Database) throws(FrontdoorError) -> Bool {
        try db.run(
            "UPDATE event_delivery SET lease_until = ? WHERE id = 1 AND owner = ?", [.integer(until), .text(owner)]) == 1
    }

    static func release(owner: String, _ db: Database) throws(FrontdoorError) {
        try db.run(
            "UPDATE event_delivery SET owner = NULL, lease_until = 0 WHERE id = 1 AND owner = ?", [.text(owner)])
    }

    static func pause(until: UnixTime, _ db: Database) throws(FrontdoorError) {
        try db.run("UPDATE event_delivery SET paused_until = max(paused_until, ?) WHERE id = 1", [.integer(until)])
    }
}
