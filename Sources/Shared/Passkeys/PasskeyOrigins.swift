/// The origins a passkey response may come from, derived from `passkeys` (DESIGN.md rule 17), and
/// the spellings of the values that derive them.
public enum PasskeyOrigins {
    public static let androidPrefix = "android:apk-key-hash:"

    /// `https://<rpId>` (an iPhone app sends it, as does a browser on the domain), then
    /// `android:apk-key-hash:<key>` for every signing key of every Android app, in config order.
    public static func allowed(rpId: String, androidApps: [Config.Passkeys.AndroidApp]) -> [String] {
        var origins = ["https://" + rpId]
        for app in androidApps {
            for key in app.certSha256 where !origins.contains(android(certificateSHA256: key)) {
                origins.append(android(certificateSHA256: key))
            }
        }
        return origins
    }

    /// A browser origin whose pages may use `rpId` (WebAuthn: the RP ID must be the origin's
    /// host or a registrable suffix of it): `https://<rpId or *.rpId>[:port]`, exactly as a
    /// browser writes it (lowercase, no path, no default port), or `http://localhost[:port]` when
    /// the RP ID is `localhost` (browsers count it a secure context: development).
    public static func isWebOrigin(_ origin: String, rpId: String) -> Bool {
        let scheme: String
        if origin.hasPrefix("https://") { scheme = "https" } else if origin.hasPrefix("http://") { scheme = "http" } else { return false }
        let authority = origin.dropFirst(scheme.count + 3)
        let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let host = String(parts[0])
        if parts.count == 2 {
            guard let port = Int(parts[1]), String(port) == parts[1], (1...65535).contains(port),
                !(scheme == "https" && port == 443), !(scheme == "http" && port == 80)
            else { return false }
        }
        guard isRPID(host), host == rpId || host.hasSuffix("." + rpId) else { return false }
        return scheme == "https" || rpId == "localhost"
    }

    /// The origin an Android app's client writes: the base64url (no padding) of its signing
    /// certificate's SHA-256, as androidx.credentials computes it (`WebAuthnUtils.b64Encode` with
    /// NO_PADDING, NO_WRAP, URL_SAFE).
    public static func android(certificateSHA256 digest: [UInt8]) -> String {
        androidPrefix + Base64URL.encode(digest)
    }

    /// 32 bytes from the Play console's or keytool's spelling, `AB:CD:…` (either case); nil for
    /// anything else.
    public static func fingerprint(_ text: String) -> [UInt8]? {
        let pairs = text.split(separator: ":", omittingEmptySubsequences: false)
        guard pairs.count == 32 else { return nil }
        var out: [UInt8] = []
        for pair in pairs {
            guard pair.utf8.count == 2, pair.utf8.allSatisfy(\.isHexDigit), let byte = UInt8(pair, radix: 16) else {
                return nil
            }
            out.append(byte)
        }
        return out
    }

    /// `AB:CD:…`, uppercase, as `assetlinks.json` and the Play console write it.
    public static func fingerprintText(_ digest: [UInt8]) -> String {
        digest.map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return hex.count == 1 ? "0" + hex : hex
        }.joined(separator: ":")
    }

    /// The key hash of an origin of Android's form (43 base64url characters of 32 bytes), for
    /// the log line of a refused origin; nil for any other text, which is the sender's.
    static func androidKeyHash(in origin: String?) -> String? {
        guard let origin, origin.hasPrefix(androidPrefix) else { return nil }
        let hash = String(origin.dropFirst(androidPrefix.count))
        guard hash.utf8.count == 43, Base64URL.decode(hash)?.count == 32 else { return nil }
        return hash
    }

    /// A lowercase DNS name: labels of letters, digits and inner hyphens, 1 to 63 bytes each,
    /// 253 in all (`localhost` included, for development).
    public static func isRPID(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 253 else { return false }
        return text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            let bytes = Array(label.utf8)
            guard let first = bytes.first, let last = bytes.last, bytes.count <= 63 else { return false }
            return first != UInt8(ascii: "-") && last != UInt8(ascii: "-")
                && bytes.allSatisfy { $0.isLowercaseASCIIAlphanumeric || $0 == UInt8(ascii: "-") }
        }
    }

    /// An Android package name: two or more dot-separated segments, each a letter then letters,
    /// digits or underscores.
    public static func isAndroidPackage(_ text: String) -> Bool {
        let segments = text.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count >= 2, text.utf8.count <= 255 else { return false }
        return segments.allSatisfy { segment in
            let bytes = Array(segment.utf8)
            guard let first = bytes.first, first.isASCIILetter else { return false }
            return bytes.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == UInt8(ascii: "_") }
        }
    }

    /// `TEAMID.bundle.id`: a 10-character team id of uppercase letters and digits, a dot, and a
    /// bundle id of letters, digits, hyphens and dots.
    public static func isAppleAppID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count > 11, bytes.count <= 255, bytes[10] == UInt8(ascii: ".") else { return false }
        let team = bytes[0..<10]
        let bundle = bytes[11...]
        return team.allSatisfy { $0.isASCIIDigit || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
            && bundle.first != UInt8(ascii: ".") && bundle.last != UInt8(ascii: ".")
            && bundle.allSatisfy {
                $0.isASCIILetter || $0.isASCIIDigit || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
            }
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        isASCIIDigit || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
    fileprivate var isASCIIDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }
    fileprivate var isASCIILetter: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
    }
    fileprivate var isLowercaseASCIIAlphanumeric: Bool {
        isASCIIDigit || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self)
    }
}
