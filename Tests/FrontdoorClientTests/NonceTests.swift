import Testing
@testable import FrontdoorClient
import enum Shared.SHA256
import enum Shared.Hex

@Suite struct NonceTests {
    /// 32 random bytes as 64 lowercase hex digits: at least the 32 characters the server asks.
    @Test func aNonceIs64LowercaseHexDigitsAndNeverTheSameTwice() {
        let nonces = (0..<100).map { _ in Nonce() }
        for nonce in nonces {
            #expect(nonce.raw.utf8.count == 64)
            #expect(nonce.raw.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        }
        #expect(Set(nonces.map(\.raw)).count == 100)
    }

    /// The provider gets the lowercase hex SHA-256 of the raw value's UTF-8 bytes, exactly what
    /// the server computes (its own SHA-256, OpenSSL's).
    @Test func theHashIsTheServersHashOfTheRawValue() {
        for nonce in [Nonce(), Nonce(raw: "a raw nonce made by the app itself, 32+ chars"), Nonce(raw: "é")] {
            #expect(nonce.hashed == Hex.encode(SHA256.hash(Array(nonce.raw.utf8))))
        }
        #expect(Nonce(raw: "abc").hashed == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
