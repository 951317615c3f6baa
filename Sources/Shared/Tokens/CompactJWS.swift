/// A JWS in compact serialization (RFC 7515 section 7.1), split and decoded but not verified.
public struct CompactJWS: Sendable {
    /// The whole token is at most this many bytes. Google's and Apple's ID tokens are 1-2 KiB and
    /// Firebase's under 4 KiB; 16 KiB leaves room while keeping hostile input cheap to refuse.
    public static let maxTokenBytes = 16_384

    /// The protected header, always a JSON object.
    public let header: JSONValue
    /// The decoded payload (may be empty at this layer; claims parsing refuses that).
    public let payload: [UInt8]
    /// ASCII of `<b64 header>.<b64 payload>`, what the signature covers.
    public let signingInput: [UInt8]
    public let signature: [UInt8]

    /// Exactly three parts, each strict base64url (no padding, no whitespace, canonical), a
    /// non-empty header that is a JSON object without duplicate member names, and a non-empty
    /// signature.
    public static func parse(_ token: String) throws(TokenError) -> CompactJWS {
        // utf8.count is O(1) for native strings: an oversized token costs nothing more.
        guard token.utf8.count <= maxTokenBytes else { throw .malformed("token over \(maxTokenBytes) bytes") }
        let bytes = Array(token.utf8)
        var dots: [Int] = []
        for (i, byte) in bytes.enumerated() where byte == UInt8(ascii: ".") {
            dots.append(i)
            guard dots.count <= 2 else { throw .malformed("token has more than three parts") }
        }
        guard dots.count == 2 else { throw .malformed("token has fewer than three parts") }
        let headerPart = bytes[..<dots[0]]
        let payloadPart = bytes[(dots[0] + 1)..<dots[1]]
        let signaturePart = bytes[(dots[1] + 1)...]
        guard !headerPart.isEmpty else { throw .malformed("empty header") }
        guard !signaturePart.isEmpty else { throw .malformed("empty signature") }
        guard let headerBytes = Base64URL.decode(Array(headerPart)) else { throw .malformed("header base64url") }
        guard let payload = Base64URL.decode(Array(payloadPart)) else { throw .malformed("payload base64url") }
        guard let signature = Base64URL.decode(Array(signaturePart)) else {
            throw .malformed("signature base64url")
        }
        let header: JSONValue
        do throws(JSONParseError) {
            header = try JSONParser.parse(headerBytes)
        } catch .duplicateMember {
            throw .malformed("header has a duplicate member")
        } catch {
            throw .malformed("header JSON")
        }
        guard case .object = header else { throw .malformed("header not an object") }
        return CompactJWS(
            header: header, payload: payload, signingInput: Array(bytes[..<dots[1]]), signature: signature)
    }

    /// The payload as JSON claims (not yet checked): a document without duplicate member names.
    /// Its shape (an object) is `TokenVerifier.checkClaims`'s to judge.
    public func claims() throws(TokenError) -> JSONValue {
        do throws(JSONParseError) {
            return try JSONParser.parse(payload)
        } catch .duplicateMember {
            throw .malformed("claims have a duplicate member")
        } catch {
            throw .malformed("claims JSON")
        }
    }
}
