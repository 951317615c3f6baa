import CSystem
#if canImport(Glibc)
import Glibc
#endif

/// Randomness straight from the kernel (`getrandom`): session tokens, codes and ids need no
/// user-space generator, and OpenSSL's DRBG costs its set-up on every process.
public enum SecureRandom {
    public static func bytes(_ count: Int) throws(FrontdoorError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = out.withUnsafeMutableBytes { buffer in
                getrandom(buffer.baseAddress! + filled, count - filled, 0)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw .internal("getrandom failed: errno \(errno)")
            }
            filled += n
        }
        return out
    }

    /// A uniform integer in 0..<upperBound, by rejection so no value is favoured.
    public static func uniform(below upperBound: UInt32) throws(FrontdoorError) -> UInt32 {
        precondition(upperBound > 0)
        let limit = UInt32.max - UInt32.max % upperBound
        while true {
            let b = try bytes(4)
            let v = UInt32(b[0]) << 24 | UInt32(b[1]) << 16 | UInt32(b[2]) << 8 | UInt32(b[3])
            if v < limit { return v % upperBound }
        }
    }
}
