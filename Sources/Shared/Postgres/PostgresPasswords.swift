import COpenSSL

/// SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL runs it: no channel binding (this client has
/// no TLS, so `n,,`), and an empty user name in the messages (the server takes the startup's).
struct SCRAMClient {
    let password: [UInt8]
    let clientNonce: String
    /// Empty as PostgreSQL wants it; RFC 7677's test vector names its user.
    let user: String
    private(set) var expectedServerSignature: [UInt8] = []
    /// 24 times PostgreSQL's default: about 50 ms of PBKDF2 on the build box.
    static let maxIterations = 100_000

    /// Passwords in printable ASCII or with control characters are used as they are, which is what
    /// SASLprep makes of them (control characters are prohibited, and PostgreSQL then uses the raw
    /// bytes on both sides). Other characters would need SASLprep's NFKC: refused.
    init(password: String) throws(PostgresError) {
        guard password.utf8.allSatisfy({ $0 < 0x80 }) else {
            throw PostgresError(.authentication, "SCRAM with a password outside ASCII is not supported (SASLprep)")
        }
        self.password = Array(password.utf8)
        user = ""
        do {
            clientNonce = SCRAMClient.base64(try SecureRandom.bytes(18))
        } catch {
            throw PostgresError(.authentication, "no randomness for the SCRAM nonce")
        }
    }

    /// For the RFC's test vector: a fixed nonce and a user name.
    init(password: String, nonce: String, user: String) {
        self.password = Array(password.utf8)
        clientNonce = nonce
        self.user = user
    }

    var clientFirstBare: String { "n=" + user + ",r=" + clientNonce }
    var initialResponse: [UInt8] { Array(("n,," + clientFirstBare).utf8) }

    /// The client-final-message for the server-first-message, keeping the signature the server
    /// must prove itself with.
    mutating func finalResponse(serverFirst: [UInt8]) throws(PostgresError) -> [UInt8] {
        let text = String(decoding: serverFirst, as: UTF8.self)
        var nonce: String? = nil, salt: [UInt8]? = nil, iterations: Int? = nil
        for attribute in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard attribute.count >= 2, attribute.dropFirst().first == "=" else {
                throw PostgresError(.authentication, "SCRAM: a malformed server-first-message")
            }
            let value = String(attribute.dropFirst(2))
            switch attribute.first {
            case "r": nonce = value
            case "s": salt = SCRAMClient.unbase64(value)
            case "i": iterations = Int(value)
            case "m": throw PostgresError(.authentication, "SCRAM: a mandatory extension this client does not know")
            default: break
            }
        }
        guard let nonce, nonce.hasPrefix(clientNonce), nonce.utf8.count > clientNonce.utf8.count else {
            throw PostgresError(.authentication, "SCRAM: the server's nonce does not extend ours")
        }
        guard let salt, !salt.isEmpty else { throw PostgresError(.authentication, "SCRAM: no salt") }
        // PostgreSQL's default is 4096. The count is the server's word, and each iteration costs
        // the process CPU that no deadline interrupts (10,000,000 took 5.5 s): a server asking for
        // more than `maxIterations` is refused before any is computed.
        guard let iterations, iterations >= 1, iterations <= Self.maxIterations else {
            throw PostgresError(.authentication, "SCRAM: an iteration count out of range (1 to \(Self.maxIterations))")
        }
        let salted = try SCRAMClient.pbkdf2(password, salt: salt, iterations: iterations)
        let clientKey = HMACSHA256.mac(key: salted, message: Array("Client Key".utf8))
        let storedKey = SHA256.hash(clientKey)
        let withoutProof = "c=biws,r=" + nonce
        let authMessage = Array((clientFirstBare + "," + text + "," + withoutProof).utf8)
        let clientSignature = HMACSHA256.mac(key: storedKey, message: authMessage)
        let proof = zip(clientKey, clientSignature).map { $0 ^ $1 }
        let serverKey = HMACSHA256.mac(key: salted, message: Array("Server Key".utf8))
        expectedServerSignature = HMACSHA256.mac(key: serverKey, message: authMessage)
        return Array((withoutProof + ",p=" + SCRAMClient.base64(proof)).utf8)
    }

    /// The server-final-message must carry the signature only the password's holder can make.
    func verify(serverFinal: [UInt8]) throws(PostgresError) {
        let text = String(decoding: serverFinal, as: UTF8.self)
        if text.hasPrefix("e=") { throw PostgresError(.authentication, "SCRAM: the server refused: \(PostgresError.shortened(String(text.dropFirst(2))))") }
        guard text.hasPrefix("v="), let signature = SCRAMClient.unbase64(String(text.dropFirst(2).prefix { $0 != "," })),
            !expectedServerSignature.isEmpty, signature == expectedServerSignature
        else {
            throw PostgresError(.authentication, "SCRAM: the server's signature does not verify")
        }
    }

    static func pbkdf2(_ password: [UInt8], salt: [UInt8], iterations: Int) throws(PostgresError) -> [UInt8] {
        guard OpenSSLRuntime.start() else { throw PostgresError(.authentication, "OpenSSL did not start") }
        var out = [UInt8](repeating: 0, count: 32)
        let ok = password.withUnsafeBytes { pass in
            salt.withUnsafeBufferPointer { saltBytes in
                out.withUnsafeMutableBufferPointer { key in
                    PKCS5_PBKDF2_HMAC(
                        pass.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(pass.count), saltBytes.baseAddress,
                        Int32(saltBytes.count), Int32(iterations), EVP_sha256(), 32, key.baseAddress)
                }
            }
        }
        guard ok == 1 else { throw PostgresError(.authentication, "PBKDF2 failed") }
        return out
    }

    /// Standard base64 with padding (RFC 4648 section 4), which SCRAM uses.
    static func base64(_ bytes: [UInt8]) -> String {
        var text = Base64URL.encode(bytes).map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 }
        while text.count % 4 != 0 { text.append("=") }
        return String(text)
    }

    static func unbase64(_ text: String) -> [UInt8]? {
        var chars = Array(text.utf8)
        while chars.last == UInt8(ascii: "=") { chars.removeLast() }
        guard chars.allSatisfy({ $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: "_") }) else { return nil }
        return Base64URL.decode(chars.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: "-") : $0 == UInt8(ascii: "/") ? UInt8(ascii: "_") : $0 })
    }
}
