/// Rule 3 of DESIGN.md: addresses match case-insensitively on the whole address after trimming.
public enum EmailAddress {
    /// The form stored beside the account for matching, unique across accounts: trimmed, in
    /// Unicode NFC (so a precomposed and a decomposed "é" are one address), and case-folded in
    /// full (`fold`). `EmailValidation` refuses the addresses whose keys would collide with an
    /// ASCII address's (KELVIN SIGN folds to `k`), so a key only ever stands for one spelling.
    public static func matchKey(_ address: String) -> String {
        // An ASCII address, as nearly all are, is trimmed and lower-cased on its bytes, with the
        // same result: the Unicode versions cost a sign-in ~110 K instructions of generic set-up.
        if let key = address.utf8.withContiguousStorageIfAvailable(asciiMatchKey), let key { return key }
        return fold(nfc(address.trimmingWhitespace()))
    }

    /// Unicode NFC.
    public static func nfc(_ text: String) -> String {
        String(decoding: text._nfcCodeUnits, as: UTF8.self)
    }

    /// A full case fold, as the lower case of the upper case (so "ß" and "SS" fold alike, as do
    /// final and medial sigma), put back in NFC since case mappings can decompose.
    public static func fold(_ text: String) -> String {
        nfc(text.uppercased().lowercased())
    }

    /// Whether `email` may receive a code for the account keyed `key`: it is an address by today's
    /// rules, stored as they would store it, and it keys to exactly `key`. Rows written before
    /// the rules refused look-alike characters fail this and are never mailed.
    public static func isMailable(_ email: String, key: String?) -> Bool {
        guard let key, case .success(let address) = EmailValidation.normalise(email, acceptAsTyped: true) else {
            return false
        }
        // Bytes, not String's ==, which holds canonically equivalent spellings equal.
        return Array(address.utf8) == Array(email.utf8) && Array(matchKey(email).utf8) == Array(key.utf8)
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
