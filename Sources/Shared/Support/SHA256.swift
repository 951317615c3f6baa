import COpenSSL

/// SHA-256 (Apple's nonce claim, `c_hash`, stored hashes, RS256), through OpenSSL's direct
/// implementation rather than EVP, whose provider set-up would cost every process.
public enum SHA256 {
    public static let byteCount = 32

    /// The 32-byte digest. OpenSSL's SHA-256 cannot fail on valid pointers; should it ever, this
    /// returns an empty array, which equals no digest, so any comparison fails closed. Use
    /// `digest(_:)` to see that failure as an error.
    public static func hash<B: Collection>(_ bytes: B) -> [UInt8] where B.Element == UInt8 {
        (try? digest(bytes)) ?? []
    }

    /// The digest of `count` bytes at `base` (a mapped file's), or `.internal` if OpenSSL fails.
    static func digest(base: UnsafeRawPointer, count: Int) throws(FrontdoorError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: byteCount)
        let ok = out.withUnsafeMutableBufferPointer { md in frontdoor_sha256(base, count, md.baseAddress) }
        guard ok == 1 else { throw .internal("SHA-256 failed") }
        return out
    }

    /// The 32-byte digest, or `.internal` if OpenSSL fails.
    public static func digest<B: Collection>(_ bytes: B) throws(FrontdoorError) -> [UInt8] where B.Element == UInt8 {
        var out = [UInt8](repeating: 0, count: byteCount)
        let input = bytes as? [UInt8] ?? Array(bytes)
        let ok = input.withUnsafeBytes { data in
            out.withUnsafeMutableBufferPointer { md in frontdoor_sha256(data.baseAddress, data.count, md.baseAddress) }
        }
        guard ok == 1 else { throw .internal("SHA-256 failed") }
        return out
    }
}
