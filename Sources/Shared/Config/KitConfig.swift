extension Config {
    /// `kit` (rule 21): what the web kit's sign-in page is told (`/auth/kit/config.json`, written
    /// by `frontdoor-check --print-kit-files`). Every key is optional; the defaults come from the
    /// provider sections, so a config without `kit` still gives the page its buttons.
    public struct Kit: Sendable, Equatable {
        /// The platforms the page tells apart, and the provider buttons each shows.
        public enum Platform: String, Sendable, CaseIterable { case ios, android, other }
        public enum Provider: String, Sendable { case apple, google }

        /// The Google web client id GIS is initialised with: one of `google.clientIds`.
        public var googleClientId: String?
        /// The Services ID Apple's script signs for: one of `apple.servicesIds`.
        public var appleServicesId: String?
        /// Apple's `redirectURI` (registered with the Services ID); nil: the page's own address.
        public var appleRedirectUri: String?
        public var appleScriptUrl = Kit.appleScript
        public var googleScriptUrl = Kit.googleScript
        /// Which buttons each platform shows (rule 21: one on a phone).
        public var providers: [Platform: [Provider]] = [.ios: [.apple], .android: [.google], .other: [.apple, .google]]

        /// Apple's hosted Sign in with Apple JS (Apple, "Configuring your webpage for Sign in with Apple").
        public static let appleScript = "https://appleid.cdn-apple.com/appleauth/static/jsapi/appleid/1/en_US/appleid.auth.js"
        /// The locale in `appleScript`'s path, which the page replaces with the person's.
        public static let appleScriptLocale = "en_US"
        /// Google Identity Services' client library (Google, "Load the client library").
        public static let googleScript = "https://accounts.google.com/gsi/client"
    }

    /// The URLs a browser is sent to by the kit section, with their keys: the self-check flags a
    /// loopback one outside a development config, as it does an outbound URL.
    public var kitURLs: [(key: String, url: String)] {
        var urls: [(key: String, url: String)] = []
        if let page = mail?.pageUrl { urls.append(("mail.pageUrl", page)) }
        guard let kit = kitSection else { return urls }
        urls += [("kit.appleScriptUrl", kit.appleScriptUrl), ("kit.googleScriptUrl", kit.googleScriptUrl)]
        if let redirect = kit.appleRedirectUri { urls.append(("kit.appleRedirectUri", redirect)) }
        return urls
    }

    /// The kit as the page gets it: the `kit` section's values, or the provider sections' first
    /// ids, and no provider whose id is missing.
    public var kit: Kit {
        var kit = kitSection ?? Kit()
        if kit.googleClientId == nil { kit.googleClientId = google?.clientIds.first }
        if kit.appleServicesId == nil { kit.appleServicesId = apple?.servicesIds.first }
        return kit
    }
}

extension Config.Kit {
    /// Reads the `kit` section against the provider sections already read.
    static func read(_ r: inout ConfigReader, google: Config.Google?, apple: Config.Apple?) throws(ConfigError)
        -> Config.Kit
    {
        var kit = Config.Kit()
        if let id = try r.string("googleClientId") {
            guard google?.clientIds.contains(id) == true else {
                throw ConfigError(key: r.key("googleClientId"), reason: "must be one of google.clientIds")
            }
            kit.googleClientId = id
        }
        if let id = try r.string("appleServicesId") {
            guard apple?.servicesIds.contains(id) == true else {
                throw ConfigError(key: r.key("appleServicesId"), reason: "must be one of apple.servicesIds")
            }
            kit.appleServicesId = id
        }
        if r.has("appleRedirectUri") { kit.appleRedirectUri = try pageURL(&r, "appleRedirectUri") }
        if r.has("appleScriptUrl") { kit.appleScriptUrl = try pageURL(&r, "appleScriptUrl") }
        if r.has("googleScriptUrl") { kit.googleScriptUrl = try pageURL(&r, "googleScriptUrl") }
        if let section = r.value("providers") {
            var p = try ConfigReader(section, path: r.key("providers"))
            for platform in Platform.allCases where p.has(platform.rawValue) {
                let names = try p.optionalStringList(platform.rawValue)
                var list: [Provider] = []
                for (i, name) in names.enumerated() {
                    guard let provider = Provider(rawValue: name), !list.contains(provider) else {
                        throw ConfigError(key: "\(p.key(platform.rawValue))[\(i)]", reason: "must be \"apple\" or \"google\", once")
                    }
                    list.append(provider)
                }
                // Rule 21: never two provider buttons on a phone.
                if platform != .other, list.count > 1 {
                    throw ConfigError(key: p.key(platform.rawValue), reason: "a phone shows one provider button at most")
                }
                kit.providers[platform] = list
            }
            try p.rejectUnknown()
        }
        try r.rejectUnknown()
        return kit
    }

    /// A URL a browser loads: `https://`, or `http://` to a loopback address (development); kept
    /// exactly as written (a path's trailing slash matters to a CSP source).
    private static func pageURL(_ r: inout ConfigReader, _ name: String) throws(ConfigError) -> String {
        let url = try r.requiredString(name)
        // It is written into a CSP header by nginx: nothing that ends a source, a directive or the
        // header, and no `$` nginx would read as a variable.
        let allowed = { (c: Unicode.Scalar) in
            c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c) || "-._~:/?#[]@!&()*+=%".unicodeScalars.contains(c))
        }
        guard OutboundURL.classify(url) != nil, url.hasPrefix("http"), url.unicodeScalars.allSatisfy(allowed) else { throw ConfigError(key: r.key(name), reason: "must be https:// (or http:// to a loopback address)") }
        return url
    }
}

extension Config.Mail {
    /// `mail.pageUrl`: `https://` (or `http://` to a loopback address), whole, without a fragment
    /// (the link adds its own), and nothing a mail's line or a URL would end at.
    static func pageURL(_ r: inout ConfigReader) throws(ConfigError) -> String {
        let url = try r.requiredString("pageUrl")
        let plain = url.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 && $0.value != 0x7F && !"#<>\"".unicodeScalars.contains($0) }
        guard OutboundURL.classify(url) != nil, url.hasPrefix("http"), plain else {
            throw ConfigError(key: r.key("pageUrl"), reason: "must be https:// (or http:// to a loopback address), without a fragment")
        }
        return url
    }
}

extension Config {
    /// Where a notice's "This wasn't me" link goes: `mail.pageUrl`, or the kit under
    /// `passkeys.siteUrl`; nil: the notices go without it.
    public var noticePageUrl: String? {
        mail?.pageUrl ?? passkeys.map { $0.siteUrl + "/auth/kit/" }
    }
}
