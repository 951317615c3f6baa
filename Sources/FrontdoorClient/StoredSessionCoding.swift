import Foundation

/// A stored session as bytes, for stores that keep bytes (the Keychain): JSON, RFC 3339 times.
public enum StoredSessionCoding {
    public static func encode(_ session: StoredSession) throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(session)
    }

    public static func decode(_ data: Data) throws -> StoredSession {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(StoredSession.self, from: data)
    }
}
