import COpenSSL

/// Reading a PEM private key (PKCS#8: Apple's `.p8`, a Google service account's `private_key`),
/// wrapped once for the keys that sign: `RSAPrivateKey` and the Apple team key.
enum PEMPrivateKey {
    /// The key, which the caller owns and frees with `EVP_PKEY_free`; nil when `pem` is not an
    /// unencrypted PEM private key. Call with OpenSSL started.
    static func read(_ pem: [UInt8]) -> OpaquePointer? {
        pem.withUnsafeBytes { buffer -> OpaquePointer? in
            guard buffer.count <= Int(Int32.max), let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count))
            else { return nil }
            defer { BIO_free(bio) }
            // No passphrase from the callback: an encrypted key fails instead of asking a terminal.
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
    }
}
