/// Rule 3 of DESIGN.md: addresses match case-insensitively on the whole address after trimming.
public enum EmailAddress {
    /// The form stored beside the account for matching, unique across accounts: trimmed, in
    /// Unicode NFC (so a precomposed and a decomposed "é" are one address), the local part
    /// case-folded in full (`fold`), and the domain by its A-label (`IDNA.asciiKey`: UTS #46, then
    /// Punycode), so `bücher.example` and `xn--bcher-kva.example` are one domain and `gmaıl.com`
    /// (`xn--gmal-nza.com`) is not `gmail.com`. `EmailValidation` refuses the addresses whose keys
    /// would collide with an ASCII address's (KELVIN SIGN folds to `k`), so a key only ever stands
    /// for one spelling.
    public static func matchKey(_ address: String) -> String {
        // An ASCII address, as nearly all are, is trimmed and lower-cased on its bytes, with the
        // same result: the Unicode versions cost a sign-in ~110 K instructions of generic set-up.
        if let key = address.utf8.withContiguousStorageIfAvailable(asciiMatchKey), let key { return key }
        let scalars = nfc(address.trimmingWhitespace()).unicodeScalars
        guard let at = scalars.lastIndex(of: "@") else { return fold(String(scalars)) }
        return fold(String(scalars[..<at])) + "@" + IDNA.asciiKey(String(scalars[scalars.index(after: at)...]))
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
    /// rules, stored as they would store it, it keys to exactly `key`, and that key is not one an
    /// ASCII address has while `email` spells it otherwise (`takesAnASCIIKey`). Rows written
    /// before the rules refused look-alike characters fail this and are never mailed.
    public static func isMailable(_ email: String, key: String?) -> Bool {
        guard let key, case .success(let address) = EmailValidation.normalise(email, acceptAsTyped: true) else {
            return false
        }
        // Bytes, not String's ==, which holds canonically equivalent spellings equal.
        return Array(address.utf8) == Array(email.utf8) && Array(matchKey(email).utf8) == Array(key.utf8)
            && !takesAnASCIIKey(email, key: key)
    }

    /// Whether `key` is all ASCII while `address` is not, other than by a domain's U-labels that
    /// key as their own A-labels (`xn--…`, which only that domain's ASCII spelling shares): the
    /// look-alike of rule 3, `ıvan@gmail.com` keyed as `ivan@gmail.com`.
    static func takesAnASCIIKey(_ address: String, key: String) -> Bool {
        guard key.utf8.allSatisfy({ $0 < 0x80 }), !address.utf8.allSatisfy({ $0 < 0x80 }) else { return false }
        let scalars = address.unicodeScalars
        guard let at = scalars.lastIndex(of: "@"), let keyAt = key.utf8.lastIndex(of: UInt8(ascii: "@")) else { return true }
        guard scalars[..<at].allSatisfy(\.isASCII) else { return true }
        let labels = scalars[scalars.index(after: at)...].split(separator: ".", omittingEmptySubsequences: false)
        let keyLabels = key.utf8[key.utf8.index(after: keyAt)...].split(
            separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard labels.count == keyLabels.count else { return true }
        return zip(labels, keyLabels).contains { label, keyLabel in
            !label.allSatisfy(\.isASCII) && !keyLabel.starts(with: Array("xn--".utf8))
        }
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
