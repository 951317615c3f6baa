#if canImport(Glibc)
import Glibc
#endif

/// What per-client limits count by. An IPv4 address is one client; an IPv6 client is its /64,
/// the smallest network an ISP hands a household (RFC 6177), since anyone with one /64 has 2^64
/// addresses to spread guesses over.
public enum ClientAddress {
    /// `REMOTE_ADDR` as the limits key it: IPv4 as given, IPv6 as its /64
    /// (`2001:0db8:0001:0002::/64`), an IPv4-mapped IPv6 address as its IPv4 address, anything
    /// else (no address, a form `inet_pton` refuses) as given, or `-`.
    public static func limitKey(_ remoteAddress: String?) -> String {
        guard let remote = remoteAddress, !remote.isEmpty else { return "-" }
        guard remote.utf8.contains(UInt8(ascii: ":")) else { return remote }
        var address = in6_addr()
        guard inet_pton(AF_INET6, remote, &address) == 1 else { return remote }
        let bytes = withUnsafeBytes(of: address) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return bytes[12..<16].map { String($0) }.joined(separator: ".")
        }
        var groups: [String] = []
        for i in stride(from: 0, to: 8, by: 2) {
            let group = String(UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]), radix: 16)
            groups.append(String(repeating: "0", count: 4 - group.count) + group)
        }
        return groups.joined(separator: ":") + "::/64"
    }
}
