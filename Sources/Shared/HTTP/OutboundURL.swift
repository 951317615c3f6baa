#if canImport(Glibc)
import Glibc
#endif

/// Rule 8: outbound connections use TLS, except to loopback addresses.
///
/// The parser is deliberately narrower than libcurl's: anything it cannot read with certainty is
/// refused rather than guessed at, so a URL it calls loopback is one libcurl connects to loopback.
/// Refused, among others: whitespace, control characters and backslashes anywhere; more than one
/// `@` in the authority; IPv4 written in anything but plain dotted decimal (`0x7f000001`,
/// `127.1` and `0177.0.0.1` are not loopback here); IPv6 zone ids; empty ports.
public enum OutboundURL {
    public enum Kind: Sendable, Equatable { case tls, loopback }

    /// `https://` and `smtps://` → `.tls`; `http://` and `smtp://` to 127.0.0.0/8, `[::1]` or
    /// `localhost` → `.loopback`; `smtp://` elsewhere → `.tls` only when the caller requires STARTTLS;
    /// anything else → nil.
    public static func classify(_ url: String, smtpStartTLSRequired: Bool = true) -> Kind? {
        guard let parts = parse(url) else { return nil }
        let loopback = isLoopback(host: parts.host)
        switch parts.scheme {
        case "https", "smtps": return .tls
        case "http": return loopback ? .loopback : nil
        case "smtp": return loopback ? .loopback : (smtpStartTLSRequired ? .tls : nil)
        default: return nil
        }
    }

    /// An HTTP proxy's address, `http://host:port`, nothing more (no path, no user): the tunnel it
    /// opens (CONNECT) carries TLS end to end, so the proxy need not be loopback or TLS itself.
    public static func isProxy(_ url: String) -> Bool {
        guard let parts = parse(url), parts.scheme == "http", parts.port != nil, !url.contains("@") else { return false }
        let rest = url.dropFirst("http://".count).drop { $0 != "/" }
        return rest.isEmpty || rest == "/"
    }

    /// The host alone (lower-cased, IPv6 in brackets), for error messages: unlike the whole URL it
    /// never carries a query string, where API keys travel.
    public static func host(of url: String) -> String? { parse(url)?.host }

    struct Parts: Equatable {
        var scheme: String
        var host: String
        var port: Int?
    }

    static func parse(_ url: String) -> Parts? {
        let bytes = Array(url.utf8)
        // Printable ASCII only; a backslash is a path separator to some parsers and not to others.
        guard !bytes.isEmpty, bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") }) else {
            return nil
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
              bytes[colon...].starts(with: Array("://".utf8))
        else { return nil }
        let scheme = bytes[..<colon]
        let schemeCharacter = { (c: UInt8) in isAlpha(c) || isDigit(c) || isOne(c, of: "+-.") }
        guard let first = scheme.first, isAlpha(first), scheme.allSatisfy(schemeCharacter) else { return nil }
        let authorityStart = colon + 3
        let authorityEnd = bytes[authorityStart...].firstIndex { isOne($0, of: "/?#") } ?? bytes.endIndex
        var hostPort = bytes[authorityStart..<authorityEnd]
        let ats = hostPort.indices.filter { hostPort[$0] == UInt8(ascii: "@") }
        if ats.count > 1 { return nil }
        if let at = ats.first {
            guard at > hostPort.startIndex else { return nil }
            hostPort = hostPort[(at + 1)...]
        }
        guard let (host, port) = splitHostPort(hostPort) else { return nil }
        return Parts(scheme: String(decoding: scheme, as: UTF8.self).lowercased(), host: host, port: port)
    }

    private static func splitHostPort(_ text: ArraySlice<UInt8>) -> (String, Int?)? {
        var host: String
        var rest: ArraySlice<UInt8>
        if text.first == UInt8(ascii: "[") {
            guard let close = text.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            let inside = String(decoding: text[(text.startIndex + 1)..<close], as: UTF8.self).lowercased()
            guard parseIPv6(inside) != nil else { return nil }
            host = "[\(inside)]"
            rest = text[(close + 1)...]
        } else {
            let end = text.firstIndex(of: UInt8(ascii: ":")) ?? text.endIndex
            let name = text[..<end]
            let allowed = { (c: UInt8) in isAlpha(c) || isDigit(c) || isOne(c, of: "-._") }
            guard !name.isEmpty, name.allSatisfy(allowed) else { return nil }
            host = String(decoding: name, as: UTF8.self).lowercased()
            rest = text[end...]
        }
        guard let colon = rest.first else { return (host, nil) }
        guard colon == UInt8(ascii: ":") else { return nil }
        let digits = rest.dropFirst()
        guard (1...5).contains(digits.count), digits.allSatisfy(isDigit),
              let port = Int(String(decoding: digits, as: UTF8.self)), (1...65535).contains(port)
        else { return nil }
        return (host, port)
    }

    static func isLoopback(host: String) -> Bool {
        if host == "localhost" { return true }
        if host.hasPrefix("[") {
            guard let address = parseIPv6(String(host.dropFirst().dropLast())) else { return false }
            return address == Array(repeating: 0, count: 15) + [1]
        }
        return dottedQuad(host)?.first == 127
    }

    /// Four decimal octets without leading zeros, the one IPv4 spelling every parser agrees on.
    /// Read byte by byte: `split` and `Int(Substring)` cost every config load ~80 K instructions
    /// of generic set-up. Only ASCII digits and dots can make a quad, so bytes decide as well.
    private static func dottedQuad(_ host: String) -> [Int]? {
        var octets: [Int] = []
        var value = 0
        var digits = 0
        var leadingZero = false
        for byte in host.utf8 {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, octets.count < 3 else { return nil }
                octets.append(value)
                value = 0
                digits = 0
                continue
            }
            // Up to three digits, and no digit after a leading zero.
            guard isDigit(byte), digits < 3, !(digits == 1 && leadingZero) else { return nil }
            if digits == 0 { leadingZero = byte == UInt8(ascii: "0") }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            guard value <= 255 else { return nil }
            digits += 1
        }
        guard digits > 0, octets.count == 3 else { return nil }
        octets.append(value)
        return octets
    }

    private static func parseIPv6(_ text: String) -> [UInt8]? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }

    private static func isAlpha(_ c: UInt8) -> Bool {
        (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z")
    }
    private static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
    /// Whether `c` is one of the ASCII bytes of `set`; `String.UTF8View.contains` cost a config
    /// load ~18 K instructions.
    private static func isOne(_ c: UInt8, of set: StaticString) -> Bool {
        set.withUTF8Buffer { $0.contains(c) }
    }
}
