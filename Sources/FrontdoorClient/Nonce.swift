#if canImport(CryptoKit)
import CryptoKit
import Foundation
#endif

/// The one-off value that ties a provider's token to one sign-in (DESIGN rules 5 and 21): the
/// provider gets only `hashed`, the server gets `raw`, and the server checks that they match.
/// Make a new one for every sign-in attempt, and for the fresh Apple authorization a deletion
/// sends.
public struct Nonce: Sendable, Equatable {
    /// What the server gets (`rawNonce`): 32 random bytes as 64 lowercase hex digits.
    public let raw: String

    /// What the provider gets (Apple's `request.nonce`, Google's `setNonce`): the lowercase hex
    /// SHA-256 of `raw`'s UTF-8 bytes. Not base64: a base64 hash fails with `invalid_token`.
    public var hashed: String { Nonce.sha256Hex(raw) }

    /// 32 bytes from the system's generator (`SystemRandomNumberGenerator`: the kernel's
    /// `getrandom` on Linux, `arc4random_buf` on Apple's platforms; both cryptographically secure).
    public init() {
        var generator = SystemRandomNumberGenerator()
        raw = ByteText.hex((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// A nonce made elsewhere (one the app keeps across a retry of the same token, say).
    public init(raw: String) {
        self.raw = raw
    }

    static func sha256Hex(_ text: String) -> String {
        #if canImport(CryptoKit)
        return ByteText.hex(CryptoKit.SHA256.hash(data: Data(text.utf8)))
        #else
        return ByteText.hex(PlainSHA256.hash(text.utf8))
        #endif
    }
}
