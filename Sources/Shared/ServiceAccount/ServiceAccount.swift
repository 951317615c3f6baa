/// A Google service account's JSON key, the file `firebase.serviceAccountFile` names (what the
/// Cloud console's "Keys → Add key → JSON" downloads): `type` `service_account`, `client_email`,
/// `private_key` (PKCS#8 PEM), `private_key_id`. Read when a relay user must be deleted by
/// `localId` (rare), never on an ordinary request.
struct ServiceAccount {
    let clientEmail: String
    let keyId: String?
    let key: RSAPrivateKey

    /// `key`: the config key that names the file, for the errors.
    static func load(path: String, key: String = "firebase.serviceAccountFile") throws(FrontdoorError) -> ServiceAccount {
        guard var bytes = FileIO.readFile(path, limit: 64 * 1024) else {
            throw .internal("config: \(key): cannot be read")
        }
        defer { AppleClientSecret.wipe(&bytes) }
        return try parse(bytes, key: key)
    }

    static func parse(_ bytes: [UInt8], key configKey: String = "firebase.serviceAccountFile") throws(FrontdoorError)
        -> ServiceAccount
    {
        let what = "config: \(configKey)"
        guard let json = try? JSONParser.parse(bytes), json.objectValue != nil else {
            throw .internal("\(what): not a JSON object")
        }
        guard json["type"]?.stringValue == "service_account" else {
            throw .internal("\(what): type is not \"service_account\"")
        }
        guard let email = json["client_email"]?.stringValue, email.contains("@"),
            email.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F })
        else { throw .internal("\(what): no client_email") }
        guard let pem = json["private_key"]?.stringValue else { throw .internal("\(what): no private_key") }
        var pemBytes = Array(pem.utf8)
        defer { AppleClientSecret.wipe(&pemBytes) }
        let key = try RSAPrivateKey(pem: pemBytes, what: "\(what): private_key")
        let keyId = json["private_key_id"]?.stringValue.flatMap { id in
            id.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) && !id.isEmpty ? id : nil
        }
        return ServiceAccount(clientEmail: email, keyId: keyId, key: key)
    }
}
