import FoundationEssentials
import Shared
import Testing

/// Project Wycheproof vectors, read in place from `../shared/vectors/wycheproof` beside the
/// package root (see that folder's README). Where the folder is absent the suite is reported as
/// skipped, never as passed.
enum Wycheproof {
    static let directory: String = {
        // #filePath is <root>/Tests/SharedTests/WycheproofTests.swift.
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/") + "/../shared/vectors/wycheproof"
    }()

    static var available: Bool {
        FileManager.default.fileExists(atPath: directory + "/json_web_signature_test.json")
    }

    static func load(_ name: String) throws -> JSONValue {
        let data = try #require(FileManager.default.contents(atPath: directory + "/" + name), "cannot read \(name)")
        return try JSONParser.parse([UInt8](data), maxDepth: 64)
    }

    static func hex(_ text: String?) throws -> [UInt8] {
        let digits = Array(try #require(text).utf8)
        try #require(digits.count % 2 == 0)
        var out: [UInt8] = []
        for i in stride(from: 0, to: digits.count, by: 2) {
            out.append(try #require(UInt8(String(decoding: digits[i..<(i + 2)], as: UTF8.self), radix: 16)))
        }
        return out
    }
}

@Suite(.enabled(if: Wycheproof.available, "Wycheproof vectors not found at ../shared/vectors/wycheproof: skipped"))
struct WycheproofTests {
    /// Valid RS256/ES256 cases we refuse on principle, by tcId, with the reason. None so far:
    /// every such key in the file is RSA-2048 or P-256 and within our rules.
    static let jwsRejectedOnPrinciple: [Int: String] = [:]

    /// json_web_signature_test.json: a case whose header alg is RS256 or ES256 and whose result is
    /// `valid` must verify through `verifySignature`; every other case must be refused.
    @Test func jsonWebSignature() throws {
        let document = try Wycheproof.load("json_web_signature_test.json")
        var verified = 0, refused = 0, checked = 0
        for group in document["testGroups"]?.arrayValue ?? [] {
            // The HMAC groups publish only their secret (kty "oct"), which the key set skips.
            let jwk = try #require(group["public"] ?? group["private"])
            let keys = try JSONWebKeySet.parse(JSONValue.object([("keys", .array([jwk]))]).serialized)
            for test in group["tests"]?.arrayValue ?? [] {
                let id = Int(try #require(test["tcId"]?.numberValue))
                let jws = try #require(test["jws"]?.stringValue)
                let alg = Self.headerAlg(jws)
                let allowedAlg = alg == "RS256" || alg == "ES256"
                let mustVerify = test["result"] == "valid" && allowedAlg && Self.jwsRejectedOnPrinciple[id] == nil
                var error: TokenError?
                do {
                    try verifySignature(of: CompactJWS.parse(jws), with: keys)
                } catch let e {
                    error = e
                }
                checked += 1
                if error == nil { verified += 1 } else { refused += 1 }
                if mustVerify {
                    let why = String(describing: error)
                    #expect(error == nil, "tcId \(id) (\(test["comment"]?.stringValue ?? "")) refused: \(why)")
                } else {
                    #expect(error != nil, "tcId \(id) (\(test["comment"]?.stringValue ?? "")) was accepted")
                }
            }
        }
        #expect(checked == Int(document["numberOfTests"]?.numberValue ?? -1))
        print("Wycheproof JWS: \(checked) cases, \(verified) verified, \(refused) refused")
    }

    /// rsa_signature_2048_sha256_test.json through `PublicKey` (RSASSA-PKCS1-v1_5, SHA-256).
    /// "acceptable" (tcId 8, a DigestInfo without the NULL parameter, legacy): we require it to
    /// be refused; OpenSSL compares the whole expected encoding, and nobody we verify signs so.
    @Test func rsaPKCS1SHA256() throws {
        let document = try Wycheproof.load("rsa_signature_2048_sha256_test.json")
        var counts: [String: Int] = [:]
        for group in document["testGroups"]?.arrayValue ?? [] {
            let key = try PublicKey.rsa(
                modulus: Wycheproof.hex(group["publicKey"]?["modulus"]?.stringValue),
                exponent: Wycheproof.hex(group["publicKey"]?["publicExponent"]?.stringValue))
            for test in group["tests"]?.arrayValue ?? [] {
                let id = Int(test["tcId"]?.numberValue ?? -1)
                let ok = key.verify(
                    .rs256, signature: try Wycheproof.hex(test["sig"]?.stringValue),
                    message: try Wycheproof.hex(test["msg"]?.stringValue))
                let result = test["result"]?.stringValue ?? "?"
                counts["\(result)/\(ok ? "verified" : "refused")", default: 0] += 1
                #expect(ok == (result == "valid"), "tcId \(id) \(result) \(test["flags"]?.serialized ?? "")")
            }
        }
        #expect(counts.values.reduce(0, +) == Int(document["numberOfTests"]?.numberValue ?? -1))
        print("Wycheproof RSA PKCS#1 SHA-256: \(counts.sorted { $0.key < $1.key })")
    }

    /// ecdsa_secp256r1_sha256_p1363_test.json through `PublicKey` (r||s, converted to DER by us).
    /// The file has no "acceptable" cases.
    @Test func ecdsaP256SHA256P1363() throws {
        let document = try Wycheproof.load("ecdsa_secp256r1_sha256_p1363_test.json")
        var counts: [String: Int] = [:]
        for group in document["testGroups"]?.arrayValue ?? [] {
            let point = try Wycheproof.hex(group["publicKey"]?["uncompressed"]?.stringValue)
            try #require(point.count == 65 && point[0] == 0x04)
            let key = try PublicKey.p256(x: Array(point[1..<33]), y: Array(point[33..<65]))
            for test in group["tests"]?.arrayValue ?? [] {
                let id = Int(test["tcId"]?.numberValue ?? -1)
                let ok = key.verify(
                    .es256, signature: try Wycheproof.hex(test["sig"]?.stringValue),
                    message: try Wycheproof.hex(test["msg"]?.stringValue))
                let result = test["result"]?.stringValue ?? "?"
                counts["\(result)/\(ok ? "verified" : "refused")", default: 0] += 1
                #expect(ok == (result == "valid"), "tcId \(id) \(result) \(test["comment"]?.stringValue ?? "")")
            }
        }
        #expect(counts.values.reduce(0, +) == Int(document["numberOfTests"]?.numberValue ?? -1))
        print("Wycheproof ECDSA P-256 SHA-256 P1363: \(counts.sorted { $0.key < $1.key })")
    }

    private static func headerAlg(_ jws: String) -> String? {
        guard let first = jws.split(separator: ".", omittingEmptySubsequences: false).first,
            let bytes = Base64URL.decode(first), let header = try? JSONParser.parse(bytes)
        else { return nil }
        return header["alg"]?.stringValue
    }
}
