#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Testing
@testable import Shared

/// Issue 29: the client against a server that is not PostgreSQL's friend (`HostilePostgres`, on
/// loopback). It gets no password that `require_auth` does not allow, and cannot hold the client
/// past its own time-outs. Bounds are behavioural, each with a margin of ten.
@Suite struct PostgresHostileTests {
    static func url(_ server: HostilePostgres) throws -> PostgresURL {
        try PostgresURL.parse(server.uri(connectTimeout: 2))
    }

    /// The password leaves for SCRAM only: a server asking for it in the clear or as MD5 gets
    /// nothing (a TCP address can never allow the clear one).
    @Test(arguments: ["cleartext", "md5"])
    func aServerAskingForThePasswordGetsNothing(_ what: String) throws {
        let server = try HostilePostgres(what == "md5" ? .askMD5 : .askCleartext)
        defer { server.stop() }
        var url = try Self.url(server)
        for allowed: PostgresURL.Authentication in [.standard, [.scram, .none, .password]] where what == "md5" || allowed == .standard {
            url.authentication = allowed
            do {
                _ = try PostgresConnection(url)
                Issue.record("logged in")
            } catch {
                #expect(error.kind == .authentication && error.reason.contains("nothing was sent"), "\(error)")
            }
        }
        usleep(100_000)
        #expect(server.passwordMessages == 0)
    }

    /// A server that says nothing, dribbles an endless message, or stops half-way through one:
    /// the login gives up by `connect_timeout` (2 s here).
    @Test(arguments: ["silent", "trickle", "stallMidMessage"])
    func aServerThatStallsCannotHoldTheLogin(_ name: String) throws {
        let mode: HostilePostgres.Mode = name == "silent" ? .silent : name == "trickle" ? .trickle : .stallMidMessage
        let server = try HostilePostgres(mode)
        defer { server.stop() }
        let url = try Self.url(server)
        let started = Clock.monotonicMillis()
        do {
            _ = try PostgresConnection(url)
            Issue.record("logged in")
        } catch {
            #expect(error.kind == .timedOut, "\(error)")
        }
        #expect(Clock.monotonicMillis() - started < 20_000)
    }

    /// An absurd SCRAM iteration count is refused before any is computed, and the proof never goes.
    @Test func anAbsurdIterationCountIsRefusedAtOnce() throws {
        let server = try HostilePostgres(.scram(iterations: 10_000_000))
        defer { server.stop() }
        let error = try Self.refusedLogin(server)
        #expect(error?.kind == .authentication && error?.reason.contains("iteration count") == true, "\(String(describing: error))")
        usleep(100_000)
        #expect(server.passwordMessages == 1, "the first message only, never the proof")
    }

    /// Logged in, a statement answered with a trickle that never ends times out by `timeoutSeconds`.
    @Test func aTrickledAnswerTimesOut() throws {
        let server = try HostilePostgres(.trustThenTrickle)
        defer { server.stop() }
        let connection = try PostgresConnection(try Self.url(server), timeoutSeconds: 1)
        defer { connection.close() }
        let started = Clock.monotonicMillis()
        do {
            _ = try connection.query("SELECT 1")
            Issue.record("answered")
        } catch {
            #expect(error.kind == .timedOut, "\(error)")
        }
        #expect(Clock.monotonicMillis() - started < 10_000)
        #expect(throws: PostgresError.self) { try connection.query("SELECT 1") }
    }

    /// A server that floods the login with ParameterStatus messages (100,000 names) is refused as
    /// no PostgreSQL, before the client has kept more than a few dozen (the fourth review).
    @Test func aFloodOfServerParametersIsRefused() throws {
        let server = try HostilePostgres(.parameterFlood(count: 100_000))
        defer { server.stop() }
        let error = try Self.refusedLogin(server)
        #expect(error?.kind == .protocolViolation && error?.reason.contains("server parameters") == true,
                "\(String(describing: error))")
    }

    /// The error a login to `server` ends with; nil (and a recorded issue) when it logged in.
    static func refusedLogin(_ server: HostilePostgres) throws -> PostgresError? {
        let url = try url(server)
        do {
            _ = try PostgresConnection(url)
            Issue.record("logged in")
            return nil
        } catch {
            return error
        }
    }
}
