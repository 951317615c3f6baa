#if canImport(Security)
import Foundation
import Security

/// The session in the Keychain (a generic password item): on this device only, readable once the
/// phone has been unlocked after a restart (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`),
/// so a background task can use it, and never restored to another phone from a backup.
/// Not compiled here (Linux has no Security framework): see docs/clients.md.
public struct KeychainSessionStore: SessionStore {
    public let service: String
    public let account: String

    public init(service: String = "frontdoor", account: String = "session") {
        self.service = service
        self.account = account
    }

    private var query: [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account, kSecUseDataProtectionKeychain as String: true,
        ]
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
