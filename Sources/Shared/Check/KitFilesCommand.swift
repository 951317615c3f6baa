#if canImport(Glibc)
import Glibc
#endif

/// `frontdoor-check --print-kit-files [--out DIR]`: what nginx serves beside the web kit, made from
/// the config (rule 21): `config.json`, the page's configuration (public ids and script URLs, no
/// secret), and `headers.conf`, the kit's response headers with its Content-Security-Policy,
/// whose only outside sources are the provider scripts that configuration names.
public enum KitFilesCommand {
    public static let configName = "config.json"
    public static let headersName = "headers.conf"

    /// The page's configuration. `config` nil (the file does not load): no provider, no passkeys.
    public static func pageConfig(_ config: Config?) -> JSONValue {
        let kit = config?.kit ?? Config.Kit()
        var apple: JSONValue = .null
        if config?.apple != nil, let id = kit.appleServicesId {
            apple = .object([
                ("clientId", .string(id)), ("scriptUrl", .string(kit.appleScriptUrl)),
                ("redirectURI", kit.appleRedirectUri.map { .string($0) } ?? .null),
            ])
        }
        var google: JSONValue = .null
        if config?.google != nil, let id = kit.googleClientId {
            google = .object([("clientId", .string(id)), ("scriptUrl", .string(kit.googleScriptUrl))])
        }
        let offered = { (provider: Config.Kit.Provider) in provider == .apple ? !apple.isNull : !google.isNull }
        let providers = Config.Kit.Platform.allCases.map { platform in
            (platform.rawValue, JSONValue.array((kit.providers[platform] ?? []).filter(offered).map { .string($0.rawValue) }))
        }
        return .object([
            ("api", "/auth"), ("apple", apple), ("google", google), ("providers", .object(providers)),
            ("passkeys", .bool(config?.passkeys != nil)),
            ("passwordMinLength", .number(Double(config?.passwords.minLength ?? Config.Passwords().minLength))),
        ])
    }

    /// The kit's Content-Security-Policy: our own files, and each offered provider's script
    /// (Google's also its button's frame, its style sheet and its calls, under the script's folder,
    /// as Google's setup guide lists them). No inline script or style anywhere.
    public static func contentSecurityPolicy(_ page: JSONValue) -> String {
        var scripts = ["'self'"], styles = ["'self'"], connects = ["'self'"], frames: [String] = []
        let used = Set((page["providers"]?.objectValue ?? []).flatMap { $0.1.arrayValue?.compactMap(\.stringValue) ?? [] })
        if used.contains("apple"), let url = page["apple"]?["scriptUrl"]?.stringValue { scripts.append(appleSource(url)) }
        if used.contains("google"), let url = page["google"]?["scriptUrl"]?.stringValue {
            scripts.append(url)
            let folder = String(url[...(url.lastIndex(of: "/") ?? url.startIndex)])
            styles.append(folder)
            connects.append(folder)
            frames.append(folder)
        }
        var directives = [
            "default-src 'none'", "script-src " + scripts.joined(separator: " "),
            "style-src " + styles.joined(separator: " "), "connect-src " + connects.joined(separator: " "),
            "img-src 'self'",
        ]
        if !frames.isEmpty { directives.append("frame-src " + frames.joined(separator: " ")) }
        directives += ["form-action 'none'", "base-uri 'none'", "frame-ancestors 'none'"]
        return directives.joined(separator: "; ")
    }

    /// Apple serves its script once per locale (`…/appleid/1/en_US/appleid.auth.js`), and the page
    /// asks for the person's: the CSP allows the folder above the locale; any other URL exactly.
    static func appleSource(_ url: String) -> String {
        guard let range = url.firstRange(of: "/" + Config.Kit.appleScriptLocale + "/") else { return url }
        return String(url[..<range.lowerBound]) + "/"
    }

    /// `headers.conf`, included by nginx's kit locations.
    public static func headers(_ page: JSONValue, source: String) -> String {
        """
        # Made by frontdoor-check --print-kit-files from \(source): the web kit's headers (docs/security.md).
        add_header Content-Security-Policy "\(contentSecurityPolicy(page))" always;
        add_header Cross-Origin-Opener-Policy "same-origin-allow-popups" always;
        add_header X-Content-Type-Options "nosniff" always;
        add_header Cache-Control "no-cache" always;

        """
    }

    /// Both files on stdout, each after a `# <name>` line.
    public static func text(_ config: Config, source: String) -> String {
        let page = pageConfig(config)
        return "# \(configName)\n\(page.serialized)\n\n# \(headersName)\n" + headers(page, source: source)
    }

    /// Writes both files into `directory` (mode 0644: they are public) under temporary names, then
    /// renames them, so nginx never reads half a file. Returns one line per file.
    public static func write(_ config: Config?, source: String, to directory: String) throws(FrontdoorError) -> [String] {
        let page = pageConfig(config)
        var lines: [String] = []
        for (name, text) in [(configName, page.serialized + "\n"), (headersName, headers(page, source: source))] {
            let path = directory + "/" + name
            try Files.replace(path, with: Array(text.utf8), mode: 0o644)
            lines.append("wrote \(path)")
        }
        return lines
    }
}
