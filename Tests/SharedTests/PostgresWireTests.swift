@testable import Shared
import Testing

/// The wire codec without a server: framing with bounded lengths, every backend message checked
/// whole, the frontend messages byte for byte, values in and out.
@Suite struct PostgresWireTests {
    /// A backend message as a server would frame it.
    static func frame(_ type: Character, _ body: [UInt8]) -> [UInt8] {
        let length = UInt32(body.count + 4)
        return [UInt8(ascii: type.unicodeScalars.first!)] + be32(length) + body
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    static func cstring(_ s: String) -> [UInt8] { Array(s.utf8) + [0] }

    // MARK: framing

    @Test func framesMessagesSplitAnywhereAndSeveralInOneRead() throws {
        let stream = Self.frame("Z", [UInt8(ascii: "I")]) + Self.frame("C", Self.cstring("SELECT 1")) + Self.frame("1", [])
        for cut in 0...stream.count {
            var framer = PostgresFramer()
            var seen: [UInt8] = []
            framer.append(Array(stream[..<cut]))
            while let message = try framer.next() { seen.append(message.type) }
            framer.append(Array(stream[cut...]))
            while let message = try framer.next() { seen.append(message.type) }
            #expect(seen == [UInt8(ascii: "Z"), UInt8(ascii: "C"), UInt8(ascii: "1")], "cut at \(cut)")
            #expect(framer.pendingBytes == 0)
        }
    }

    @Test(arguments: [UInt32(0), 3])
    func refusesALengthBelowFour(_ length: UInt32) {
        var framer = PostgresFramer()
        framer.append([UInt8(ascii: "Z")] + Self.be32(length) + [0, 0, 0])
        #expect(throws: PostgresError.self) { try framer.next() }
    }

    @Test func refusesAnOversizedLengthBeforeItsBodyArrives() {
        var framer = PostgresFramer(maxMessageBytes: 1024)
        framer.append([UInt8(ascii: "D")] + Self.be32(1025))
        do {
            _ = try framer.next()
            Issue.record("an oversized length was accepted")
        } catch {
            #expect(error.kind == .protocolViolation)
            #expect(error.reason.contains("1025 bytes, above 1024"))
        }
        // A "negative" length (high bit set) is as large as it looks.
        var other = PostgresFramer()
        other.append([UInt8(ascii: "D"), 0xFF, 0xFF, 0xFF, 0xF0])
        #expect(throws: PostgresError.self) { try other.next() }
        // Exactly at the bound is fine.
        var exact = PostgresFramer(maxMessageBytes: 8)
        exact.append([UInt8(ascii: "C")] + Self.be32(8) + Self.cstring("BEGI"))
        #expect((try? exact.next())??.type == UInt8(ascii: "C"))
    }

    @Test func waitsForTheWholeBody() throws {
        var framer = PostgresFramer()
        framer.append(Array(Self.frame("C", Self.cstring("INSERT 0 1")).dropLast()))
        #expect(try framer.next() == nil)
        framer.append([0])
        #expect(try framer.next()?.type == UInt8(ascii: "C"))
    }

    // MARK: backend messages

    static func decode(_ type: Character, _ body: [UInt8]) throws(PostgresError) -> BackendMessage {
        try BackendMessage.decode(type: UInt8(ascii: type.unicodeScalars.first!), body: body)
    }

    @Test func decodesTheMessagesOfAnExchange() throws {
        #expect(try Self.decode("R", Self.be32(0)) == .authentication(.ok))
        #expect(try Self.decode("R", Self.be32(3)) == .authentication(.cleartextPassword))
        #expect(try Self.decode("R", Self.be32(5) + [9, 8, 7, 6]) == .authentication(.md5Password(salt: [9, 8, 7, 6])))
        #expect(
            try Self.decode("R", Self.be32(10) + Self.cstring("SCRAM-SHA-256-PLUS") + Self.cstring("SCRAM-SHA-256") + [0])
                == .authentication(.sasl(mechanisms: ["SCRAM-SHA-256-PLUS", "SCRAM-SHA-256"])))
        #expect(try Self.decode("R", Self.be32(11) + Array("r=abc".utf8)) == .authentication(.saslContinue(Array("r=abc".utf8))))
        #expect(try Self.decode("R", Self.be32(7)) == .authentication(.unsupported(7)))
        #expect(try Self.decode("S", Self.cstring("server_version") + Self.cstring("15.18")) == .parameterStatus(name: "server_version", value: "15.18"))
        #expect(try Self.decode("K", Self.be32(42) + Self.be32(0xDEADBEEF)) == .backendKeyData(processID: 42, secretKey: Int32(bitPattern: 0xDEADBEEF)))
        #expect(try Self.decode("Z", [UInt8(ascii: "E")]) == .readyForQuery(.failed))
        let column = Self.cstring("id") + Self.be32(16384) + Self.be16(1) + Self.be32(20) + Self.be16(8) + Self.be32(0xFFFFFFFF) + Self.be16(0)
        #expect(try Self.decode("T", Self.be16(1) + column) == .rowDescription([.init(name: "id", typeOID: 20, format: 0)]))
        guard case .dataRow(let row) = try Self.decode("D", Self.be16(3) + Self.be32(1) + [0x37] + Self.be32(0xFFFFFFFF) + Self.be32(0))
        else {
            Issue.record("not a DataRow")
            return
        }
        #expect(row.count == 3)
        let columns = [BackendMessage.Column(name: "a", typeOID: PostgresType.int4, format: 0),
                       .init(name: "b", typeOID: PostgresType.int8, format: 0), .init(name: "c", typeOID: 25, format: 0)]
        #expect(try row.values(columns) == [.integer(7), .null, .text("")])
        #expect(throws: PostgresError.self) { try row.values(Array(columns.prefix(2))) }
        #expect(try Self.decode("C", Self.cstring("UPDATE 3")) == .commandComplete(tag: "UPDATE 3"))
        for (type, message) in [("1", BackendMessage.parseComplete), ("2", .bindComplete), ("3", .closeComplete), ("n", .noData), ("s", .portalSuspended), ("I", .emptyQueryResponse)] {
            #expect(try Self.decode(Character(type), []) == message)
        }
        let error = try Self.decode("E", [UInt8(ascii: "S")] + Self.cstring("ERROR") + [UInt8(ascii: "C")] + Self.cstring("40001") + [0])
        #expect(error == .errorResponse(ErrorFields([(UInt8(ascii: "S"), "ERROR"), (UInt8(ascii: "C"), "40001")])))
        #expect(try Self.decode("N", [UInt8(ascii: "M")] + Self.cstring("note") + [0]) == .noticeResponse)
    }

