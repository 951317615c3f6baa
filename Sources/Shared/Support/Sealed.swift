import COpenSSL

/// AES-256-GCM with a random 96-bit IV: `iv ‖ ciphertext ‖ tag`. `associated` binds the box to
/// what it is filed under, so it cannot be moved to another row. Only the relay's kept sign-ins
/// use it, on the rare path where a sign-in did not finish.
enum Sealed {
    static let ivBytes = 12
    static let tagBytes = 16

    static func seal(_ plain: [UInt8], key: [UInt8], associated: [UInt8]) throws(FrontdoorError) -> [UInt8] {
        guard key.count == 32 else { throw .internal("seal: key is not 256 bits") }
        let iv = try SecureRandom.bytes(ivBytes)
        guard let cipher = try run(encrypt: true, key: key, iv: iv, associated: associated, input: plain, tag: nil)
        else { throw .internal("seal: AES-GCM failed") }
        return iv + cipher
    }

    /// nil when the box was not sealed with `key` and `associated`, or was changed.
    static func open(_ box: [UInt8], key: [UInt8], associated: [UInt8]) -> [UInt8]? {
        guard key.count == 32, box.count >= ivBytes + tagBytes else { return nil }
        let iv = Array(box.prefix(ivBytes))
        let tag = Array(box.suffix(tagBytes))
        let cipher = Array(box[ivBytes..<(box.count - tagBytes)])
        return try? run(encrypt: false, key: key, iv: iv, associated: associated, input: cipher, tag: tag)
    }

    /// Encrypts (the output ends with the tag) or decrypts and checks `tag`; nil on any failure.
    private static func run(
        encrypt: Bool, key: [UInt8], iv: [UInt8], associated: [UInt8], input: [UInt8], tag: [UInt8]?
    ) throws(FrontdoorError) -> [UInt8]? {
        guard OpenSSLRuntime.start() else { throw .internal("seal: OpenSSL unavailable") }
        defer { OpenSSLRuntime.clearErrors() }
        guard input.count < Int(Int32.max) - 64, associated.count < Int(Int32.max),
            let ctx = EVP_CIPHER_CTX_new()
        else { return nil }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let enc: Int32 = encrypt ? 1 : 0
        guard EVP_CipherInit_ex(ctx, EVP_aes_256_gcm(), nil, nil, nil, enc) == 1,
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, Int32(ivBytes), nil) == 1,
            EVP_CipherInit_ex(ctx, nil, nil, key, iv, enc) == 1
        else { return nil }
        var length: Int32 = 0
        if !associated.isEmpty {
            guard EVP_CipherUpdate(ctx, nil, &length, associated, Int32(associated.count)) == 1 else { return nil }
        }
        var output = [UInt8](repeating: 0, count: input.count + 32)
        var written: Int32 = 0
        if !input.isEmpty {
            guard EVP_CipherUpdate(ctx, &output, &written, input, Int32(input.count)) == 1 else { return nil }
        }
        if var tag {
            guard tag.count == tagBytes,
                EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, Int32(tagBytes), &tag) == 1
            else { return nil }
        }
        var final: Int32 = 0
        let finished = output.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return EVP_CipherFinal_ex(ctx, base + Int(written), &final) == 1
        }
        guard finished else { return nil }
        output.removeSubrange(Int(written + final)...)
        guard encrypt else { return output }
        var computed = [UInt8](repeating: 0, count: tagBytes)
        guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, Int32(tagBytes), &computed) == 1 else { return nil }
        return output + computed
    }
}
