#if canImport(Glibc)
import Glibc
#endif

/// Name lookups for the self-check, behind a protocol so tests answer them (real DNS is out of
/// reach offline) and the HTTPS probe then goes where the answer said.
public protocol NameResolver {
    /// The host's addresses of one family (`AF_INET` or `AF_INET6`), as text; empty when none.
    func addresses(of host: String, family: Int32) -> [String]
}

/// The system's resolver (`getaddrinfo`), as every outbound call would see it.
public struct SystemResolver: NameResolver {
    public init() {}

    public func addresses(of host: String, family: Int32) -> [String] {
        var hints = addrinfo()
        hints.ai_family = family
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var out: [String] = []
        var cursor = list
        while let entry = cursor {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(entry.pointee.ai_addr, entry.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0,
                           NI_NUMERICHOST) == 0 {
                let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if !out.contains(text) { out.append(text) }
            }
            cursor = entry.pointee.ai_next
        }
        return out
    }
}

/// Answers from a file of lines `host A|AAAA address` (`#` comments): `frontdoor-check --hosts FILE`,
/// for tests and for checking what a planned DNS change would mean. Unlisted names have no address.
public struct FileResolver: NameResolver {
    let entries: [(host: String, family: Int32, address: String)]

    public init(text: String) {
        var entries: [(String, Int32, String)] = []
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 3, !fields[0].hasPrefix("#") else { continue }
            let family: Int32 = fields[1].uppercased() == "AAAA" ? AF_INET6 : AF_INET
            entries.append((fields[0].lowercased(), family, String(fields[2])))
        }
        self.entries = entries
    }

    public func addresses(of host: String, family: Int32) -> [String] {
        entries.filter { $0.host == host.lowercased() && $0.family == family }.map(\.address)
    }
}

/// Whether this host has a route to the IPv4 and to the IPv6 internet. A UDP `connect` only
/// consults the routing table: no packet leaves the box.
public struct Routes: Sendable {
    public var ipv4: Bool
    public var ipv6: Bool

    public init(ipv4: Bool, ipv6: Bool) {
        self.ipv4 = ipv4
        self.ipv6 = ipv6
    }

    public static func probe() -> Routes {
        Routes(ipv4: canRoute(family: AF_INET, address: "192.0.2.1"), ipv6: canRoute(family: AF_INET6, address: "2001:db8::1"))
    }

    /// `ipv4=yes,ipv6=no` (from `frontdoor-check --routes`).
    public static func parse(_ text: String) -> Routes? {
        var routes = Routes(ipv4: false, ipv6: false)
        for part in text.split(separator: ",") {
            let kv = part.split(separator: "=")
            guard kv.count == 2, kv[1] == "yes" || kv[1] == "no" else { return nil }
            switch kv[0] {
            case "ipv4": routes.ipv4 = kv[1] == "yes"
            case "ipv6": routes.ipv6 = kv[1] == "yes"
            default: return nil
            }
        }
        return routes
    }

    private static func canRoute(family: Int32, address: String) -> Bool {
        var hints = addrinfo()
        hints.ai_family = family
        hints.ai_flags = AI_NUMERICHOST
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(address, "53", &hints, &list) == 0, let entry = list else { return false }
        defer { freeaddrinfo(list) }
        let fd = socket(family, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return connect(fd, entry.pointee.ai_addr, entry.pointee.ai_addrlen) == 0
    }
}
