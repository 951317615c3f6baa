@testable import Shared
import Testing

/// `postgresUrl` in the libpq URI forms frontdoor reads, and a clear refusal naming what it does not.
@Suite struct PostgresURLTests {
    @Test func readsDesignsExample() throws {
        let url = try PostgresURL.parse("postgresql://frontdoor@/frontdoor?host=/run/pgbouncer&port=6432")
        #expect(url.address == .unixSocket(directory: "/run/pgbouncer", port: 6432))
        #expect(url.socketPath == "/run/pgbouncer/.s.PGSQL.6432")
        #expect(url.user == "frontdoor")
        #expect(url.password == nil)
        #expect(url.database == "frontdoor")
        #expect(url.connectTimeoutSeconds == PostgresURL.defaultConnectTimeoutSeconds)
        #expect(url.applicationName == nil)
    }

    @Test func readsEveryPartAndParameter() throws {
        let url = try PostgresURL.parse(
            "postgres://ad%40min:p%40ss:w%3Frd@localhost:5433/my%20db?connect_timeout=7&application_name=frontdoor%20box&sslmode=disable")
        #expect(url.address == .tcp(host: "127.0.0.1", port: 5433))
        #expect(url.user == "ad@min")
        #expect(url.password == "p@ss:w?rd")
        #expect(url.database == "my db")
        #expect(url.connectTimeoutSeconds == 7)
        #expect(url.applicationName == "frontdoor box")
    }

    @Test func readsPercentEncodedSocketDirectoryAndDefaults() throws {
        let url = try PostgresURL.parse("postgresql://app@%2Fvar%2Frun%2Fpostgresql%2F")
        #expect(url.address == .unixSocket(directory: "/var/run/postgresql", port: 5432))
        #expect(url.database == "app")
        let bare = try PostgresURL.parse("postgresql://app@")
        #expect(bare.address == .unixSocket(directory: PostgresURL.defaultSocketDirectory, port: 5432))
        let slash = try PostgresURL.parse("postgresql://app@/")
        #expect(slash.database == "app")
    }

    @Test func parametersWinOverTheParts() throws {
        let url = try PostgresURL.parse("postgresql://a:x@/one?user=b&password=y&dbname=two&host=/tmp&port=7000")
        #expect(url.user == "b")
        #expect(url.password == "y")
        #expect(url.database == "two")
        #expect(url.address == .unixSocket(directory: "/tmp", port: 7000))
    }

    @Test func readsLoopbackAddresses() throws {
        #expect(try PostgresURL.parse("postgresql://u@[::1]:6000/d").address == .tcp(host: "::1", port: 6000))
        #expect(try PostgresURL.parse("postgresql://u@127.0.0.2/d").address == .tcp(host: "127.0.0.2", port: 5432))
        #expect(try PostgresURL.parse("postgresql://u@/d?host=::1").address == .tcp(host: "::1", port: 5432))
    }

    @Test func connectTimeoutHasLibpqsFloorOfTwoSeconds() throws {
        #expect(try PostgresURL.parse("postgresql://u@/d?connect_timeout=1").connectTimeoutSeconds == 2)
    }

