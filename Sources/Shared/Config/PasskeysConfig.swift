extension Config {
    /// `passkeys` (DESIGN.md rule 17): the RP ID the apps are associated with, and the apps whose
    /// origins are allowed. No section: no passkeys.
    public struct Passkeys: Sendable {
        public struct AndroidApp: Sendable, Equatable {
            public var package: String
            /// Each signing certificate's SHA-256 (32 bytes): the Play signing key, the upload key,
            /// an older or rotated key.
            public var certSha256: [[UInt8]]

            public init(package: String, certSha256: [[UInt8]]) {
                self.package = package
                self.certSha256 = certSha256
            }
        }

        /// A registrable domain, lowercase, as the apps' associated domains name it.
        public var rpId: String
        /// What the phone shows as the service's name; the RP ID when not given.
        public var rpName: String
        public var androidApps: [AndroidApp]
        /// `TEAMID.bundle.id` of every iOS app.
        public var iosAppIds: [String]
        /// Where `frontdoor-check` fetches the live association files from (`https://<rpId>` unless
        /// set): a key, so the tests and `make run` point it at loopback.
        public var siteUrl: String
        /// More web origins a response may come from (`passkeys.webOrigins`): the web kit's page
        /// when it is served on a host under the RP ID other than the RP ID itself.
        public var webOrigins: [String] = []

        /// The exact origins a response may come from.
        public var relyingParty: PasskeyRelyingParty {
            var origins = PasskeyOrigins.allowed(rpId: rpId, androidApps: androidApps)
            for origin in webOrigins where !origins.contains(origin) { origins.insert(origin, at: 1) }
            return PasskeyRelyingParty(id: rpId, origins: origins)
        }
    }
}

extension Config.Passkeys {
    /// Reads the `passkeys` section; every error names its key.
    static func read(_ r: inout ConfigReader) throws(ConfigError) -> Config.Passkeys {
        let rpId = try r.requiredString("rpId")
        guard PasskeyOrigins.isRPID(rpId) else {
            throw ConfigError(key: r.key("rpId"), reason: "must be a lowercase domain name (no scheme, port or path)")
        }
        let rpName = try r.string("rpName") ?? rpId
        guard rpName.utf8.count <= 64, !rpName.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw ConfigError(key: r.key("rpName"), reason: "must be at most 64 bytes with no control characters") }
        var apps: [AndroidApp] = []
        if let list = r.value("androidApps") {
            guard let elements = list.arrayValue else {
                throw ConfigError(key: r.key("androidApps"), reason: "must be a list of {\"package\", \"certSha256\"}")
            }
            for (i, element) in elements.enumerated() {
                var app = try ConfigReader(element, path: "\(r.key("androidApps"))[\(i)]")
                apps.append(try readApp(&app))
            }
        }
        var iosAppIds: [String] = []
        if r.has("iosAppIds") {
            iosAppIds = try r.stringList("iosAppIds")
            for (i, id) in iosAppIds.enumerated() where !PasskeyOrigins.isAppleAppID(id) {
                throw ConfigError(key: "\(r.key("iosAppIds"))[\(i)]", reason: "must be TEAMID.bundle.id (a 10-character team id)")
            }
        }
        let siteUrl = try r.url("siteUrl", default: "https://" + rpId)
        // The files' paths are added to it: a path, query or user of its own would be lost or sent.
        guard let scheme = siteUrl.split(separator: ":").first, scheme == "https" || scheme == "http",
            !siteUrl.dropFirst(scheme.count + 3).contains(where: { "/?#@".contains($0) })
        else {
            throw ConfigError(key: r.key("siteUrl"), reason: "must be the site's base URL, https://<host>[:port], no path")
        }
        var webOrigins: [String] = []
        for (i, origin) in try r.optionalStringList("webOrigins").enumerated() {
            guard PasskeyOrigins.isWebOrigin(origin, rpId: rpId) else {
                throw ConfigError(
                    key: "\(r.key("webOrigins"))[\(i)]",
                    reason: "must be https://<rpId or a host under it>[:port], no path (http://localhost:<port> for development)")
            }
            if !webOrigins.contains(origin) { webOrigins.append(origin) }
        }
        try r.rejectUnknown()
        var passkeys = Config.Passkeys(rpId: rpId, rpName: rpName, androidApps: apps, iosAppIds: iosAppIds, siteUrl: siteUrl)
        passkeys.webOrigins = webOrigins
        return passkeys
    }

    private static func readApp(_ r: inout ConfigReader) throws(ConfigError) -> AndroidApp {
        let package = try r.requiredString("package")
        guard PasskeyOrigins.isAndroidPackage(package) else {
            throw ConfigError(key: r.key("package"), reason: "must be an Android package name (com.example.app)")
        }
        var certificates: [[UInt8]] = []
        for (i, text) in try r.stringList("certSha256").enumerated() {
            guard let fingerprint = PasskeyOrigins.fingerprint(text) else {
                throw ConfigError(
                    key: "\(r.key("certSha256"))[\(i)]",
                    reason: "must be a SHA-256 fingerprint as the Play console prints it (32 hex pairs joined by colons)")
            }
            if !certificates.contains(fingerprint) { certificates.append(fingerprint) }
        }
        try r.rejectUnknown()
        return AndroidApp(package: package, certSha256: certificates)
    }
}
