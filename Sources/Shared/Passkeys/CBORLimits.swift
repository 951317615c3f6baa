/// How much a CBOR input may hold. Every WebAuthn structure we read is small and shallow, so the
/// limits sit close above what real authenticators send: hostile input is refused after a few
/// hundred bytes of work at most, and nothing is allocated before its length is checked against
/// what remains of the input.
public struct CBORLimits: Sendable {
    /// Arrays and maps nested, the outermost counting 1 (0: only scalars).
    public var maxDepth: Int
    /// Data items in all: every key, value and element, containers included.
    public var maxItems: Int
    /// The input's length (or, read from within a larger input, the one item's).
    public var maxBytes: Int
    /// Whether map keys must be in CTAP2's canonical order (the major type, then the encoded
    /// length, then the bytes).
    public var canonicalMapOrder: Bool

    public init(maxDepth: Int, maxItems: Int, maxBytes: Int, canonicalMapOrder: Bool) {
        self.maxDepth = maxDepth
        self.maxItems = maxItems
        self.maxBytes = maxBytes
        self.canonicalMapOrder = canonicalMapOrder
    }

    /// `{"fmt", "attStmt", "authData"}`: an attStmt of another format may hold an array of
    /// certificates (depth 3), read only to be refused by its `fmt`. Key order is not enforced at
    /// this level: the map is not signed, and duplicates are refused anyway.
    public static let attestationObject = CBORLimits(
        maxDepth: 4, maxItems: 64, maxBytes: AttestationObject.maxBytes, canonicalMapOrder: false)
    /// A COSE_Key: one map of integers and byte strings, in canonical order as authenticators
    /// write it (RSA-4096's is 530 bytes).
    public static let coseKey = CBORLimits(maxDepth: 1, maxItems: 16, maxBytes: 1024, canonicalMapOrder: true)
    /// Authenticator extension outputs (authenticator data with ED set): read to find their end,
    /// then ignored.
    public static let extensions = CBORLimits(
        maxDepth: 4, maxItems: 64, maxBytes: AuthenticatorData.maxBytes, canonicalMapOrder: false)
}
