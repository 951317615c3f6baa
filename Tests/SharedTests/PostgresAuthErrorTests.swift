@testable import Shared
import Testing

/// The password methods against published vectors, and what an error says and answers.
@Suite struct PostgresAuthErrorTests {
    /// RFC 7677, section 3: user "user", password "pencil".
    @Test func scramMatchesRFC7677() throws {
        var client = SCRAMClient(password: "pencil", nonce: "rOprNGfwEbeRWgbNEkqO", user: "user")
        #expect(client.initialResponse == Array("n,,n=user,r=rOprNGfwEbeRWgbNEkqO".utf8))
        let serverFirst = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
        let final = try client.finalResponse(serverFirst: Array(serverFirst.utf8))
        #expect(String(decoding: final, as: UTF8.self)
            == "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
        try client.verify(serverFinal: Array("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=".utf8))
        #expect(throws: PostgresError.self) {
            try client.verify(serverFinal: Array("v=7rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=".utf8))
        }
        #expect(throws: PostgresError.self) { try client.verify(serverFinal: Array("e=invalid-proof".utf8)) }
    }

    @Test(arguments: [
        "r=someoneelse,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
        "r=abc,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
        "r=abcdef,s=,i=4096",
        "r=abcdef,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=0",
        "r=abcdef,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=99999999",
        "r=abcdef,s=W22ZaJ0SNY7soEsUEjb6gQ==",
        "m=ext,r=abcdef,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
        "garbage",
    ])
    func scramRefusesABadServerFirstMessage(_ text: String) {
        var client = SCRAMClient(password: "pencil", nonce: "abc", user: "")
        #expect(throws: PostgresError.self) { try client.finalResponse(serverFirst: Array(text.utf8)) }
    }

    @Test func scramRefusesAPasswordItCannotPrepare() {
        #expect(throws: PostgresError.self) { try SCRAMClient(password: "pässword") }
        #expect(throws: Never.self) { try SCRAMClient(password: "tab\there") }
    }

    /// A server may ask for any count; past `maxIterations` the client refuses before computing
    /// one (10,000,000 took 5.5 s of CPU that no deadline interrupts).
    @Test func scramRefusesAnIterationCountPastItsBound() throws {
        var client = SCRAMClient(password: "pencil", nonce: "abc", user: "")
        for count in [SCRAMClient.maxIterations + 1, 10_000_000, Int(Int32.max)] {
            let started = Clock.monotonicMillis()
            #expect(throws: PostgresError.self) {
                _ = try client.finalResponse(serverFirst: Array("r=abcdef,s=c2FsdA==,i=\(count)".utf8))
            }
            #expect(Clock.monotonicMillis() - started < 10_000)
        }
        #expect(throws: Never.self) {
            _ = try client.finalResponse(serverFirst: Array("r=abcdef,s=c2FsdA==,i=\(SCRAMClient.maxIterations)".utf8))
        }
    }

    @Test func base64RoundTripsWithPadding() {
        for count in 0...7 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 * 73 + 251) }
            let text = SCRAMClient.base64(bytes)
            #expect(text.count % 4 == 0)
            #expect(SCRAMClient.unbase64(text) == bytes)
        }
        #expect(SCRAMClient.unbase64("ab-_") == nil)
    }

    static func serverError(_ code: String, severity: String = "ERROR", message: String = "m") -> PostgresError {
        PostgresError(server: ErrorFields([
            (UInt8(ascii: "S"), severity), (UInt8(ascii: "V"), severity), (UInt8(ascii: "C"), code),
            (UInt8(ascii: "M"), message), (UInt8(ascii: "D"), "Key (email)=(ada@example.com) already exists."),
        ]))
    }

    @Test(arguments: [
        ("40001", true, 503), ("40P01", true, 503), ("08P01", false, 503), ("08006", false, 503), ("57P01", false, 503),
        ("57P02", false, 503), ("57P03", false, 503), ("53300", false, 503), ("57014", false, 503), ("55P03", false, 503),
        ("25006", false, 503), ("23505", false, 500), ("42601", false, 500), ("22P02", false, 500), ("28P01", false, 500),
        ("3D000", false, 500), ("XX000", false, 500),
    ])
    func mapsSQLStateToRetryAndStatus(_ code: String, _ retryable: Bool, _ status: Int) {
        let error = Self.serverError(code)
        #expect(error.kind == .server)
        #expect(error.sqlstate == code)
        #expect(error.isRetryable == retryable)
        #expect(error.isSerializationFailure == (code == "40001"))
        #expect(error.isDeadlock == (code == "40P01"))
        #expect(error.frontdoorError.status == status)
    }

    @Test func connectionTroubleIsUnavailableAndFaultsAreInternal() {
        for kind in [PostgresError.Kind.connectFailed, .connectionLost, .timedOut] {
            #expect(PostgresError(kind, "x").frontdoorError.status == 503)
            #expect(PostgresError(kind, "x").frontdoorError.retryAfterSeconds == 1)
        }
        for kind in [PostgresError.Kind.protocolViolation, .authentication, .misuse] {
            #expect(PostgresError(kind, "x").frontdoorError.status == 500)
        }
        #expect(Self.serverError("57P01", severity: "FATAL").endsConnection)
        #expect(!Self.serverError("40001").endsConnection)
    }

    @Test func aLoggedErrorQuotesNoData() {
        let unique = Self.serverError("23505", message: "duplicate key value violates unique constraint \"accounts_email\"")
        #expect(unique.description.contains("23505"))
        #expect(unique.description.contains("accounts_email"))
        #expect(!unique.description.contains("ada@example.com"))
        // A data exception's message can hold the bound value itself.
        let data = Self.serverError("22P02", message: "invalid input syntax for type bigint: \"ada@example.com\"")
        #expect(data.description.contains("22P02"))
        #expect(!data.description.contains("ada@example.com"))
        #expect(!data.frontdoorError.description.contains("ada@example.com"))
        let multiline = Self.serverError("42601", message: "line one\nline two")
        #expect(!multiline.description.contains("\n"))
    }
}
