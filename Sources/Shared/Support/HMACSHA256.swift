/// HMAC-SHA256 (RFC 2104) over `SHA256`, so a keyed hash costs no OpenSSL provider set-up.
public enum HMACSHA256 {
    static let blockSize = 64

    public static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > blockSize ? SHA256.hash(key) : key
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        let inner = SHA256.hash(block.map { $0 ^ 0x36 } + message)
        return SHA256.hash(block.map { $0 ^ 0x5c } + inner)
    }
}
