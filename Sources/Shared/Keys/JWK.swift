/// One public key from a JWK Set (RFC 7517), of a type we can verify with: `kty` "RSA", or "EC"
/// with `crv` "P-256". Its `use`, `key_ops` and `alg` are kept and honoured by `allows(_:)`.
public struct JWK: Sendable {
    public let kty: String
    public let kid: String?
    public let use: String?
    public let keyOps: [String]?
    public let alg: String?
    /// "P-256" for EC keys, nil for RSA.
    public let crv: String?
    public let key: PublicKey

    public init(kty: String, kid: String?, use: String?, keyOps: [String]?, alg: String?, crv: String?,
                key: PublicKey) {
        self.kty = kty
        self.kid = kid
        self.use = use
        self.keyOps = keyOps
        self.alg = alg
        self.crv = crv
        self.key = key
    }

    /// Reads one member of a key set's `keys`. Throws `.malformed` for anything we cannot use:
    /// a non-object, a member of the wrong type, a `kty` other than RSA/EC, a curve other than
    /// P-256, key material that is missing, not strict base64url, or refused by `PublicKey`.
    public static func parse(_ value: JSONValue) throws(TokenError) -> JWK {
        guard case .object = value else { throw .malformed("JWK not an object") }
        guard let kty = value["kty"]?.stringValue else { throw .malformed("JWK kty") }
        let kid = try optionalString(value, "kid")
        let use = try optionalString(value, "use")
        let alg = try optionalString(value, "alg")
        var keyOps: [String]?
        if let ops = value["key_ops"] {
            guard let array = ops.arrayValue else { throw .malformed("JWK key_ops") }
            var names: [String] = []
            for op in array {
                guard let name = op.stringValue else { throw .malformed("JWK key_ops") }
                names.append(name)
            }
            keyOps = names
        }
        switch kty {
        case "RSA":
            let key = try PublicKey.rsa(modulus: try material(value, "n"), exponent: try material(value, "e"))
            return JWK(kty: kty, kid: kid, use: use, keyOps: keyOps, alg: alg, crv: nil, key: key)
        case "EC":
            guard let crv = value["crv"]?.stringValue else { throw .malformed("JWK crv") }
            guard crv == "P-256" else { throw .malformed("JWK curve not supported") }
            let key = try PublicKey.p256(x: try material(value, "x"), y: try material(value, "y"))
            return JWK(kty: kty, kid: kid, use: use, keyOps: keyOps, alg: alg, crv: crv, key: key)
        default:
            throw .malformed("JWK kty not supported")
        }
    }

    /// Whether a token signed with `algorithm` may be checked with this key: the key type fits
    /// (RSA for RS256, P-256 for ES256), `use` is "sig" when present, `key_ops` contains "verify"
    /// when present, and `alg` equals the token's when present.
    public func allows(_ algorithm: JWSAlgorithm) -> Bool {
        guard key.fits(algorithm) else { return false }
        if let use, use != "sig" { return false }
        if let keyOps, !keyOps.contains("verify") { return false }
        if let alg, alg != algorithm.rawValue { return false }
        return true
    }

    private static func optionalString(_ value: JSONValue, _ name: String) throws(TokenError) -> String? {
        guard let member = value[name] else { return nil }
        guard let string = member.stringValue else { throw .malformed("JWK \(name)") }
        return string
    }

    private static func material(_ value: JSONValue, _ name: String) throws(TokenError) -> [UInt8] {
        guard let text = value[name]?.stringValue, let bytes = Base64URL.decode(text), !bytes.isEmpty else {
            throw .malformed("JWK \(name)")
        }
        return bytes
    }
}
