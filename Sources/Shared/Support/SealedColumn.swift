/// A secret that must outlive the request and so sits in a text column (a relay user's refresh
/// token, an Apple authorization code, a relay ID token or an Apple refresh token kept for a
/// revocation's retry), kept sealed under the server key: `sealed1:` and the base64url of
/// `Sealed`'s box, bound to what it is filed under (table, column and row), so a box cannot be
/// moved to another row. A backup of the store, which never holds the server key, holds none of
/// them in the clear (issue 29).
enum SealedColumn {
    static let prefix = "sealed1:"

    /// The key of these columns, apart from every other use of the server key.
    static func key(serverKey: [UInt8]) -> [UInt8] {
        HMACSHA256.mac(key: serverKey, message: Array("frontdoor sealed columns v1".utf8))
    }

    static func key(config: Config) throws(FrontdoorError) -> [UInt8] {
        key(serverKey: try DeletionAudit.key(config: config))
    }

    /// What a row keeps for `plain` (NULL for nil), filed under `binding` (`table.column row`).
    static func seal(_ plain: String?, key: [UInt8], binding: String) throws(FrontdoorError) -> SQLValue {
        guard let plain else { return .null }
        let box = try Sealed.seal(Array(plain.utf8), key: key, associated: Array(binding.utf8))
        return .text(prefix + Base64URL.encode(box))
    }

    /// As above under `db`'s server key, read only when there is a secret to seal.
    static func seal(_ plain: String?, db: Database, binding: String) throws(FrontdoorError) -> SQLValue {
        guard let plain else { return .null }
        return try seal(plain, key: try db.sealedColumnKey(), binding: binding)
    }

    /// The secret a row keeps under `db`'s server key (nil when it cannot be read, as for another key).
    static func open(_ stored: String?, db: Database, binding: String) -> String? {
        guard let stored else { return nil }
        return open(stored, key: stored.hasPrefix(prefix) ? try? db.sealedColumnKey() : nil, binding: binding)
    }

    /// The secret a row keeps, or nil when it keeps none, or one sealed under another key or
    /// filed under another row. A value without the prefix was written by a program from before
    /// the sealing (one still running while the next version migrated): it is taken as it is.
    static func open(_ stored: String?, key: [UInt8]?, binding: String) -> String? {
        guard let stored else { return nil }
        guard stored.hasPrefix(prefix) else { return stored }
        guard let key, let box = Base64URL.decode(String(stored.dropFirst(prefix.count))),
            let plain = Sealed.open(box, key: key, associated: Array(binding.utf8))
        else { return nil }
        return String(validating: plain, as: UTF8.self)
    }

    static func relayRefreshToken(_ relayUid: String) -> String { "relay_cleanups.refresh_token \(relayUid)" }

    static func revocation(_ column: String, _ id: String) -> String { "apple_revocations.\(column) \(id)" }

    /// The migration's step (both engines): every secret kept in the clear is sealed where it is.
    /// `rows` runs a statement and gives its rows, `run` one that changes them.
    static func sealInPlace(
        key: [UInt8], rows: (String) throws(FrontdoorError) -> [Row],
        run: (String, [SQLValue]) throws(FrontdoorError) -> Void
    ) throws(FrontdoorError) {
        for row in try rows("SELECT id, relay_uid, refresh_token FROM relay_cleanups WHERE refresh_token IS NOT NULL") {
            guard let id = row.int(0), let uid = row.text(1), let token = row.text(2), !token.hasPrefix(prefix) else {
                continue
            }
            try run(
                "UPDATE relay_cleanups SET refresh_token = ? WHERE id = ?",
                [try seal(token, key: key, binding: relayRefreshToken(uid)), .integer(id)])
        }
        for column in ["code", "id_token", "refresh_token"] {
            for row in try rows("SELECT id, \(column) FROM apple_revocations WHERE \(column) IS NOT NULL") {
                guard let id = row.text(0), let secret = row.text(1), !secret.hasPrefix(prefix) else { continue }
                try run(
                    "UPDATE apple_revocations SET \(column) = ? WHERE id = ?",
                    [try seal(secret, key: key, binding: revocation(column, id)), .text(id)])
            }
        }
    }
}
