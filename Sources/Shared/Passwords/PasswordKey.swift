/// How a password is compared with the list and the context words: in NFC, case-folded (the lower
/// case of the upper case, as addresses are: `EmailAddress.fold`), back in NFC. scripts/password-list
/// folds the list's entries the same way (in Python), and a test holds the two to each other.
public enum PasswordKey {
    /// The folded password as code points.
    public static func fold(_ password: String) -> [Unicode.Scalar] {
        // Nearly every password is ASCII: lower-cased on its bytes, with the same result, and
        // without the Unicode tables' set-up.
        if password.utf8.allSatisfy({ $0 < 0x80 }) {
            return password.utf8.map { Unicode.Scalar($0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0) }
        }
        return Array(EmailAddress.fold(EmailAddress.nfc(password)).unicodeScalars)
    }

    /// What the list holds for a folded password: the first 8 bytes of the SHA-256 of its UTF-8,
    /// read big-endian. With 131,174 entries, a password not on the list matches one by chance
    /// with a probability of 131,174 / 2^64, about 7 × 10^-15.
    public static func fingerprint(_ folded: [Unicode.Scalar]) -> UInt64 {
        let digest = SHA256.hash(Array(String(String.UnicodeScalarView(folded)).utf8))
        guard digest.count == SHA256.byteCount else { return 0 }
        return digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
}
