import CSodium

/// Runs once per process before libsodium is used: it picks its implementations and seeds itself.
/// 0 is a first start, 1 an earlier one; -1 means libsodium cannot be used.
private let sodiumReady: Bool = sodium_init() >= 0

/// Argon2id password hashes through libsodium, in its self-describing string form (`$argon2id$v=19$m=…,t=…,p=1$…`),
/// so a hash made at an older cost still verifies and can be recognised for rehashing.
public enum PasswordHasher {
    // What a new password must be is `PasswordPolicy`'s (rule 19): this only hashes and verifies.

    /// What is hashed: the password in Unicode NFC, so "é" typed as one character on one keyboard
    /// and as "e" and a combining accent on another is the same password.
    public static func normalised(_ password: String) -> [UInt8] { password._nfcCodeUnits }

    public static func hash(_ password: String, cost: Config.PasswordCost) throws(FrontdoorError) -> String {
        try hash(bytes: normalised(password), cost: cost)
    }

    /// Argon2id of exactly these bytes.
    static func hash(bytes: [UInt8], cost: Config.PasswordCost) throws(FrontdoorError) -> String {
        guard sodiumReady else { throw .internal("sodium_init failed") }
        // The tests see that a refused password never gets this far.
        TestHooks.note("argon2id hash")
        var out = [CChar](repeating: 0, count: Int(crypto_pwhash_argon2id_STRBYTES))
        let rc = withPointer(to: bytes) { pw in
            crypto_pwhash_argon2id_str(
                &out, pw, UInt64(bytes.count), UInt64(cost.iterations), Int(cost.memoryKiB) * 1024)
        }
        guard rc == 0 else { throw .internal("crypto_pwhash_argon2id_str failed (out of memory?)") }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public enum Verdict: Sendable {
        case mismatch
        case match
        /// Matched the bytes as typed, not their NFC form: a hash from before passwords were
        /// normalised, which the caller should replace.
        case matchAsTyped
    }

    /// Whether `password` matches `stored`. A malformed stored hash never matches.
    public static func verify(_ password: String, against stored: String) throws(FrontdoorError) -> Bool {
        try check(password, against: stored) != .mismatch
    }

    /// Like `verify`, saying which form matched. A password not in NFC is tried as typed as well
    /// (so twice the work, whether or not an account exists), since older hashes hold those bytes.
    public static func check(_ password: String, against stored: String) throws(FrontdoorError) -> Verdict {
        let nfc = normalised(password)
        if try verify(bytes: nfc, against: stored) { return .match }
        let typed = Array(password.utf8)
        guard typed != nfc else { return .mismatch }
        return try verify(bytes: typed, against: stored) ? .matchAsTyped : .mismatch
    }

    static func verify(bytes: [UInt8], against stored: String) throws(FrontdoorError) -> Bool {
        guard sodiumReady else { throw .internal("sodium_init failed") }
        guard stored.utf8.count < Int(crypto_pwhash_argon2id_STRBYTES) else { return false }
        #if DEBUG
        Trace.current?.record(stored)
        #endif
        let rc = withPointer(to: bytes) { pw in crypto_pwhash_argon2id_str_verify(stored, pw, UInt64(bytes.count)) }
        return rc == 0
    }

    /// libsodium wants a pointer even for no bytes: a NUL after them makes one always exist.
    private static func withPointer(to bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> Int32) -> Int32 {
        (bytes.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { body($0.baseAddress!) }
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

    #if DEBUG
    /// Debug builds only: the parameters (`m=…,t=…,p=…`) of every Argon2id verification made
    /// while a test has set `Trace.current`, so a test proves that two answers did the same work
    /// by what was done, not by how long it took. Bound to one task, which runs one request at a
    /// time, so it needs no lock.
    public final class Trace: @unchecked Sendable {
        @TaskLocal public static var current: Trace?
        public private(set) var verifications: [String] = []

        public init() {}

        func record(_ stored: String) {
            let fields = stored.split(separator: "$", omittingEmptySubsequences: false)
            verifications.append(fields.count > 3 ? String(fields[3]) : "(not an argon2id hash)")
        }
    }
    #endif
}
