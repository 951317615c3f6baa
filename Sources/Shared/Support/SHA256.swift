import COpenSSL

/// SHA-256 through OpenSSL's EVP interface (Apple's nonce claim, `c_hash`, stored hashes).
public enum SHA256 {
    public static let byteCount = 32

    /// The 32-byte digest. `EVP_Digest` with the built-in provider fails only when memory cannot be
    /// had; then this returns an empty array, which equals no digest, so any comparison fails
    /// closed. Use `digest(_:)` to see that failure as an error.
    public static func hash<B: Collection>(_ bytes: B) -> [UInt8] where B.Element == UInt8 {
        (try? digest(bytes)) ?? []
    }

    /// The 32-byte digest, or `.internal` if OpenSSL fails.
    public static func digest<B: Collection>(_ bytes: B) throws(FrontdoorError) -> [UInt8] where B.Element == UInt8 {
        guard OpenSSLRuntime.start() else { throw .internal("OpenSSL did not initialise") }
        var out = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let input = bytes as? [UInt8] ?? Array(bytes)
        let ok = input.withUnsafeBytes { data in
            out.withUnsafeMutableBufferPointer { md in
                EVP_Digest(data.baseAddress, data.count, md.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        guard ok == 1, length == UInt32(byteCount) else {
            OpenSSLRuntime.clearErrors()
            throw .internal("EVP_Digest(SHA-256) failed")
        }
        return out
    }
}
