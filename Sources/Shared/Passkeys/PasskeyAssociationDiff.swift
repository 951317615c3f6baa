/// Where a live association file differs from what the `passkeys` section says it must hold:
/// each difference is a phone that cannot use its passkey, or one the server will refuse
/// (research/passkeys.md section 2.1: one list with a key the other lacks fails one channel).
public enum PasskeyAssociationDiff {
    /// The `webcredentials.apps` of a live `apple-app-site-association`, against
    /// `passkeys.iosAppIds`. Other members (`applinks`, …) are the site's own and not compared.
    public static func apple(_ live: JSONValue, iosAppIds: [String]) -> [String] {
        guard let apps = live["webcredentials"]?["apps"]?.arrayValue else { return ["no webcredentials.apps"] }
        let served = apps.compactMap(\.stringValue)
        return iosAppIds.filter { !served.contains($0) }.map { "missing app \($0)" }
            + served.filter { !iosAppIds.contains($0) }.map { "extra app \($0) (not in passkeys.iosAppIds)" }
    }

    /// The `android_app` statements of a live `assetlinks.json`, against `passkeys.androidApps`:
    /// for each package, both relations and every key, and no key the config lacks. A package the
    /// config lacks counts only with `get_login_creds` (`handle_all_urls` alone is an App Link).
    public static func android(_ live: JSONValue, apps: [Config.Passkeys.AndroidApp]) -> [String] {
        guard let statements = live.arrayValue else { return ["not a list of statements"] }
        var relations: [String: Set<String>] = [:]
        var keys: [String: [[UInt8]]] = [:]
        var unreadable: [String] = []
        var order: [String] = []
        for statement in statements {
            guard let target = statement["target"], target["namespace"]?.stringValue == "android_app",
                let package = target["package_name"]?.stringValue
            else { continue }
            if relations[package] == nil { order.append(package) }
            relations[package, default: []].formUnion((statement["relation"]?.arrayValue ?? []).compactMap(\.stringValue))
            for text in (target["sha256_cert_fingerprints"]?.arrayValue ?? []).compactMap(\.stringValue) {
                guard let key = PasskeyOrigins.fingerprint(text) else {
                    unreadable.append("\(package): unreadable fingerprint \(text)")
                    continue
                }
                if !keys[package, default: []].contains(key) { keys[package, default: []].append(key) }
            }
        }
        var out: [String] = []
        for app in apps {
            guard let served = relations[app.package] else {
                out.append("missing app \(app.package)")
                continue
            }
            for relation in requiredRelations where !served.contains(relation) {
                out.append("\(app.package): missing relation \(relation)")
            }
            let live = keys[app.package] ?? []
            for key in app.certSha256 where !live.contains(key) {
                out.append("\(app.package): missing key \(PasskeyOrigins.fingerprintText(key))")
            }
            for key in live where !app.certSha256.contains(key) {
                out.append("\(app.package): extra key \(PasskeyOrigins.fingerprintText(key)) (not in its certSha256)")
            }
        }
        for package in order where !apps.contains(where: { $0.package == package })
            && relations[package]?.contains(loginRelation) == true
        {
            out.append("extra app \(package) (not in passkeys.androidApps)")
        }
        return out + unreadable
    }

    static let loginRelation = "delegate_permission/common.get_login_creds"
    static let requiredRelations = ["delegate_permission/common.handle_all_urls", loginRelation]
}
