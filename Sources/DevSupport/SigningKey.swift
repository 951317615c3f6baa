import COpenSSL
import Shared

/// Why a development key could not be made or used; names the OpenSSL step.
public struct SigningKeyError: Error, Sendable, CustomStringConvertible {
    public let step: String
    public var description: String { "OpenSSL \(step) failed" }
}

/// A private key for tests and the loopback fakes: generates RS256 or ES256 keys, publishes the
/// public half as a JWK and signs. Owns its `EVP_PKEY` (freed in deinit); signing creates a fresh
/// context each time, so concurrent use is safe.
public final class SigningKey: @unchecked Sendable {
    public let kid: String
    /// "RS256" or "ES256".
    public var algorithm: String { isRSA ? "RS256" : "ES256" }

    private let pkey: OpaquePointer
    private let isRSA: Bool
    private let publicMembers: [(String, JSONValue)]

    private init(pkey: OpaquePointer, kid: String, isRSA: Bool) throws {
        self.pkey = pkey
        self.kid = kid
        self.isRSA = isRSA
        // Read once here so publicJWK() cannot fail.
        if isRSA {
            publicMembers = [
                ("n", .string(Base64URL.encode(try SigningKey.bignumParam(pkey, "n")))),
                ("e", .string(Base64URL.encode(try SigningKey.bignumParam(pkey, "e")))),
            ]
        } else {
            var point = [UInt8](repeating: 0, count: 65)
            var length = 0
            guard EVP_PKEY_get_octet_string_param(pkey, "pub", &point, point.count, &length) == 1,
                length == 65, point[0] == 0x04
            else { throw SigningKeyError(step: "get pub") }
            publicMembers = [
                ("crv", "P-256"),
                ("x", .string(Base64URL.encode(point[1..<33]))),
                ("y", .string(Base64URL.encode(point[33..<65]))),
            ]
        }
    }

    deinit { EVP_PKEY_free(pkey) }

