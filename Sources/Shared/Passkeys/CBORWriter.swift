/// Writes a `CBORValue` with every head in its shortest form and map entries in the order given,
/// so that `CBORReader` reads back exactly what was written, and anything it accepted is written
/// back byte for byte (the fuzz target's round trip). Used by the development authenticator.
public enum CBORWriter {
    public static func encode(_ value: CBORValue) -> [UInt8] {
        var out: [UInt8] = []
        write(value, into: &out)
        return out
    }

    /// A map's entries in CTAP2's canonical order, as an authenticator writes them.
    public static func canonicalMap(_ entries: [(key: CBORValue, value: CBORValue)]) -> CBORValue {
        .map(entries.sorted { CBOROrder.precedes(encode($0.key), encode($1.key)) })
    }

    private static func write(_ value: CBORValue, into out: inout [UInt8]) {
        switch value {
        case .integer(let n):
            if n >= 0 {
                head(0, UInt64(n), into: &out)
            } else {
                // -1 - n without overflow at Int64.min.
                head(1, UInt64(bitPattern: ~n), into: &out)
            }
        case .bytes(let b):
            head(2, UInt64(b.count), into: &out)
            out += b
        case .text(let t):
            let utf8 = Array(t.utf8)
            head(3, UInt64(utf8.count), into: &out)
            out += utf8
        case .array(let elements):
            head(4, UInt64(elements.count), into: &out)
            for element in elements { write(element, into: &out) }
        case .map(let entries):
            head(5, UInt64(entries.count), into: &out)
            for entry in entries {
                write(entry.key, into: &out)
                write(entry.value, into: &out)
            }
        case .bool(let b):
            out.append(b ? 0xF5 : 0xF4)
        }
    }

    static func head(_ major: UInt8, _ argument: UInt64, into out: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24:
            out.append(type | UInt8(argument))
        case 24...0xFF:
            out += [type | 24, UInt8(argument)]
        case 0x100...0xFFFF:
            out.append(type | 25)
            out += bigEndian(argument, width: 2)
        case 0x1_0000...0xFFFF_FFFF:
            out.append(type | 26)
            out += bigEndian(argument, width: 4)
        default:
            out.append(type | 27)
            out += bigEndian(argument, width: 8)
        }
    }

    private static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - $0))) }
    }
}
