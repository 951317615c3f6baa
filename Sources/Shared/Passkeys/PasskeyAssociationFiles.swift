/// The two files the RP ID's domain must serve so that the phones let the apps use its passkeys,
/// written from the same `passkeys` section the allowed origins come from, so the two cannot
/// drift apart (the commonest failure of native passkeys, research/passkeys.md section 7).
public enum PasskeyAssociationFiles {
    /// `/.well-known/assetlinks.json`: one statement per Android app with every signing key, and
    /// both relations: `handle_all_urls`, which passkeys need, and `get_login_creds`, which
    /// password sharing needs (developer.android.com, Credential Manager prerequisites; Google's
    /// seamless-credential-sharing codelab).
    public static func assetLinks(_ apps: [Config.Passkeys.AndroidApp]) -> JSONValue {
        .array(apps.map { app in
            .object([
                ("relation", .array(["delegate_permission/common.handle_all_urls", "delegate_permission/common.get_login_creds"])),
                ("target", .object([
                    ("namespace", "android_app"),
                    ("package_name", .string(app.package)),
                    ("sha256_cert_fingerprints",
                     .array(app.certSha256.map { .string(PasskeyOrigins.fingerprintText($0)) })),
                ])),
            ])
        })
    }

    /// The `webcredentials` part of `/.well-known/apple-app-site-association`:
    /// `{"webcredentials": {"apps": ["TEAMID.bundle.id", …]}}` (Apple's Associated Domains
    /// entitlement; the file is fetched through Apple's CDN, so it must be public).
    public static func webCredentials(_ iosAppIds: [String]) -> JSONValue {
        .object([("webcredentials", .object([("apps", .array(iosAppIds.map { .string($0) }))]))])
    }
}

extension PasskeyAssociationFiles {
    public static let appleName = "apple-app-site-association"
    public static let androidName = "assetlinks.json"

    /// The files the domain serves under `/.well-known/`, by name: each only for a platform that
    /// has apps in the config (the other answers 404, as a domain without it does).
    public static func files(_ passkeys: Config.Passkeys) -> [(name: String, json: JSONValue)] {
        var out: [(String, JSONValue)] = []
        if !passkeys.iosAppIds.isEmpty { out.append((appleName, webCredentials(passkeys.iosAppIds))) }
        if !passkeys.androidApps.isEmpty { out.append((androidName, assetLinks(passkeys.androidApps))) }
        return out
    }
}
