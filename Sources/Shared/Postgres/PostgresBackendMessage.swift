/// The messages a PostgreSQL server (or pgbouncer) sends, protocol 3.0 (PostgreSQL docs,
/// "Message Formats"). Each is checked whole: a field past the body's end, bytes left over, an
/// unknown type or a count that does not fit refuses the message as a protocol violation.
enum BackendMessage: Sendable, Equatable {
    case authentication(Authentication)
    case parameterStatus(name: String, value: String)
    case backendKeyData(processID: Int32, secretKey: Int32)
    case readyForQuery(TransactionStatus)
    case rowDescription([Column])
    /// Checked whole; its columns are read straight into values (`DataRow.values`).
    case dataRow(DataRow)
    case commandComplete(tag: String)
    case emptyQueryResponse
    case errorResponse(ErrorFields)
    case noticeResponse
    case parseComplete
    case bindComplete
    case closeComplete
    case noData
    case portalSuspended
    case parameterDescription
    case notification
    case negotiateProtocolVersion(newestMinor: Int32)

    enum Authentication: Sendable, Equatable {
        case ok
        case cleartextPassword
        case md5Password(salt: [UInt8])
        case sasl(mechanisms: [String])
        case saslContinue([UInt8])
        case saslFinal([UInt8])
        /// Kerberos, GSSAPI, SSPI, SCM: the code, for the error that names it.
        case unsupported(Int32)
    }

    struct Column: Sendable, Equatable {
        let name: String
        let typeOID: UInt32
        /// 0 text, 1 binary: always 0 here, since every Bind asks for text.
        let format: Int16
    }

    /// The message's name without its contents (a row can hold anything), for errors.
    var name: String {
        switch self {
        case .authentication: "Authentication"
        case .parameterStatus: "ParameterStatus"
        case .backendKeyData: "BackendKeyData"
        case .readyForQuery: "ReadyForQuery"
        case .rowDescription: "RowDescription"
        case .dataRow: "DataRow"
        case .commandComplete: "CommandComplete"
        case .emptyQueryResponse: "EmptyQueryResponse"
        case .errorResponse: "ErrorResponse"
        case .noticeResponse: "NoticeResponse"
        case .parseComplete: "ParseComplete"
        case .bindComplete: "BindComplete"
        case .closeComplete: "CloseComplete"
        case .noData: "NoData"
        case .portalSuspended: "PortalSuspended"
        case .parameterDescription: "ParameterDescription"
        case .notification: "NotificationResponse"
        case .negotiateProtocolVersion: "NegotiateProtocolVersion"
        }
    }

    /// Decodes one framed message.
    static func decode(type: UInt8, body: [UInt8]) throws(PostgresError) -> BackendMessage {
        var reader = MessageReader(body, type: type)
        let message: BackendMessage
        switch type {
        case UInt8(ascii: "R"): message = .authentication(try authentication(&reader))
        case UInt8(ascii: "S"):
            message = .parameterStatus(name: try reader.cString(), value: try reader.cString())
        case UInt8(ascii: "K"): message = .backendKeyData(processID: try reader.int32(), secretKey: try reader.int32())
        case UInt8(ascii: "Z"):
            guard let status = TransactionStatus(rawValue: try reader.byte()) else {
                throw reader.violation("unknown transaction status")
            }
            message = .readyForQuery(status)
        case UInt8(ascii: "T"): message = .rowDescription(try columns(&reader))
        case UInt8(ascii: "D"): message = .dataRow(try DataRow(body, &reader))
        case UInt8(ascii: "C"): message = .commandComplete(tag: try reader.cString())
        case UInt8(ascii: "I"): message = .emptyQueryResponse
        case UInt8(ascii: "E"): message = .errorResponse(try ErrorFields(&reader))
        case UInt8(ascii: "N"):
            _ = try ErrorFields(&reader)
            message = .noticeResponse
        case UInt8(ascii: "1"): message = .parseComplete
        case UInt8(ascii: "2"): message = .bindComplete
        case UInt8(ascii: "3"): message = .closeComplete
        case UInt8(ascii: "n"): message = .noData
        case UInt8(ascii: "s"): message = .portalSuspended
        case UInt8(ascii: "t"):
            let count = try reader.count16()
            for _ in 0..<count { _ = try reader.int32() }
            message = .parameterDescription
        case UInt8(ascii: "A"):
            _ = try reader.int32()
            _ = try reader.cString()
            _ = try reader.cString()
            message = .notification
        case UInt8(ascii: "v"):
            let minor = try reader.int32()
            let count = try reader.int32()
            guard count >= 0 else { throw reader.violation("negative option count") }
            for _ in 0..<count { _ = try reader.cString() }
            message = .negotiateProtocolVersion(newestMinor: minor)
        default:
            // COPY (G, H, W, d, c), FunctionCallResponse (V) and anything unknown: never asked for.
            throw PostgresError(.protocolViolation, "unexpected message type \(MessageReader.printable(type))")
        }
        try reader.expectEnd()
        return message
    }

