/// An `application/x-www-form-urlencoded` body (the WHATWG URL Standard's parser): `name=value`
/// pairs joined by `&`, `+` a space, `%XX` a byte, the bytes UTF-8. What Apple's `form_post` and
/// Google's redirect mode send to `kit-return`.
struct FormBody {
    private(set) var fields: [(name: String, value: String)] = []

    /// nil when a pair is not UTF-8 after decoding, or a `%` is not followed by two hex digits.
    init?(_ bytes: [UInt8]) {
        for pair in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), let value = Self.decode(parts.count > 1 ? parts[1] : [])
            else { return nil }
            fields.append((name, value))
        }
    }

    /// The first value of `name`.
    subscript(name: String) -> String? { fields.first { $0.name == name }?.value }

    private static func decode(_ bytes: ArraySlice<UInt8>) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let byte = bytes[i]
            if byte == UInt8(ascii: "+") {
                out.append(0x20)
            } else if byte == UInt8(ascii: "%") {
                guard bytes.distance(from: i, to: bytes.endIndex) >= 3, let high = hex(bytes[i + 1]),
                    let low = hex(bytes[i + 2])
                else { return nil }
                out.append(high << 4 | low)
                i += 2
            } else {
                out.append(byte)
            }
            i += 1
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `value` percent-encoded for a URL's fragment: everything but unreserved characters.
    static func encode(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            let unreserved = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
            if unreserved {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
