/// A bound parameter as Bind carries it.
///
/// - `.integer`: `bigint` (OID 20), binary, so no text round trip and no inference;
/// - `.blob`: `bytea` (OID 17), binary: the bytes themselves;
/// - `.text`: type left to the server (OID 0), text format, as libpq's `PQexecParams` without
///   types: it takes the type its place asks for (`text`, `timestamptz`, …);
/// - `.null`: type left to the server, no value.
struct PostgresParameter: Sendable {
    let typeOID: UInt32
    let format: Int16
    let bytes: [UInt8]?

    init(_ value: SQLValue) {
        switch value {
        case .null:
            typeOID = 0
            format = 0
            bytes = nil
        case .integer(let v):
            typeOID = PostgresType.int8
            format = 1
            let u = UInt64(bitPattern: v)
            bytes = (0..<8).map { UInt8(truncatingIfNeeded: u >> (56 - 8 * UInt64($0))) }
        case .text(let s):
            typeOID = 0
            format = 0
            bytes = Array(s.utf8)
        case .blob(let b):
            typeOID = PostgresType.bytea
            format = 1
            bytes = b
        }
    }
}

/// The type OIDs the client reads into something other than text (pg_type.dat).
enum PostgresType {
    static let bool: UInt32 = 16
    static let bytea: UInt32 = 17
    static let int8: UInt32 = 20
    static let int2: UInt32 = 21
    static let int4: UInt32 = 23
    static let oid: UInt32 = 26

    /// A column in the text format as frontdoor's values: integers (and booleans, 1 or 0, as the
    /// SQLite store keeps them) as `.integer`, `bytea` as `.blob`, everything else as `.text`.
    static func value(_ text: [UInt8]?, typeOID: UInt32) throws(PostgresError) -> SQLValue {
        guard let text else { return .null }
        return try text.withUnsafeBufferPointer { bytes throws(PostgresError) in try value(bytes, typeOID: typeOID) }
    }

    static func value(_ text: UnsafeBufferPointer<UInt8>, typeOID: UInt32) throws(PostgresError) -> SQLValue {
        switch typeOID {
        case int8, int4, int2, oid:
            guard let v = integer(text) else { throw PostgresError(.protocolViolation, "an integer column reads \(text.count) bytes that are not one") }
            return .integer(v)
        case bool:
            if text.count == 1 && text[0] == UInt8(ascii: "t") { return .integer(1) }
            if text.count == 1 && text[0] == UInt8(ascii: "f") { return .integer(0) }
            throw PostgresError(.protocolViolation, "a boolean column that is neither t nor f")
        case bytea:
            guard let bytes = bytea(text) else { throw PostgresError(.protocolViolation, "a bytea column in no known output format") }
            return .blob(bytes)
        default:
            return .text(String(decoding: text, as: UTF8.self))
        }
    }

    /// A decimal integer: an optional minus, digits, nothing else, within Int64.
    static func integer(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        let negative = text.first == UInt8(ascii: "-")
        if negative { index = 1 }
        guard index < text.count else { return nil }
        var value: Int64 = 0
        while index < text.count {
            let c = text[index]
            guard c >= 0x30 && c <= 0x39 else { return nil }
            let digit = Int64(c - 0x30)
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !overflow1 && !overflow2 else { return nil }
            value = next
            index += 1
        }
        return value
    }

    /// `bytea` in its text output: `\x` and hex pairs (the default since 9.0), or the older escape
    /// format (`bytea_output = escape`: bytes as they are, `\\`, and `\ooo` octal).
    static func bytea(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let backslash = UInt8(ascii: "\\")
        if text.count >= 2 && text[0] == backslash && text[1] == UInt8(ascii: "x") {
            guard text.count % 2 == 0 else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity((text.count - 2) / 2)
            var i = 2
            while i < text.count {
                guard let hi = hexDigit(text[i]), let lo = hexDigit(text[i + 1]) else { return nil }
                out.append(hi << 4 | lo)
                i += 2
            }
            return out
        }
        var out: [UInt8] = []
        var i = 0
        while i < text.count {
            guard text[i] == backslash else {
                out.append(text[i])
                i += 1
                continue
            }
            if i + 1 < text.count && text[i + 1] == backslash {
                out.append(backslash)
                i += 2
                continue
            }
            guard i + 3 < text.count else { return nil }
            var v = 0
            for j in 1...3 {
                let c = text[i + j]
                guard c >= 0x30 && c <= 0x37 else { return nil }
                v = v * 8 + Int(c - 0x30)
            }
            guard v <= 255 else { return nil }
            out.append(UInt8(v))
            i += 4
        }
        return out
    }

    /// A hex digit's value, either case.
    static func hexDigit(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x61...0x66: c - 0x61 + 10
        case 0x41...0x46: c - 0x41 + 10
        default: nil
        }
    }
}
