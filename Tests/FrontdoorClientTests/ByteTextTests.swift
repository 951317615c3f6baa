import Foundation
import Testing
@testable import FrontdoorClient
import enum Shared.Base64URL

@Suite struct ByteTextTests {
    /// Against the server's base64url for every length to 40, and back.
    @Test func base64URLIsTheServersAndRoundTrips() {
        var random = SeededGenerator(seed: 0xB64)
        for length in 0...40 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let text = ByteText.base64URL(bytes)
            #expect(text == Base64URL.encode(bytes))
            #expect(ByteText.fromBase64URL(text) == bytes)
        }
    }

    @Test func onlyCanonicalUnpaddedBase64URLIsRead() {
        for text in ["QQ==", "QQ=", "Q", "QR", "a+b/", "a b", "QUJD\n"] {
            #expect(ByteText.fromBase64URL(text) == nil, "\(text.debugDescription)")
        }
        #expect(ByteText.fromBase64URL("QQ") == [0x41])
        #expect(ByteText.hex([0x00, 0xAB, 0xFF]) == "00abff")
    }

    @Test func aStoredSessionKeepsEverythingThroughItsBytes() throws {
        let session = StoredSession(
            accountId: "acc", sessionToken: "tok", sessionId: "sid", sessionExpiresAt: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(try StoredSessionCoding.decode(StoredSessionCoding.encode(session)) == session)
        let store = InMemorySessionStore()
        #expect(store.load() == nil)
        store.save(session)
        #expect(store.load() == session)
        store.clear()
        #expect(store.load() == nil)
    }
}
