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
        guard let bytes = ipv6(remote) else { return remote }
        if isMapped(bytes) { return bytes[12..<16].map { String($0) }.joined(separator: ".") }
        return prefix(bytes, groups: 4) + "::/64"
    }

    /// The coarser count a few limits add for IPv6: the client's /48, the usual size of one site's
    /// allocation (RFC 6177), which holds 65,536 /64s. nil for IPv4 (one address is already a
    /// client, and a network of them would be a whole NAT's customers) and anything not IPv6.
    public static func networkKey(_ remoteAddress: String?) -> String? {
        guard let remote = remoteAddress, let bytes = ipv6(remote), !isMapped(bytes) else { return nil }
        return prefix(bytes, groups: 3) + "::/48"
    }

    static func ipv6(_ remote: String) -> [UInt8]? {
        guard remote.utf8.contains(UInt8(ascii: ":")) else { return nil }
        var address = in6_addr()
        guard inet_pton(AF_INET6, remote, &address) == 1 else { return nil }
        return withUnsafeBytes(of: address) { Array($0) }
    }

    static func isMapped(_ bytes: [UInt8]) -> Bool {
        bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
    }

    /// The first `groups` 16-bit groups, four hex digits each, joined by colons.
    static func prefix(_ bytes: [UInt8], groups count: Int) -> String {
        var groups: [String] = []
        for i in stride(from: 0, to: count * 2, by: 2) {
            let group = String(UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]), radix: 16)
            groups.append(String(repeating: "0", count: 4 - group.count) + group)
        }
        return groups.joined(separator: ":")
    }
}