    private static func authentication(_ reader: inout MessageReader) throws(PostgresError) -> Authentication {
        let code = try reader.int32()
        switch code {
        case 0: return .ok
        case 3: return .cleartextPassword
        case 5: return .md5Password(salt: try reader.bytes(4))
        case 10:
            var mechanisms: [String] = []
            while true {
                let name = try reader.cString()
                if name.isEmpty { break }
                mechanisms.append(name)
            }
            return .sasl(mechanisms: mechanisms)
        case 11: return .saslContinue(reader.rest())
        case 12: return .saslFinal(reader.rest())
        default:
            _ = reader.rest()
            return .unsupported(code)
        }
    }

    private static func columns(_ reader: inout MessageReader) throws(PostgresError) -> [Column] {
        let count = try reader.count16()
        var columns: [Column] = []
        columns.reserveCapacity(count)
        for _ in 0..<count {
            let name = try reader.cString()
            _ = try reader.int32()  // table OID
            _ = try reader.int16()  // column number
            let type = UInt32(bitPattern: try reader.int32())
            _ = try reader.int16()  // type size
            _ = try reader.int32()  // type modifier
            let format = try reader.int16()
            guard format == 0 || format == 1 else { throw reader.violation("unknown column format \(format)") }
            columns.append(Column(name: name, typeOID: type, format: format))
        }
        return columns
    }

}

/// A DataRow's body, its structure checked: a 16-bit count, then each column as a 32-bit length
/// (-1 for NULL) and that many bytes of text. Kept as the body, so a row's columns become values
/// without an array of byte arrays in between (whose first use costs every process its generic
/// set-up).
struct DataRow: Sendable, Equatable {
    let body: [UInt8]
    let count: Int

    init(_ body: [UInt8], _ reader: inout MessageReader) throws(PostgresError) {
        self.body = body
        count = try reader.count16()
        for _ in 0..<count {
            let length = try reader.int32()
            guard length >= -1 else { throw reader.violation("negative column length") }
            if length > 0 { try reader.skip(Int(length)) }
        }
    }

    /// The columns as values of their types (`PostgresType.value`).
    func values(_ columns: [BackendMessage.Column]) throws(PostgresError) -> [SQLValue] {
        guard columns.count == count else {
            throw PostgresError(.protocolViolation, "a row of \(count) columns for \(columns.count)")
        }
        var values: [SQLValue] = []
        values.reserveCapacity(count)
        var offset = 2
        for column in columns {
            let length = Int(Int32(bitPattern: UInt32(body[offset]) << 24 | UInt32(body[offset + 1]) << 16
                | UInt32(body[offset + 2]) << 8 | UInt32(body[offset + 3])))
            offset += 4
            if length < 0 {
                values.append(.null)
                continue
            }
            try body.withUnsafeBufferPointer { all throws(PostgresError) in
                values.append(try PostgresType.value(UnsafeBufferPointer(rebasing: all[offset..<offset + length]), typeOID: column.typeOID))
            }
            offset += length
        }
        return values
    }
}

