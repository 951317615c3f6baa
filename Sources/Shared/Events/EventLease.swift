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

    /// An owner token: the process id (so a dead holder can be told from a live one) and random bytes.
    static func newOwner() throws(FrontdoorError) -> String {
        "\(getpid()):" + Hex.encode(try SecureRandom.bytes(8))
    }

    /// Whether the lease's holder is certainly gone: no process has its id (the store is on this
    /// box, so its processes are ours to ask). A killed deliverer then holds nothing up; a reused
    /// id only makes the lease run its course.
    static func holderIsGone(_ owner: String) -> Bool {
        guard let pid = owner.split(separator: ":").first.flatMap({ Int32($0) }), pid > 0, pid != getpid() else {
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
