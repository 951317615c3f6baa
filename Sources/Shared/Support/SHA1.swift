import COpenSSL

/// SHA-1, for the Pwned Passwords range service alone: its k-anonymity ranges are keyed by the
/// SHA-1 of a password, and only the first 5 hex digits of it ever leave the box.
public enum SHA1 {
    public static let byteCount = 20

    /// The 20-byte digest, or `.internal` if OpenSSL fails.
    public static func digest(_ bytes: [UInt8]) throws(FrontdoorError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: byteCount)
        let ok = bytes.withUnsafeBytes { data in
            out.withUnsafeMutableBufferPointer { md in frontdoor_sha1(data.baseAddress, data.count, md.baseAddress) }
        }
        guard ok == 1 else { throw .internal("SHA-1 failed") }
        return out
    }

    /// The digest in upper-case hex, as the range service writes its suffixes.
    public static func hexDigest(_ bytes: [UInt8]) throws(FrontdoorError) -> String {
        Hex.encode(try digest(bytes)).uppercased()
    }
}