/// ReadyForQuery's status byte.
public enum TransactionStatus: UInt8, Sendable {
    case idle = 0x49  // I
    case inTransaction = 0x54  // T
    /// A statement failed inside the transaction: the server ignores everything until it ends.
    case failed = 0x45  // E
}

/// The fields of an ErrorResponse or NoticeResponse: a type byte and a string each.
struct ErrorFields: Sendable, Equatable {
    private(set) var fields: [(tag: UInt8, value: String)] = []

    init(_ pairs: [(UInt8, String)]) {
        fields = pairs.map { (tag: $0.0, value: $0.1) }
    }

    init(_ reader: inout MessageReader) throws(PostgresError) {
        while true {
            let tag = try reader.byte()
            if tag == 0 { break }
            fields.append((tag: tag, value: try reader.cString()))
        }
    }

    func value(of tag: UInt8) -> String? {
        fields.first { $0.tag == tag }?.value
    }

    static func == (lhs: ErrorFields, rhs: ErrorFields) -> Bool {
        lhs.fields.count == rhs.fields.count && zip(lhs.fields, rhs.fields).allSatisfy { $0.tag == $1.tag && $0.value == $1.value }
    }
}

/// Reads a message body front to back; every read is checked against the body's end.
struct MessageReader {
    private let body: [UInt8]
    private let type: UInt8
    private var offset = 0

    init(_ body: [UInt8], type: UInt8) {
        self.body = body
        self.type = type
    }

    func violation(_ what: String) -> PostgresError {
        PostgresError(.protocolViolation, "message \(MessageReader.printable(type)): \(what)")
    }

    static func printable(_ type: UInt8) -> String {
        type >= 0x21 && type < 0x7F ? "'\(Character(Unicode.Scalar(type)))'" : "0x" + Hex.encode([type])
    }

    mutating func byte() throws(PostgresError) -> UInt8 {
        guard offset < body.count else { throw violation("truncated") }
        defer { offset += 1 }
        return body[offset]
    }

    mutating func int16() throws(PostgresError) -> Int16 {
        guard body.count - offset >= 2 else { throw violation("truncated") }
        defer { offset += 2 }
        return Int16(bitPattern: UInt16(body[offset]) << 8 | UInt16(body[offset + 1]))
    }

    mutating func int32() throws(PostgresError) -> Int32 {
        guard body.count - offset >= 4 else { throw violation("truncated") }
        defer { offset += 4 }
        let b = body
        let o = offset
        return Int32(bitPattern: UInt32(b[o]) << 24 | UInt32(b[o + 1]) << 16 | UInt32(b[o + 2]) << 8 | UInt32(b[o + 3]))
    }

    /// A 16-bit count that must not be negative.
    mutating func count16() throws(PostgresError) -> Int {
        let count = try int16()
        guard count >= 0 else { throw violation("negative count") }
        return Int(count)
    }

    mutating func skip(_ count: Int) throws(PostgresError) {
        guard count >= 0, body.count - offset >= count else { throw violation("truncated") }
        offset += count
    }

    mutating func bytes(_ count: Int) throws(PostgresError) -> [UInt8] {
        guard count >= 0, body.count - offset >= count else { throw violation("truncated") }
        defer { offset += count }
        return Array(body[offset..<offset + count])
    }

    /// A NUL-terminated string.
    mutating func cString() throws(PostgresError) -> String {
        guard let end = body[offset...].firstIndex(of: 0) else { throw violation("unterminated string") }
        defer { offset = end + 1 }
        return String(decoding: body[offset..<end], as: UTF8.self)
    }

    mutating func rest() -> [UInt8] {
        defer { offset = body.count }
        return Array(body[offset...])
    }

    func expectEnd() throws(PostgresError) {
        guard offset == body.count else { throw violation("\(body.count - offset) bytes past its fields") }
    }
}
