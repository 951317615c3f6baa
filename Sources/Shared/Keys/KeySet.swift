/// A provider's published keys (`{"keys": [...]}`, RFC 7517 section 5).
///
/// Loading policy: the document itself must be well formed (a JSON object without duplicate
/// member names, `keys` an array of objects, at most `maxKeys` of them, at most `maxBytes`), or
/// the whole set is refused. A single key we cannot use (unknown `kty`, another curve, material
/// we refuse such as RSA under 2048 bits or an EC point off the curve) is skipped, not fatal:
/// one odd key in a provider's set must not stop sign-in with the others, and a skipped key can
/// verify nothing. Its `kid` is remembered so a token naming it gets `noUsableKey` rather than
/// `unknownKeyID` (which would send the caller to refetch for nothing).
public struct JSONWebKeySet: Sendable {
    public static let maxBytes = 65_536
    public static let maxKeys = 64

    public let keys: [JWK]
    /// The `kid`s of members that were skipped.
    public let skippedKeyIDs: [String]

    public init(keys: [JWK]) {
        self.init(keys: keys, skippedKeyIDs: [])
    }

    public init(keys: [JWK], skippedKeyIDs: [String]) {
        self.keys = keys
        self.skippedKeyIDs = skippedKeyIDs
    }

    public static func parse(_ bytes: [UInt8]) throws(TokenError) -> JSONWebKeySet {
        guard bytes.count <= maxBytes else { throw .malformed("key set over \(maxBytes) bytes") }
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw .malformed("key set JSON")
        }
        guard case .object = document, let members = document["keys"]?.arrayValue else {
            throw .malformed("key set has no keys array")
        }
        guard members.count <= maxKeys else { throw .malformed("key set over \(maxKeys) keys") }
        var keys: [JWK] = []
        var skipped: [String] = []
        for member in members {
            guard case .object = member else { throw .malformed("key set member not an object") }
            do {
                keys.append(try JWK.parse(member))
            } catch {
                if let kid = member["kid"]?.stringValue { skipped.append(kid) }
            }
        }
        return JSONWebKeySet(keys: keys, skippedKeyIDs: skipped)
    }

    public static func parse(_ text: String) throws(TokenError) -> JSONWebKeySet {
        try parse(Array(text.utf8))
    }
}
