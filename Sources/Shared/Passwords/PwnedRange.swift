/// The Pwned Passwords range service (k-anonymity): the first 5 hex digits of the password's SHA-1
/// go out, the service answers every suffix it holds under them as `SUFFIX:COUNT` lines, and the
/// match is made here. `Add-Padding: true` has it pad the answer with made-up suffixes of count 0
/// (to 800 to 1,000 lines), so its size does not tell the prefix either. Sources: the service's
/// documentation (https://haveibeenpwned.com/API/v3#PwnedPasswords) and its padding
/// (https://www.troyhunt.com/enhancing-pwned-passwords-privacy-with-padding/).
public enum PwnedRange {
    public enum Answer: Sendable, Equatable {
        /// The service has seen it this many times (more than 0).
        case seen(Int)
        case notSeen
        /// Not asked, no answer in time, or an answer that is not a range: why, for syslog (never
        /// the prefix, which is a fifth of the hash).
        case unavailable(String)
    }

    public static let prefixDigits = 5

    /// Asks `url`/`PREFIX` about the password's SHA-1 (of its UTF-8 in NFC, as it would be stored).
    public static func ask(
        about password: String, url: String, timeoutSeconds: Double, client: HTTPClient? = nil
    ) -> Answer {
        let hash: String
        do {
            hash = try SHA1.hexDigest(PasswordHasher.normalised(password))
        } catch {
            return .unavailable("SHA-1 failed")
        }
        let prefix = String(hash.prefix(prefixDigits))
        let suffix = String(hash.dropFirst(prefixDigits))
        let client = client ?? CurlHTTPClient(connectTimeoutSeconds: timeoutSeconds, totalTimeoutSeconds: timeoutSeconds)
        let response: HTTPResponse
        do {
            response = try client.send(HTTPRequest(
                method: "GET", url: url + "/" + prefix, headers: [("Add-Padding", "true"), ("User-Agent", "frontdoor")]))
        } catch {
            return .unavailable(error.detail ?? error.message)
        }
        guard response.status == 200 else { return .unavailable("it answered \(response.status)") }
        guard let lines = parse(response.body) else { return .unavailable("its answer is not a range of SUFFIX:COUNT lines") }
        for line in lines where line.suffix == suffix {
            return line.count > 0 ? .seen(line.count) : .notSeen
        }
        return .notSeen
    }

    /// The answer's lines (CRLF or LF between them, suffixes in either case, upper-cased here);
    /// nil when any line is not `35 hex digits:count` or there is none.
    public static func parse(_ body: [UInt8]) -> [(suffix: String, count: Int)]? {
        var out: [(String, Int)] = []
        for raw in body.split(separator: 0x0A, omittingEmptySubsequences: false) {
            let line = raw.last == 0x0D ? raw.dropLast() : raw[...]
            if line.isEmpty { continue }
            guard let colon = line.firstIndex(of: 0x3A), colon - line.startIndex == 40 - prefixDigits else { return nil }
            let suffix = line[..<colon]
            let digits = line[(colon + 1)...]
            guard suffix.allSatisfy(isHex), !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let count = Int(String(decoding: digits, as: UTF8.self))
            else { return nil }
            out.append((String(decoding: suffix, as: UTF8.self).uppercased(), count))
        }
        return out.isEmpty ? nil : out
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }
}
