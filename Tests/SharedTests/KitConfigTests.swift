#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import FoundationEssentials
import Testing
@testable import Shared

/// Rule 21: the `kit` section, what `frontdoor-check --print-kit-files` makes of a config (the
/// page's public configuration and the kit's CSP), and `passkeys.webOrigins`.
@Suite struct KitConfigTests {
    static let base = #""databasePath":"/tmp/kit.sqlite3""#
    static let google = #""google":{"clientIds":["web.apps.googleusercontent.com","android.apps.googleusercontent.com"]}"#
    static let apple = #""apple":{"bundleIds":["com.example.app"],"servicesIds":["com.example.web"],"mode":"direct"}"#

    func parse(_ members: String...) throws -> Config {
        try Config.parse(Array(("{" + ([Self.base] + members).joined(separator: ",") + "}").utf8))
    }

    @Test func withoutAKitSectionThePageGetsTheProvidersFirstIdsAndTheirOwnScripts() throws {
        let page = KitFilesCommand.pageConfig(try parse(Self.google, Self.apple))
        #expect(page["google"]?["clientId"]?.stringValue == "web.apps.googleusercontent.com")
        #expect(page["google"]?["scriptUrl"]?.stringValue == "https://accounts.google.com/gsi/client")
        #expect(page["apple"]?["clientId"]?.stringValue == "com.example.web")
        #expect(page["apple"]?["scriptUrl"]?.stringValue == Config.Kit.appleScript)
        #expect(page["apple"]?["redirectURI"] == .null)
        #expect(page["providers"]?["ios"] == .array(["apple"]))
        #expect(page["providers"]?["android"] == .array(["google"]))
        #expect(page["providers"]?["other"] == .array(["apple", "google"]))
        #expect(page["passkeys"] == false)
        // Nothing secret: no key, no file, no URL of ours beyond the scripts.
        let text = page.serialized
        for secret in ["apiKey", "privateKey", "databasePath", "/tmp/"] { #expect(!text.contains(secret)) }
    }

    @Test func aProviderWithoutAnIdIsNotOffered() throws {
        // Apple without a Services ID has nothing to sign its web tokens for.
        let noServicesId = #""apple":{"bundleIds":["com.example.app"],"mode":"direct"}"#
        let page = KitFilesCommand.pageConfig(try parse(Self.google, noServicesId))
        #expect(page["apple"] == .null)
        #expect(page["providers"]?["ios"] == .array([]))
        #expect(page["providers"]?["other"] == .array(["google"]))
        let csp = KitFilesCommand.contentSecurityPolicy(page)
        #expect(!csp.contains("appleid"))
        // No config at all (it did not load): no provider, and a CSP of our own files only.
        let none = KitFilesCommand.pageConfig(nil)
        #expect(none["providers"]?["other"] == .array([]))
        #expect(KitFilesCommand.contentSecurityPolicy(none)
            == "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
                + "form-action 'none'; base-uri 'none'; frame-ancestors 'none'")
    }

