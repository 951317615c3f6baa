/// Rule 3 of DESIGN.md: addresses match case-insensitively on the whole address after trimming.
public enum EmailAddress {
    /// The form stored beside the account for matching, unique across accounts.
    public static func matchKey(_ address: String) -> String {
        // An ASCII address, as nearly all are, is trimmed and lower-cased on its bytes, with the
        // same result: the Unicode versions cost a sign-in ~110 K instructions of generic set-up.
        if let key = address.utf8.withContiguousStorageIfAvailable(asciiMatchKey), let key { return key }
        return address.trimmingWhitespace().lowercased()
    }

    /// nil unless every byte is ASCII.
    private static func asciiMatchKey(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        var start = 0
        var end = bytes.count
        while start < end && isWhitespace(bytes[start]) { start += 1 }
        while end > start && isWhitespace(bytes[end - 1]) { end -= 1 }
        return String(unsafeUninitializedCapacity: end - start) { out in
            for i in start..<end {
                let byte = bytes[i]
                out[i - start] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 0x20 : byte
            }
            return end - start
        }
    }

    /// Unicode's white space within ASCII: tab, line feed, vertical tab, form feed, carriage return, space.
    private static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
}