    @Test(arguments: [
        ("K", [UInt8](repeating: 0, count: 7), "truncated"),
        ("K", [UInt8](repeating: 0, count: 9), "1 bytes past its fields"),
        ("Z", [UInt8(ascii: "X")], "unknown transaction status"),
        ("Z", [], "truncated"),
        ("Z", [UInt8(ascii: "I"), 0], "1 bytes past its fields"),
        ("S", Array("server_version".utf8), "unterminated string"),
        ("C", [], "unterminated string"),
        ("R", [0, 0, 0, 5, 1, 2], "truncated"),
        ("D", [0xFF, 0xFF], "negative count"),
        ("D", [0, 1, 0xFF, 0xFF, 0xFF, 0xFE], "negative column length"),
        ("D", [0, 1, 0, 0, 0, 9, 1, 2, 3], "truncated"),
        ("D", [0, 2, 0, 0, 0, 1, 7], "truncated"),
        ("T", [0, 1, 0x69, 0x64, 0], "truncated"),
        ("T", [0, 1, 0x69, 0] + [UInt8](repeating: 0, count: 16) + [0, 2], "unknown column format"),
        ("E", [UInt8(ascii: "S")] + Array("ERROR".utf8), "unterminated string"),
        ("E", [UInt8(ascii: "S")] + Array("ERROR".utf8) + [0], "truncated"),
        ("1", [0], "1 bytes past its fields"),
        ("v", [0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF], "negative option count"),
        ("G", [0, 0, 0], "unexpected message type 'G'"),
        ("d", [], "unexpected message type 'd'"),
        ("\u{1}", [], "unexpected message type 0x01"),
    ] as [(Character, [UInt8], String)])
    func refusesMalformedMessages(_ type: Character, _ body: [UInt8], _ reason: String) {
        do {
            let message = try Self.decode(type, body)
            Issue.record("decoded \(message.name)")
        } catch {
            #expect(error.kind == .protocolViolation)
            #expect(error.reason.contains(reason), "\(error.reason)")
        }
    }

    // MARK: frontend messages

