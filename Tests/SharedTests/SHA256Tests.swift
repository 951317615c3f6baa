import Shared
import Testing

@Suite struct SHA256Tests {
    @Test func knownAnswers() throws {
        #expect(Hex.encode(SHA256.hash([UInt8]())) ==
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Hex.encode(SHA256.hash(Array("abc".utf8))) ==
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(Hex.encode(SHA256.hash(long)) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(Hex.encode(try SHA256.digest(million)) ==
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func acceptsAnyByteCollection() {
        let bytes = Array("xabcx".utf8)
        let expected = SHA256.hash(Array("abc".utf8))
        #expect(SHA256.hash(bytes[1..<4]) == expected)
        #expect(SHA256.hash("abc".utf8) == expected)
        #expect(expected.count == SHA256.byteCount)
    }
}