    @Test func theCSPNamesOnlyTheConfiguredScriptsAndNoInlineSource() throws {
        let csp = KitFilesCommand.contentSecurityPolicy(KitFilesCommand.pageConfig(try parse(Self.google, Self.apple)))
        // Apple's folder above the locale (the page asks for the person's), Google's script alone.
        #expect(csp.contains(
            "script-src 'self' https://appleid.cdn-apple.com/appleauth/static/jsapi/appleid/1/ https://accounts.google.com/gsi/client;"))
        #expect(csp.contains("style-src 'self' https://accounts.google.com/gsi/;"))
        #expect(csp.contains("frame-src https://accounts.google.com/gsi/;"))
        #expect(csp.hasPrefix("default-src 'none';") && csp.contains("frame-ancestors 'none'"))
        #expect(!csp.contains("unsafe") && !csp.contains("data:") && !csp.contains("*"))
        let headers = KitFilesCommand.headers(KitFilesCommand.pageConfig(nil), source: "/etc/frontdoor/config.json")
        #expect(headers.contains("add_header Content-Security-Policy \"default-src 'none';"))
        #expect(headers.contains("add_header Cross-Origin-Opener-Policy \"same-origin-allow-popups\" always;"))
    }

    @Test func theKitSectionChoosesAmongTheProvidersIds() throws {
        let kit = #""kit":{"googleClientId":"android.apps.googleusercontent.com","appleRedirectUri":"https://auth.example.com/auth/kit/signin.html","googleScriptUrl":"http://127.0.0.1:8081/gsi/client","providers":{"ios":[],"other":["google"]}}"#
        let page = KitFilesCommand.pageConfig(try parse(Self.google, Self.apple, kit))
        #expect(page["google"]?["clientId"]?.stringValue == "android.apps.googleusercontent.com")
        #expect(page["google"]?["scriptUrl"]?.stringValue == "http://127.0.0.1:8081/gsi/client")
        #expect(page["apple"]?["redirectURI"]?.stringValue == "https://auth.example.com/auth/kit/signin.html")
        #expect(page["providers"]?["ios"] == .array([]))
        #expect(page["providers"]?["android"] == .array(["google"]))
        #expect(page["providers"]?["other"] == .array(["google"]))
    }

    @Test func aKitSectionThatBreaksTheRulesIsRefusedNamingItsKey() throws {
        let cases: [(String, String)] = [
            (#""kit":{"googleClientId":"someone.else"}"#, "kit.googleClientId"),
            (#""kit":{"appleServicesId":"com.other.web"}"#, "kit.appleServicesId"),
            (#""kit":{"providers":{"ios":["apple","google"]}}"#, "kit.providers.ios"),
            (#""kit":{"providers":{"android":["facebook"]}}"#, "kit.providers.android[0]"),
            (#""kit":{"providers":{"watch":[]}}"#, "kit.providers"),
            (#""kit":{"googleScriptUrl":"http://example.com/gsi/client"}"#, "kit.googleScriptUrl"),
            (#""kit":{"appleScriptUrl":"https://cdn.example/a.js; script-src *"}"#, "kit.appleScriptUrl"),
            (#""kit":{"appleScriptUrl":"https://cdn.example/$host.js"}"#, "kit.appleScriptUrl"),
            (#""kit":{"colour":"blue"}"#, "kit"),
        ]
        for (section, key) in cases {
            do {
                _ = try parse(Self.google, Self.apple, section)
                Issue.record("accepted: \(section)")
            } catch let error as ConfigError {
                #expect(error.key.hasPrefix(key), "\(section): \(error)")
            } catch {
                Issue.record("\(section): \(error)")
            }
        }
    }

    /// The session check reads no provider section, and so not `kit` either: a mistake there
    /// stops the sign-ins (and the kit's files), never the people already signed in.
    @Test func theSessionCheckDoesNotReadTheKitSection() throws {
        let broken = Array(("{" + Self.base + #","kit":{"providers":{"ios":["apple","google"]}}}"#).utf8)
        #expect(throws: ConfigError.self) { try Config.parse(broken) }
        #expect(try Config.parse(broken, scope: .sessionCheck).kitSection == nil)
    }

    /// Nor does any request's program (`Scope.request`): only `frontdoor-check` turns the section
    /// into the page's files, and it refuses the mistake. The providers are read as before.
    @Test func aRequestDoesNotReadTheKitSection() throws {
        let broken = Array(("{" + Self.base + "," + Self.google + #","kit":{"providers":{"ios":["apple","google"]}}}"#).utf8)
        #expect(throws: ConfigError.self) { try Config.parse(broken) }
        let config = try Config.parse(broken, scope: .request)
        #expect(config.kitSection == nil && config.google != nil)
        let unparsable = Array(("{" + Self.base + #","kit":{"providers":}}"#).utf8)
        #expect(throws: ConfigError.self, "the skim still checks its syntax") { try Config.parse(unparsable, scope: .request) }
        let good = Array(("{" + Self.base + "," + Self.google + #","kit":{"providers":{"ios":["google"]}}}"#).utf8)
        #expect(try Config.parse(good).kitSection != nil)
        #expect(try Config.parse(good, scope: .request).kitSection == nil)
    }

    @Test func webOriginsMustFitTheRPID() throws {
        func passkeys(_ origins: String) -> String {
            #""passkeys":{"rpId":"example.com","webOrigins":["# + origins + "]}"
        }
        let config = try parse(passkeys(#""https://auth.example.com","https://example.com:8443""#))
        let origins = try #require(config.passkeys?.relyingParty.origins)
        #expect(origins.contains("https://auth.example.com") && origins.contains("https://example.com:8443"))
        #expect(origins.first == "https://example.com")
        for bad in [
            #""http://auth.example.com""#, #""https://evil.com""#, #""https://example.com.evil.com""#,
            #""https://auth.example.com/""#, #""https://Auth.example.com""#, #""https://example.com:443""#,
            #""https://notexample.com""#,
        ] {
            #expect(throws: ConfigError.self, "\(bad)") { try parse(passkeys(bad)) }
        }
        // Development: localhost over http, for a localhost RP ID only.
        let dev = try parse(#""passkeys":{"rpId":"localhost","webOrigins":["http://localhost:8080"]}"#)
        #expect(dev.passkeys?.relyingParty.origins.contains("http://localhost:8080") == true)
    }

    @Test func bothFilesAreWrittenPublicAndWhole() throws {
        var template = Array("/tmp/frontdoor-kit-XXXXXX".utf8CString)
        let dir = String(cString: try #require(mkdtemp(&template)))
        defer { _ = ChildProcess.removeTree(dir) }
        let lines = try KitFilesCommand.write(try parse(Self.google, Self.apple), source: "/etc/frontdoor/config.json", to: dir)
        #expect(lines == ["wrote \(dir)/config.json", "wrote \(dir)/headers.conf"])
        for name in ["config.json", "headers.conf"] {
            var info = stat()
            #expect(stat(dir + "/" + name, &info) == 0 && info.st_mode & 0o777 == 0o644, "\(name)")
            #expect(!Files.exists(dir + "/" + name + ".tmp"))
        }
        let page = try JSONParser.parse(try #require(FileIO.readFile(dir + "/config.json")))
        #expect(page == KitFilesCommand.pageConfig(try parse(Self.google, Self.apple)))
        // A config that did not load: both files again, strict, naming no provider.
        _ = try KitFilesCommand.write(nil, source: "/etc/frontdoor/config.json", to: dir)
        let headers = String(decoding: try #require(FileIO.readFile(dir + "/headers.conf")), as: UTF8.self)
        #expect(headers.contains("script-src 'self';") && !headers.contains("google"))
    }

    @Test func theDevelopmentConfigOffersTheStandIns() throws {
        let config = try Config.parse(Array(try DevProvider.config(
            databasePath: "/tmp/kit.sqlite3", providerURL: "http://127.0.0.1:8081", siteURL: "http://127.0.0.1:8080"
        ).serialized.utf8))
        let page = KitFilesCommand.pageConfig(config)
        #expect(page["apple"]?["scriptUrl"]?.stringValue == "http://127.0.0.1:8081" + KitStandIns.appleScriptPath)
        #expect(page["apple"]?["clientId"]?.stringValue == DevProvider.appleServicesId)
        #expect(page["google"]?["scriptUrl"]?.stringValue == "http://127.0.0.1:8081" + KitStandIns.googleScriptPath)
        #expect(page["passkeys"] == true)
        #expect(config.passkeys?.relyingParty.origins.contains("http://localhost:8080") == true)
    }
}