    @Test func writesStartupAndTheExtendedExchangeByteForByte() throws {
        var startup = PostgresFrontend()
        try startup.startup(["user", "u", "database", "d"])
        #expect(startup.bytes == Self.be32(27) + Self.be32(196_608) + Self.cstring("user") + Self.cstring("u") + Self.cstring("database") + Self.cstring("d") + [0])

        var out = PostgresFrontend()
        let params = [SQLValue.integer(-2), .text("é"), .blob([0, 255]), .null]
        try out.parse("SELECT $1", params)
        try out.bind(params)
        out.describePortal()
        out.execute()
        out.sync()
        let parse = [UInt8(ascii: "P")] + Self.be32(4 + 1 + 10 + 2 + 16) + [0] + Self.cstring("SELECT $1") + Self.be16(4)
            + Self.be32(20) + Self.be32(0) + Self.be32(17) + Self.be32(0)
        let bindBody: [UInt8] = [0, 0] + Self.be16(4) + Self.be16(1) + Self.be16(0) + Self.be16(1) + Self.be16(0) + Self.be16(4)
            + Self.be32(8) + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE] + Self.be32(2) + [0xC3, 0xA9]
            + Self.be32(2) + [0, 255] + Self.be32(0xFFFFFFFF) + Self.be16(0)
        let bind = [UInt8(ascii: "B")] + Self.be32(UInt32(4 + bindBody.count)) + bindBody
        let tail: [UInt8] = [UInt8(ascii: "D"), 0, 0, 0, 6, UInt8(ascii: "P"), 0, UInt8(ascii: "E"), 0, 0, 0, 9, 0, 0, 0, 0, 0, UInt8(ascii: "S"), 0, 0, 0, 4]
        #expect(out.bytes == parse + bind + tail)
    }

    @Test func refusesNulInAStringAndTooManyParameters() {
        var out = PostgresFrontend()
        #expect(throws: PostgresError.self) { try out.parse("SELECT 1\u{0}; DROP TABLE x", []) }
        #expect(throws: PostgresError.self) { try out.parse("SELECT 1", [SQLValue](repeating: .null, count: 40_000)) }
        #expect(throws: PostgresError.self) { try out.bind([SQLValue](repeating: .null, count: 40_000)) }
        #expect(throws: PostgresError.self) { try out.startup(["user", "a\u{0}b"]) }
    }

    @Test func writesTheCancelRequest() {
        #expect(PostgresFrontend.cancelRequest(processID: 7, secretKey: -1) == Self.be32(16) + Self.be32(80_877_102) + Self.be32(7) + Self.be32(0xFFFFFFFF))
    }

    // MARK: values

    @Test func readsColumnsByType() throws {
        #expect(try PostgresType.value(Array("-9223372036854775808".utf8), typeOID: PostgresType.int8) == .integer(Int64.min))
        #expect(try PostgresType.value(Array("42".utf8), typeOID: PostgresType.int4) == .integer(42))
        #expect(try PostgresType.value(Array("t".utf8), typeOID: PostgresType.bool) == .integer(1))
        #expect(try PostgresType.value(Array("f".utf8), typeOID: PostgresType.bool) == .integer(0))
        #expect(try PostgresType.value(Array("\\x00ff5C".utf8), typeOID: PostgresType.bytea) == .blob([0, 255, 0x5C]))
        #expect(try PostgresType.value(Array("\\x".utf8), typeOID: PostgresType.bytea) == .blob([]))
        #expect(try PostgresType.value(Array("a\\\\b\\000\\377".utf8), typeOID: PostgresType.bytea) == .blob([0x61, 0x5C, 0x62, 0, 255]))
        #expect(try PostgresType.value(Array("2026-12-01 10:00:00+00".utf8), typeOID: 1184) == .text("2026-12-01 10:00:00+00"))
        #expect(try PostgresType.value(nil, typeOID: PostgresType.int8) == .null)
    }

    @Test(arguments: [
        ("9223372036854775808", PostgresType.int8), ("-", PostgresType.int8), ("", PostgresType.int4), ("1.5", PostgresType.int4),
        (" 1", PostgresType.int2), ("true", PostgresType.bool), ("\\x0", PostgresType.bytea), ("\\xzz", PostgresType.bytea),
        ("\\400", PostgresType.bytea), ("\\12", PostgresType.bytea), ("\\9aa", PostgresType.bytea),
    ] as [(String, UInt32)])
    func refusesColumnsThatAreNotTheirType(_ text: String, _ type: UInt32) {
        #expect(throws: PostgresError.self) { try PostgresType.value(Array(text.utf8), typeOID: type) }
    }

    @Test func countsRowsFromTheCommandTag() {
        #expect(PostgresResult(columns: [], rows: [], command: "INSERT 0 5").affected == 5)
        #expect(PostgresResult(columns: [], rows: [], command: "DELETE 0").affected == 0)
        #expect(PostgresResult(columns: [], rows: [], command: "BEGIN").affected == 0)
        #expect(PostgresResult(columns: [], rows: [], command: "CREATE TABLE").affected == 0)
    }
}