    public static func rsa(bits: Int = 2048, kid: String) throws -> SigningKey {
        let pkey = try generate("RSA") { ctx in EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, Int32(bits)) == 1 }
        do {
            return try SigningKey(pkey: pkey, kid: kid, isRSA: true)
        } catch {
            EVP_PKEY_free(pkey)
            throw error
        }
    }

    public static func p256(kid: String) throws -> SigningKey {
        let pkey = try generate("EC") { ctx in EVP_PKEY_CTX_set_group_name(ctx, "P-256") == 1 }
        do {
            return try SigningKey(pkey: pkey, kid: kid, isRSA: false)
        } catch {
            EVP_PKEY_free(pkey)
            throw error
        }
    }

    /// `{"kty","kid","use":"sig","alg", n/e or crv/x/y}`; a member of `extra` replaces the member
    /// of the same name (so `("use", "enc")` changes `use`), others are appended.
    public func publicJWK(extra: [(String, JSONValue)] = []) -> JSONValue {
        let base: [(String, JSONValue)] =
            [("kty", .string(isRSA ? "RSA" : "EC")), ("kid", .string(kid)), ("use", "sig"), ("alg", .string(algorithm))]
            + publicMembers
        return .object(mergingJSONMembers(base, extra))
    }

    /// The SubjectPublicKeyInfo DER, for the HMAC key-confusion test (an attacker's usual secret).
    public func publicKeyDER() throws -> [UInt8] {
        let length = i2d_PUBKEY(pkey, nil)
        guard length > 0 else { throw SigningKeyError(step: "i2d_PUBKEY") }
        var out = [UInt8](repeating: 0, count: Int(length))
        let written = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_PUBKEY(pkey, &cursor)
        }
        guard written == length else { throw SigningKeyError(step: "i2d_PUBKEY") }
        return out
    }

    /// The private key as PKCS#8 PEM (`BEGIN PRIVATE KEY`), the form of Apple's `.p8` files.
    public func privateKeyPEM() throws -> String {
        defer { ERR_clear_error() }
        guard let bio = BIO_new(BIO_s_mem()) else { throw SigningKeyError(step: "BIO_new") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PKCS8PrivateKey(bio, pkey, nil, nil, 0, nil, nil) == 1 else {
            throw SigningKeyError(step: "PEM_write_bio_PKCS8PrivateKey")
        }
        var out = [UInt8](repeating: 0, count: Int(BIO_ctrl_pending(bio)))
        let read = out.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32($0.count)) }
        guard read == out.count else { throw SigningKeyError(step: "BIO_read") }
        return String(decoding: out, as: UTF8.self)
    }

    /// RS256: PKCS#1 v1.5 with SHA-256. ES256: ECDSA with SHA-256 as 64-byte r||s.
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        defer { ERR_clear_error() }
        guard let md = EVP_MD_CTX_new() else { throw SigningKeyError(step: "EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(md) }
        var pctx: OpaquePointer?
        guard EVP_DigestSignInit(md, &pctx, EVP_sha256(), nil, pkey) == 1, let pctx else {
            throw SigningKeyError(step: "EVP_DigestSignInit")
        }
        if isRSA, EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) != 1 {
            throw SigningKeyError(step: "set_rsa_padding")
        }
        var length = 0
        guard EVP_DigestSign(md, nil, &length, message, message.count) == 1 else {
            throw SigningKeyError(step: "EVP_DigestSign (length)")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(md, &signature, &length, message, message.count) == 1 else {
            throw SigningKeyError(step: "EVP_DigestSign")
        }
        signature.removeSubrange(length...)
        return isRSA ? signature : try SigningKey.rawECDSA(fromDER: signature)
    }

    private static func rawECDSA(fromDER der: [UInt8]) throws -> [UInt8] {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let sig = parsed else { throw SigningKeyError(step: "d2i_ECDSA_SIG") }
        defer { ECDSA_SIG_free(sig) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(sig, &r, &s)
        var raw = [UInt8](repeating: 0, count: 64)
        let ok = raw.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return BN_bn2binpad(r, base, 32) == 32 && BN_bn2binpad(s, base + 32, 32) == 32
        }
        guard ok else { throw SigningKeyError(step: "BN_bn2binpad") }
        return raw
    }

    private static func generate(_ type: String, configure: (OpaquePointer) -> Bool) throws -> OpaquePointer {
        guard OpenSSLRuntime.start() else { throw SigningKeyError(step: "init") }
        defer { ERR_clear_error() }
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, type, nil) else {
            throw SigningKeyError(step: "EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_keygen_init(ctx) == 1, configure(ctx) else { throw SigningKeyError(step: "keygen_init") }
        var pkey: OpaquePointer?
        guard EVP_PKEY_generate(ctx, &pkey) == 1, let pkey else {
            EVP_PKEY_free(pkey)
            throw SigningKeyError(step: "EVP_PKEY_generate")
        }
        return pkey
    }

    private static func bignumParam(_ pkey: OpaquePointer, _ name: String) throws -> [UInt8] {
        var bn: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pkey, name, &bn) == 1, let bn else { throw SigningKeyError(step: "get \(name)") }
        defer { BN_free(bn) }
        var out = [UInt8](repeating: 0, count: (Int(BN_num_bits(bn)) + 7) / 8)
        guard BN_bn2binpad(bn, &out, Int32(out.count)) == Int32(out.count) else {
            throw SigningKeyError(step: "BN_bn2binpad")
        }
        return out
    }
}

/// `base` with each member of `extra` replacing the same-named one, or appended.
func mergingJSONMembers(_ base: [(String, JSONValue)], _ extra: [(String, JSONValue)]) -> [(String, JSONValue)] {
    var members = base
    for (name, value) in extra {
        if let i = members.firstIndex(where: { $0.0 == name }) {
            members[i].1 = value
        } else {
            members.append((name, value))
        }
    }
    return members
}
