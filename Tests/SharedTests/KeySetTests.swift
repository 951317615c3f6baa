import DevSupport
@testable import Shared
import Testing

@Suite struct KeySetTests {
    typealias F = TokenFixtures

    @Test func parsesMintedSet() throws {
        let set = try F.keySet([F.rsa.get(), F.ec.get()])
        #expect(set.keys.map(\.kid) == ["rsa-1", "ec-1"])
        #expect(set.keys.map(\.kty) == ["RSA", "EC"])
        #expect(set.keys[0].key.kind == .rsa(bits: 2048))
        #expect(set.keys[1].key.kind == .p256)
        #expect(set.keys[1].crv == "P-256")
        #expect(set.keys.allSatisfy { $0.use == "sig" })
        #expect(set.skippedKeyIDs.isEmpty)
    }

    @Test func parsesGoogleShapedSet() throws {
        // Google's certs document carries members we do not use; they are ignored.
        let key = try F.rsa.get()
        let jwk = key.publicJWK(extra: [("x5t", "abc")])
        let text = JSONValue.object([("keys", .array([jwk])), ("etag", "1")]).serialized
        #expect(try JSONWebKeySet.parse(text).keys.count == 1)
    }

    @Test func skipsKeysWeCannotUse() throws {
        let ec = try F.ec.get()
        let ecJWK = ec.publicJWK()
        let x = try #require(ecJWK["x"]?.stringValue)
        var offCurveY = try #require(ecJWK["y"]?.stringValue.flatMap { Base64URL.decode($0) })
        offCurveY[31] ^= 1
        let rsaJWK = try F.rsa.get().publicJWK()
        let members: [JSONValue] = [
            .object([("kty", "oct"), ("kid", "hmac"), ("k", "AAAA")]),
            .object([("kty", "OKP"), ("kid", "ed"), ("crv", "Ed25519"), ("x", "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwI")]),
            ec.publicJWK(extra: [("kid", "p384"), ("crv", "P-384")]),
            ec.publicJWK(extra: [("kid", "off-curve"), ("y", .string(Base64URL.encode(offCurveY)))]),
            ec.publicJWK(extra: [("kid", "short-x"), ("x", .string(String(x.dropLast(2))))]),
            ec.publicJWK(extra: [("kid", "padded-x"), ("x", .string(x + "="))]),
            ec.publicJWK(extra: [("kid", "use-number"), ("use", 1)]),
            ec.publicJWK(extra: [("kid", "ops-string"), ("key_ops", "verify")]),
            rsaJWK.removing("e", kid: "no-e"),
            try SigningKey.rsa(bits: 1024, kid: "rsa-1024").publicJWK(),
            .object([("kid", "no-kty"), ("n", "AQAB"), ("e", "AQAB")]),
            .object([("kty", "oct")]),  // no kid: skipped without a trace
            ecJWK,
        ]
        let set = try F.keySet(jwks: members)
        #expect(set.keys.map(\.kid) == ["ec-1"])
        #expect(set.skippedKeyIDs == [
            "hmac", "ed", "p384", "off-curve", "short-x", "padded-x", "use-number", "ops-string", "no-e", "rsa-1024",
            "no-kty",
        ])
    }

    @Test(arguments: [
        "", "[]", "{}", #"{"keys":{}}"#, #"{"keys":[1]}"#, #"{"keys":["x"]}"#, #"{"keys":[],"keys":[]}"#,
        #"{"keys":[{"kty":"RSA","kty":"EC"}]}"#, #"{"keys":[]"#,
    ])
    func refusesMalformedSets(text: String) {
        #expect(throws: TokenError.self) { try JSONWebKeySet.parse(text) }
    }

    @Test func acceptsEmptySet() throws {
        #expect(try JSONWebKeySet.parse(#"{"keys":[]}"#).keys.isEmpty)
    }

    @Test func capsSize() throws {
        let many = JSONValue.object([("keys", .array(Array(repeating: .object([("kty", "oct")]), count: 65)))])
        #expect(throws: TokenError.malformed("key set over 64 keys")) { try JSONWebKeySet.parse(many.serialized) }
        let big = #"{"keys":[],"pad":""# + String(repeating: "x", count: 70_000) + #""}"#
        #expect(throws: TokenError.malformed("key set over 65536 bytes")) { try JSONWebKeySet.parse(big) }
    }

    @Test func rsaKeyRules() throws {
        let jwk = try F.rsa.get().publicJWK()
        let n = try #require(jwk["n"]?.stringValue.flatMap { Base64URL.decode($0) })
        let e: [UInt8] = [1, 0, 1]
        #expect(try PublicKey.rsa(modulus: [0, 0] + n, exponent: [0] + e).kind == .rsa(bits: 2048))
        var even = n
        even[even.count - 1] &= 0xFE
        #expect(throws: TokenError.self) { try PublicKey.rsa(modulus: even, exponent: e) }
        #expect(throws: TokenError.self) { try PublicKey.rsa(modulus: Array(n.dropFirst()), exponent: e) }
        #expect(throws: TokenError.self) { try PublicKey.rsa(modulus: n, exponent: [1]) }
        #expect(throws: TokenError.self) { try PublicKey.rsa(modulus: n, exponent: [1, 0, 0]) }
        #expect(throws: TokenError.self) { try PublicKey.rsa(modulus: n, exponent: []) }
        #expect(throws: TokenError.self) { try PublicKey.rsa(modulus: n, exponent: [UInt8](repeating: 1, count: 9)) }
        #expect(throws: TokenError.self) { try PublicKey.rsa(modulus: [], exponent: e) }
        let huge = [UInt8](repeating: 0xFF, count: 1025)
        #expect(throws: TokenError.malformed("RSA modulus over 8192 bits")) {
            try PublicKey.rsa(modulus: huge, exponent: e)
        }
    }

    @Test func ecKeyRules() throws {
        let jwk = try F.ec.get().publicJWK()
        let x = try #require(jwk["x"]?.stringValue.flatMap { Base64URL.decode($0) })
        let y = try #require(jwk["y"]?.stringValue.flatMap { Base64URL.decode($0) })
        #expect(try PublicKey.p256(x: x, y: y).kind == .p256)
        #expect(throws: TokenError.self) { try PublicKey.p256(x: [0] + x, y: [0] + y) }
        #expect(throws: TokenError.self) { try PublicKey.p256(x: [UInt8](repeating: 0, count: 32), y: y) }
        #expect(throws: TokenError.self) {
            try PublicKey.p256(x: [UInt8](repeating: 0, count: 32), y: [UInt8](repeating: 0, count: 32))
        }
        let p: [UInt8] = [
            0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        ]
        #expect(throws: TokenError.self) { try PublicKey.p256(x: p, y: y) }
    }

    @Test func ecdsaDERConversion() throws {
        var raw = [UInt8](repeating: 0, count: 64)
        raw[31] = 0x01
        raw[32] = 0x80
        #expect(ECDSASignature.der(fromRaw: raw) == [0x30, 0x26, 0x02, 0x01, 0x01, 0x02, 0x21, 0x00, 0x80]
            + [UInt8](repeating: 0, count: 31))
        #expect(ECDSASignature.der(fromRaw: [UInt8](repeating: 0, count: 63) + [1]) == nil)
        #expect(ECDSASignature.der(fromRaw: [1] + [UInt8](repeating: 0, count: 63)) == nil)
        #expect(ECDSASignature.der(fromRaw: [UInt8](repeating: 1, count: 65)) == nil)
        let full = [UInt8](repeating: 0xFF, count: 64)
        #expect(ECDSASignature.der(fromRaw: full)?.count == 2 + 2 * 35)
    }
}

extension JSONValue {
    fileprivate func removing(_ name: String, kid: String) -> JSONValue {
        let members = (objectValue ?? []).filter { $0.0 != name }
            .map { $0.0 == "kid" ? ($0.0, JSONValue.string(kid)) : $0 }
        return .object(members)
    }
}
