import Testing
@testable import FrontdoorClient
import enum Shared.SHA256

/// The client's own SHA-256 (used where CryptoKit is missing) against NIST's published values:
/// FIPS 180-4's examples (the one-, two- and 896-bit-block messages and a million "a"s) and the
/// first byte-oriented CAVP vectors (SHA256ShortMsg.rsp, SHA256LongMsg.rsp, CAVS 11.0).
@Suite struct PlainSHA256Tests {
    static let fips: [(String, String)] = [
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ]

    /// (message hex, digest hex): Len = 0, 8, 16, 24 and 512 of ShortMsg, Len = 1304 of LongMsg.
    static let cavp: [(String, String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("d3", "28969cdfa74a12c82f3bad960b0b000aca2ac329deea5c2328ebc6f2ba9802c1"),
        ("11af", "5ca7133fa735326081558ac312c620eeca9970d1e70a4b95533d956f072d1f98"),
        ("b4190e", "dff2e73091f6c05e528896c4c831b9448653dc2ff043528f6769437bc7b975c2"),
        ("5a86b737eaea8ee976a0a24da63e7ed7eefad18a101c1211e2b3650c5187c2a8a650547208251f6d4237e661c7bf4c77f335390394c37fa1a9f9be836ac28509",
         "42e61e174fbb3897d6dd6cef3dd2802fe67b331953b06114a65c772859dfc1aa"),
        ("451101250ec6f26652249d59dc974b7361d571a8101cdfd36aba3b5854d3ae086b5fdd4597721b66e3c0dc5d8c606d9657d0e323283a5217d1f53f2f284f57b85c8a61ac8924711f895c5ed90ef17745ed2d728abd22a5f7a13479a462d71b56c19a74a40b655c58edfe0a188ad2cf46cbf30524f65d423c837dd1ff2bf462ac4198007345bb44dbb7b1c861298cdf61982a833afc728fae1eda2f87aa2c9480858bec",
         "3c593aa539fdcdae516cdf2f15000f6634185c88f505b39775fb9ab137a10aa2"),
    ]

    static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }

    @Test func fipsExamples() {
        for (message, digest) in Self.fips {
            #expect(ByteText.hex(PlainSHA256.hash(message.utf8)) == digest, "\(message)")
        }
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(ByteText.hex(PlainSHA256.hash(million)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func cavpVectors() {
        for (message, digest) in Self.cavp {
            #expect(ByteText.hex(PlainSHA256.hash(Self.bytes(hex: message))) == digest, "Len = \(message.count * 4)")
        }
    }

    /// Fed in pieces at every split point, the digest is the one-shot digest.
    @Test func piecesMakeTheSameDigest() {
        let message = Self.bytes(hex: Self.cavp[5].0)
        for split in 0...message.count {
            var digest = PlainSHA256()
            digest.update(message[..<split])
            digest.update(message[split...])
            #expect(ByteText.hex(digest.finish()) == Self.cavp[5].1, "split at \(split)")
        }
    }

    /// Every length around the padding's edges (55, 56, 63, 64 bytes ...) against OpenSSL's
    /// SHA-256 (the server's), on seeded random bytes.
    @Test func agreesWithOpenSSLOnEveryLengthUpTo300() {
        var random = SeededGenerator(seed: 0x5EED_0034)
        print("PlainSHA256Tests seed 0x5EED0034")
        for length in 0...300 {
            let message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            #expect(PlainSHA256.hash(message) == SHA256.hash(message), "length \(length)")
        }
    }
}

/// splitmix64: a fixed sequence for a seed, so a failure can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