    @Test(arguments: [
        ("frontdoor@/frontdoor", "must start with postgresql://"),
        ("host=/run/pgbouncer user=frontdoor", "must start with postgresql://"),
        ("postgresql:///frontdoor?host=/run/pgbouncer", "user: required"),
        ("postgresql://u@/d?sslmode=require", "sslmode=require: TLS is not supported"),
        ("postgresql://u@/d?sslmode=verify-full", "sslmode=verify-full: TLS is not supported"),
        ("postgresql://u@/d?sslrootcert=/etc/ca.pem", "sslrootcert: not a parameter frontdoor reads"),
        ("postgresql://u@/d?options=-c%20search_path%3Dx", "options: not a parameter frontdoor reads"),
        ("postgresql://u@/d?target_session_attrs=read-write", "target_session_attrs: not a parameter"),
        ("postgresql://u@/d?hostaddr=127.0.0.1", "hostaddr: not a parameter"),
        ("postgresql://u@db.example.com/d", "host: a socket directory or a loopback address"),
        ("postgresql://u@10.0.0.5:5432/d", "host: a socket directory or a loopback address"),
        ("postgresql://u@/d?host=@abstract", "host: a socket directory or a loopback address"),
        ("postgresql://u@a,b/d", "host: one host only"),
        ("postgresql://u@/d?port=0", "port: not a port number"),
        ("postgresql://u@/d?port=70000", "port: not a port number"),
        ("postgresql://u@/d?port=54x", "port: not a port number"),
        ("postgresql://u@/d?port=+5432", "port: not a port number"),
        ("postgresql://u@/d?connect_timeout=0", "connect_timeout: seconds from 1 to 600"),
        ("postgresql://u@/d?connect_timeout=-1", "connect_timeout: seconds from 1 to 600"),
        ("postgresql://u@/d?connect_timeout=soon", "connect_timeout: seconds from 1 to 600"),
        ("postgresql://u@/d?port=1&port=2", "port: given twice"),
        ("postgresql://u@/d?port", "a parameter without a value"),
        ("postgresql://u@/d%zz", "dbname: a % not followed by two hex digits"),
        ("postgresql://u%00x@/d", "user: holds a NUL byte"),
        ("postgresql://u@/d%FF", "dbname: not UTF-8"),
        ("postgresql://u@[::1/d", "host: an unclosed ["),
        ("postgresql://u@/d?application_name=" + String(repeating: "a", count: 64), "application_name: at most 63 bytes"),
        ("postgresql://u@/d?host=/" + String(repeating: "d", count: 100), "socket path is longer than 107 bytes"),
        ("postgresql://u@127.0.0.1/d?require_auth=password", "the password in the clear only over a unix socket"),
        ("postgresql://u@/d?require_auth=md5", "require_auth=md5: not accepted"),
        ("postgresql://u@/d?require_auth=scram-sha-256,md5", "require_auth=md5: not accepted"),
        ("postgresql://u@/d?require_auth=!password", "!password is not one of"),
        ("postgresql://u@/d?require_auth=gss", "gss is not one of"),
        ("postgresql://u@/d?require_auth=", " is not one of"),
    ])
    func refusesWhatItDoesNotRead(_ text: String, _ reason: String) {
        #expect {
            try PostgresURL.parse(text)
        } throws: { error in
            guard let error = error as? ConfigError else { return false }
            return error.key == "postgresUrl" && error.reason.contains(reason)
        }
    }

    @Test func thePasswordAppearsInNoErrorAndNoDescription() throws {
        let url = try PostgresURL.parse("postgresql://u:hunter2secret@/d?host=/run/pgbouncer&port=6432")
        #expect(url.description == "postgresql://u:***@/d?host=/run/pgbouncer&port=6432")
        #expect(!url.description.contains("hunter2secret"))
        do {
            _ = try PostgresURL.parse("postgresql://u:hunter2%zzsecret@/d")
            Issue.record("a bad escape in the password was read")
        } catch {
            #expect(error.reason.contains("password"))
            #expect(!error.description.contains("hunter2"))
        }
    }

    /// Issue 29: by default SCRAM or no password at all; the password in the clear only when named,
    /// and only over a unix socket.
    @Test func requireAuthListsWhatTheClientAccepts() throws {
        #expect(try PostgresURL.parse("postgresql://u@/d").authentication == [.scram, .none])
        #expect(try PostgresURL.parse("postgresql://u@127.0.0.1/d").authentication == [.scram, .none])
        let clear = try PostgresURL.parse("postgresql://u@/d?host=/run/pg&require_auth=password")
        #expect(clear.authentication == [.password])
        #expect(clear.description == "postgresql://u@/d?host=/run/pg&port=5432&require_auth=password")
        #expect(try PostgresURL.parse("postgresql://u@/d?require_auth=scram-sha-256").authentication == [.scram])
        #expect(try PostgresURL.parse("postgresql://u@/d?require_auth=none,password,scram-sha-256").authentication
            == [.scram, .none, .password])
        #expect(try PostgresURL.parse("postgresql://u@[::1]/d?require_auth=none").description
            == "postgresql://u@[::1]:5432/d?require_auth=none")
    }

    @Test func describesTCPWithoutSocketParameters() throws {
        let url = try PostgresURL.parse("postgresql://u@[::1]:6000/my%20db")
        #expect(url.description == "postgresql://u@[::1]:6000/my%20db")
        #expect(url.database("pgbouncer").database == "pgbouncer")
    }
}
