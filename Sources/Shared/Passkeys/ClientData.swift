/// The client data (`clientDataJSON`) of a ceremony, checked as L3 sections 7.1 and 7.2 give it,
/// from its UTF-8 decoding to its `topOrigin`.
public enum ClientData {
    public enum Ceremony: String, Sendable {
        case create = "webauthn.create"
        case get = "webauthn.get"
    }

    /// Real client data is 100 to 400 bytes (iOS sends `type`, `challenge` and `origin`; Android
    /// adds `androidPackageName`); the limit leaves room for what clients may add.
    public static let maxBytes = 8 * 1024
    /// The ceremony's own challenge is 32 bytes; anything under L3's 16 is a caller's mistake,
    /// refused rather than compared.
    static let minimumChallengeBytes = 16

    /// Checks the client data of a response: its `type`, the challenge of this very ceremony
    /// (compared in constant time), an origin of `origins` (exact match), `crossOrigin` absent or
    /// false, and no `topOrigin`. Answers the origin, which says which app made the response.
    ///
    /// The JSON is read with the project's strict parser (duplicate member names refused, so no
    /// second `challenge` can hide behind the first), after a leading byte order mark is removed
    /// (L3: "any leading byte order mark (BOM) must be stripped"). Members we do not use
    /// (`androidPackageName`, `extraData`, `tokenBinding`) are ignored: the origin already names
    /// the app's signing key, and the package name is the client's word like the origin.
    public static func verify(_ json: [UInt8], ceremony: Ceremony, challenge: [UInt8], origins: [String])
        throws(PasskeyError) -> String
    {
        guard json.count <= maxBytes else { throw .malformed(.tooLarge("clientDataJSON")) }
        let text = json.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(json.dropFirst(3)) : json
        guard let data = try? JSONParser.parse(text, maxDepth: 8), data.objectValue != nil else {
            throw .malformed(.clientData)
        }
        guard data["type"]?.stringValue == ceremony.rawValue else { throw .refused(.type) }
        guard challenge.count >= minimumChallengeBytes, let sent = data["challenge"]?.stringValue,
            ConstantTime.equal(Array(sent.utf8), Array(Base64URL.encode(challenge).utf8))
        else { throw .refused(.challenge) }
        guard let origin = data["origin"]?.stringValue, origins.contains(where: { Array($0.utf8) == Array(origin.utf8) })
        else { throw .refused(.origin(androidKeyHash: PasskeyOrigins.androidKeyHash(in: data["origin"]?.stringValue))) }
        if let crossOrigin = data["crossOrigin"] {
            guard crossOrigin == false else { throw .refused(.crossOrigin) }
        }
        // Present at all, even null: a native app's client never writes it. (Not `!= nil`:
        // JSONValue is ExpressibleByNilLiteral, so that would compare with `.null`.)
        if case .some = data["topOrigin"] { throw .refused(.topOrigin) }
        return origin
    }
}
