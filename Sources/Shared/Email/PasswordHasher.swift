import CSodium

/// Runs once per process before libsodium is used: it picks its implementations and seeds itself.
/// 0 is a first start, 1 an earlier one; -1 means libsodium cannot be used.
private let sodiumReady: Bool = sodium_init() >= 0

/// Argon2id password hashes through libsodium, in its self-describing string form (`$argon2id$v=19$m=…,t=…,p=1$…`),
/// so a hash made at an older cost still verifies and can be recognised for rehashing.
public enum PasswordHasher {
    /// NIST SP 800-63B: at least 8, no composition rules; the ceiling only bounds the work.
    public static let allowedBytes = 8...1024

    /// `invalid_password` unless the password's UTF-8 length is within `allowedBytes`.
    public static func checkLength(_ password: String) throws(FrontdoorError) {
        guard allowedBytes.contains(password.utf8.count) else {
            throw FrontdoorError(
                .invalidPassword,
                "The password must be \(allowedBytes.lowerBound) to \(allowedBytes.upperBound) bytes long.")
        }
    }

    public static func hash(_ password: String, cost: Config.PasswordCost) throws(FrontdoorError) -> String {
        guard sodiumReady else { throw .internal("sodium_init failed") }
        var out = [CChar](repeating: 0, count: Int(crypto_pwhash_argon2id_STRBYTES))
        // NUL-terminated, so there is always a pointer; the length passed is the password's own.
        let chars = password.utf8CString
        let rc = chars.withUnsafeBufferPointer { pw in
            crypto_pwhash_argon2id_str(
                &out, pw.baseAddress!, UInt64(password.utf8.count), UInt64(cost.iterations),
                Int(cost.memoryKiB) * 1024)
        }
        guard rc == 0 else { throw .internal("crypto_pwhash_argon2id_str failed (out of memory?)") }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` matches `stored`. A malformed stored hash never matches.
    public static func verify(_ password: String, against stored: String) throws(FrontdoorError) -> Bool {
        guard sodiumReady else { throw .internal("sodium_init failed") }
        guard stored.utf8.count < Int(crypto_pwhash_argon2id_STRBYTES) else { return false }
        let chars = password.utf8CString
        let rc = chars.withUnsafeBufferPointer { pw in
            crypto_pwhash_argon2id_str_verify(stored, pw.baseAddress!, UInt64(password.utf8.count))
        }
        return rc == 0
    }

    /// Whether `stored` was made at another cost (or is not an Argon2id hash at all).
    public static func needsRehash(_ stored: String, cost: Config.PasswordCost) -> Bool {
        guard sodiumReady, stored.utf8.count < Int(crypto_pwhash_argon2id_STRBYTES) else { return true }
        return crypto_pwhash_argon2id_str_needs_rehash(stored, UInt64(cost.iterations), Int(cost.memoryKiB) * 1024) != 0
    }

    /// A hash nobody's password matches, at `cost`: verifying against it when there is no account
    /// (or no password) takes as long as a real check, so the answer's timing tells nothing.
    public static func dummyHash(cost: Config.PasswordCost) -> String {
        let salt = String(repeating: "A", count: 22)
        let digest = String(repeating: "A", count: 43)
        return "$argon2id$v=19$m=\(cost.memoryKiB),t=\(cost.iterations),p=1$\(salt)$\(digest)"
    }
}
