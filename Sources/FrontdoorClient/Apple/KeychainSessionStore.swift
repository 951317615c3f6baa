#if canImport(Security)
import Foundation
import Security

/// The session in the Keychain (a generic password item, `kSecClassGenericPassword`): on this
/// device only, readable once the phone has been unlocked after a restart
/// (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`), so a background task can use it, and
/// never restored to another phone from a backup. Type-checked on Linux against
/// Tests/AppleStubs: see docs/clients.md.
public struct KeychainSessionStore: SessionStore {
    public let service: String
    public let account: String
    /// A Keychain access group the app and its extensions (widgets, share, notification service)
    /// have in their entitlements (`TEAMID.group.name`): they then share the session. nil: the
    /// app's own.
    public let accessGroup: String?

    public init(service: String = "frontdoor", account: String = "session", accessGroup: String? = nil) {
        self.service = service
        self.account = account
        self.accessGroup = accessGroup
    }

    private var query: [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        // iOS's Keychain is the data-protection one already; on macOS asking for it needs a
        // provisioning profile (-34018, errSecMissingEntitlement, without one), so it is asked
        // for only with an access group, which needs the entitlement anyway.
        #if !os(macOS)
        query[kSecUseDataProtectionKeychain as String] = true
        #else
        if accessGroup != nil { query[kSecUseDataProtectionKeychain as String] = true }
        #endif
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    public func load() throws -> StoredSession? {
        var search = query
        search[kSecReturnData as String] = true
        search[kSecMatchLimit as String] = kSecMatchLimitOne
        var item: CFTypeRef?
        let status = SecItemCopyMatching(search as CFDictionary, &item)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = item as? Data else { throw KeychainError(status: status) }
        return try StoredSessionCoding.decode(data)
    }

    public func save(_ session: StoredSession) throws {
        let attributes: [String: Any] = [
            kSecValueData as String: try StoredSessionCoding.encode(session),
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
        ]
        var status = SecItemUpdate(query as CFDictionary, attributes as CFDictionary)
        if status == errSecItemNotFound {
            status = SecItemAdd(query.merging(attributes) { $1 } as CFDictionary, nil)
        }
        guard status == errSecSuccess else { throw KeychainError(status: status) }
    }

    public func clear() throws {
        let status = SecItemDelete(query as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw KeychainError(status: status) }
    }
}

/// A Keychain call's `OSStatus` (`SecCopyErrorMessageString` says it in words).
public struct KeychainError: Error, Equatable, Sendable {
    public let status: OSStatus
}
#endif
