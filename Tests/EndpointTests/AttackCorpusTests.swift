import DevSupport
import Shared
import Testing

/// What an attack case builds its token from: the endpoint's trusted key and a valid token's
/// header and claims, which each case bends in one way.
struct Forge {
    let key: SigningKey
    let claims: [(String, JSONValue)]
    let now: UnixTime

    var header: [(String, JSONValue)] { [("alg", .string(key.algorithm)), ("kid", .string(key.kid)), ("typ", "JWT")] }

    /// Signed by the trusted key, with header members and claims replaced or added.
    func sign(header extra: [(String, JSONValue)] = [], claims changes: [(String, JSONValue)] = []) throws -> String {
        try JWTMinter.mint(rawHeader: JSONValue.object(merge(header, extra)).serialized,
                           rawClaims: JSONValue.object(merge(claims, changes)).serialized, key: key)
    }

    /// Header and claims text exactly as given, signed by the trusted key.
    func signRaw(header: String? = nil, claims: String? = nil) throws -> String {
        try JWTMinter.mint(rawHeader: header ?? JSONValue.object(self.header).serialized,
                           rawClaims: claims ?? JSONValue.object(self.claims).serialized, key: key)
    }

    /// No signature at all.
    func unsigned(header: String) -> String {
        b64(header) + "." + b64(JSONValue.object(claims).serialized) + "."
    }

    var claimsText: String { JSONValue.object(claims).serialized }
    func b64(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }

    private func merge(_ base: [(String, JSONValue)], _ extra: [(String, JSONValue)]) -> [(String, JSONValue)] {
        var members = base
        for (name, value) in extra {
            if let i = members.firstIndex(where: { $0.0 == name }) { members[i].1 = value } else {
                members.append((name, value))
            }
        }
        return members
    }
}

/// One hostile token and the status it must get.
struct Attack: Sendable, CustomStringConvertible {
    let description: String
    let status: Int
    /// Whether the token passes every check made before the nonce is claimed (rule 5: a nonce
    /// sent out is spent), so an Apple endpoint may keep one nonce row for it.
    let spendsNonce: Bool
    /// Whether `delete-account` cannot read a subject from it (not three base64url parts, claims
    /// not a JSON object, no string `sub`): refused with 400 before anything is deleted.
    let notAJWT: Bool
    /// `delete-account`'s `appleRevocation` when not the one `deletionAnswer` derives.
    let deletionRevocation: String?
    let build: @Sendable (Forge) throws -> String

    init(
        _ name: String, _ status: Int = 401, spendsNonce: Bool = false, notAJWT: Bool = false,
        deletionRevocation: String? = nil, _ build: @escaping @Sendable (Forge) throws -> String
    ) {
        description = name
        self.status = status
        self.spendsNonce = spendsNonce
        self.notAJWT = notAJWT
        self.deletionRevocation = deletionRevocation
        self.build = build
    }

    /// What `delete-account` answers with this as its fresh `appleIdentityToken` (README,
    /// delete-account): a token it cannot read is refused before anything is deleted; one it can
    /// read deletes the account and revokes nothing, answering `not_requested` when it fails a
    /// check made before answering, `identity_mismatch` when its `sub` is another's, and
    /// `scheduled` when only its signature or key is wrong (checked after the answer, where it
    /// stops the revocation).
    var deletionAnswer: (status: Int, revocation: String?) {
        if status == 413 { return (413, nil) }
        if notAJWT { return (400, nil) }
        return (200, deletionRevocation ?? (spendsNonce ? "scheduled" : "not_requested"))
    }
}

/// Issue 8's attack corpus: every hostile token against every endpoint that takes one. Each gets
/// its 4xx, writes nothing, and the process exits normally with a CGI answer.
@Suite struct AttackCorpusTests {
    static let attacks: [Attack] = [
        Attack("alg none, no signature", notAJWT: true) { $0.unsigned(header: #"{"alg":"none","typ":"JWT"}"#) },
        Attack("alg NONE, no signature", notAJWT: true) { $0.unsigned(header: #"{"alg":"NONE"}"#) },
        Attack("alg none with a real signature") { try $0.sign(header: [("alg", "none")]) },
        Attack("HS256 keyed with the public key (DER)") { f in
            try JWTMinter.mintHS256(rawHeader: #"{"alg":"HS256","kid":"\#(f.key.kid)"}"#, rawClaims: f.claimsText,
                                    secret: try f.key.publicKeyDER())
        },
        Attack("HS256 keyed with the public JWK text") { f in
            try JWTMinter.mintHS256(rawHeader: #"{"alg":"HS256","kid":"\#(f.key.kid)"}"#, rawClaims: f.claimsText,
                                    secret: Array(f.key.publicJWK().serialized.utf8))
        },
        Attack("RS512 header") { try $0.sign(header: [("alg", "RS512")]) },
        Attack("PS256 header") { try $0.sign(header: [("alg", "PS256")]) },
        Attack("ES256 header on an RSA key", spendsNonce: true) { try $0.sign(header: [("alg", "ES256")]) },
        Attack("alg as a number") { try $0.sign(header: [("alg", 256)]) },
        Attack("kid with path traversal", spendsNonce: true) {
            try $0.sign(header: [("kid", "../../../../etc/passwd")])
        },
        Attack("kid with SQL", spendsNonce: true) {
            try $0.sign(header: [("kid", "x' OR '1'='1'; DROP TABLE accounts; --")])
        },
        Attack("kid of 10 KB", spendsNonce: true) {
            try $0.sign(header: [("kid", .string(String(repeating: "k", count: 10_240)))])
        },
        Attack("no kid, signed by the trusted key") { f in
            try f.signRaw(header: #"{"alg":"\#(f.key.algorithm)","typ":"JWT"}"#)
        },
        Attack("kid as an object") { try $0.sign(header: [("kid", .object([("$ne", "")]))]) },
        Attack("jku header") { try $0.sign(header: [("jku", "http://127.0.0.1:1/keys")]) },
        Attack("x5u header") { try $0.sign(header: [("x5u", "http://127.0.0.1:1/cert.pem")]) },
        Attack("jwk header with the signing key") { f in try f.sign(header: [("jwk", f.key.publicJWK())]) },
        Attack("x5c header") { try $0.sign(header: [("x5c", .array(["MIIB"]))]) },
        Attack("unknown crit") { try $0.sign(header: [("crit", .array(["exp"])), ("exp", 1)]) },
        Attack("b64 false in crit") { try $0.sign(header: [("crit", .array(["b64"])), ("b64", false)]) },
        Attack("five parts (JWE shape)", notAJWT: true) { try $0.sign() + ".e30.e30" },
        Attack("JWE header, five parts", notAJWT: true) { f in
            f.b64(#"{"alg":"RSA-OAEP","enc":"A256GCM"}"#) + ".AAAA.AAAA.AAAA.AAAA"
        },
        Attack("two parts", notAJWT: true) { f in
            let t = try f.sign()
            return String(t[..<(t.lastIndex(of: ".") ?? t.endIndex)])
        },
        Attack("padding on every part", notAJWT: true) { f in
            try f.sign().split(separator: ".").map { String($0) + "==" }.joined(separator: ".")
        },
        Attack("standard base64 characters", notAJWT: true) { f in
            String(try f.sign().map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 }) + "+/"
        },
        Attack("a space inside the signature", notAJWT: true) { f in
            var t = try f.sign()
            t.insert(" ", at: t.index(t.endIndex, offsetBy: -10))
            return t
        },
        Attack("a non-ASCII character", notAJWT: true) { try $0.sign() + "é" },
        Attack("a flipped signature byte", spendsNonce: true) { f in
            // Inside the signature, not its last character, whose spare bits would make it
            // non-canonical base64url (refused as not a JWT) for some signatures and not others.
            var t = Array(try f.sign())
            let i = t.count - 5
            t[i] = t[i] == "A" ? "B" : "A"
            return String(t)
        },
        Attack("duplicate header member", notAJWT: true) { f in
            try f.signRaw(header: #"{"alg":"RS256","kid":"\#(f.key.kid)","alg":"none"}"#)
        },
        Attack("duplicate claim", notAJWT: true) { f in
            try f.signRaw(claims: String(f.claimsText.dropLast()) + #","sub":"someone-else"}"#)
        },
        Attack("claims not an object", notAJWT: true) { try $0.signRaw(claims: #"["sub"]"#) },
        Attack("claims 100 deep", notAJWT: true) { f in
            try f.signRaw(claims: String(repeating: #"{"a":"#, count: 100) + "1" + String(repeating: "}", count: 100))
        },
        Attack("sub a number", notAJWT: true) { try $0.sign(claims: [("sub", 12345)]) },
        Attack("iss a number") { try $0.sign(claims: [("iss", 1)]) },
        Attack("aud a number") { try $0.sign(claims: [("aud", 1)]) },
        Attack("email a number") { try $0.sign(claims: [("email", 1)]) },
        Attack("email_verified a number") { try $0.sign(claims: [("email_verified", 1)]) },
        Attack("exp a string") { f in try f.sign(claims: [("exp", .string(String(f.now + 600)))]) },
        Attack("iat a string") { f in try f.sign(claims: [("iat", .string(String(f.now)))]) },
        Attack("exp ten years away") { f in try f.sign(claims: [("exp", .number(Double(f.now + 315_360_000)))]) },
        Attack("exp beyond 2^53") { try $0.sign(claims: [("exp", .number(1e300))]) },
        Attack("iat an hour ahead") { f in
            try f.sign(claims: [("iat", .number(Double(f.now + 3600))), ("exp", .number(Double(f.now + 7200)))])
        },
        Attack("nbf an hour ahead") { f in try f.sign(claims: [("nbf", .number(Double(f.now + 3600)))]) },
        Attack("aud array with a foreign member") { f in
            try f.sign(claims: [("aud", .array([f.claims.first { $0.0 == "aud" }?.1 ?? "", "evil-app"]))])
        },
        Attack("aud empty array") { try $0.sign(claims: [("aud", .array([]))]) },
        Attack("empty sub", notAJWT: true) { try $0.sign(claims: [("sub", "")]) },
        Attack("sub of 300 bytes", deletionRevocation: "identity_mismatch") {
            try $0.sign(claims: [("sub", .string(String(repeating: "s", count: 300)))])
        },
        Attack("token of 200 KB", 413) { f in try f.sign() + String(repeating: "A", count: 200 * 1024) },
    ]

    @Test(arguments: TokenEndpoint.Kind.allCases)
    func everyAttackIsRefusedAndWritesNothing(_ kind: TokenEndpoint.Kind) throws {
        let endpoint = try TokenEndpoint(kind)
        // Make the store (and for Apple, a first nonce row) exist, so counts are comparable. For
        // deletion, the valid token is the control: it does revoke, once.
        try endpoint.prepare()
        let warmNonce = AppleWorld.nonce()
        let warmForge = Forge(key: endpoint.key, claims: endpoint.claims(rawNonce: warmNonce), now: Clock.now())
        let warm = try endpoint.send(
            try kind.isDeletion ? warmForge.sign() : warmForge.sign(claims: [("sub", "warm-up")]), rawNonce: warmNonce)
        #expect(warm.status == 200, "warm-up: \(warm.rawBody) \(warm.stderr)")
        if kind.isDeletion {
            #expect(warm.body["appleRevocation"]?.stringValue == "scheduled", "warm-up: \(warm.rawBody)")
            #expect(endpoint.revocationsMade == 1, "warm-up: the valid token revokes")
        }
        let revocations = endpoint.revocationsMade
        for attack in Self.attacks {
            try endpoint.prepare()
            let before = try endpoint.rowCounts()
            let nonce = AppleWorld.nonce()
            let forge = Forge(key: endpoint.key, claims: endpoint.claims(rawNonce: nonce), now: Clock.now())
            let answer = try endpoint.send(try attack.build(forge), rawNonce: nonce)
            let label = "\(kind.rawValue): \(attack)"
            #expect(answer.exitStatus == 0, "\(label): exit \(answer.exitStatus)")
            let after = try endpoint.rowCounts()
            if kind.isDeletion {
                try expectDeletion(attack, answer, endpoint, before: before, after: after, label: label)
                #expect(endpoint.revocationsMade == revocations, "\(label): revoked")
                continue
            }
            #expect(answer.status == attack.status, "\(label): \(answer.status) \(answer.rawBody) \(answer.stderr)")
            #expect(answer.errorCode != nil && answer.body["sessionToken"] == nil, "\(label)")
            var counted = after
            if kind != .google && kind != .linkGoogle, attack.spendsNonce, let n = after["nonces"],
                n == (before["nonces"] ?? 0) + 1
            {
                counted["nonces"] = n - 1
            }
            #expect(counted == before, "\(label): rows \(before) -> \(after)")
        }
        // Link: the warm-up's account and the one the attacks were sent for; no other was made.
        if !kind.isDeletion { #expect(try endpoint.h.count("accounts") == (kind.isLink ? 2 : 1)) }
        let revoked = try endpoint.h.database().query("SELECT count(*) FROM apple_revocations WHERE state = 'revoked'")
        #expect(revoked.first?.int(0) == (kind.isDeletion ? 1 : 0), "\(kind.rawValue): only the warm-up revoked")
    }

    /// A hostile fresh token on `delete-account`: refused with nothing changed, or the account
    /// wholly deleted (its row, identity and session; an audit row added) and, when `scheduled`,
    /// a revocation row and its nonce that the after-answer check then refuses to act on.
    func expectDeletion(
        _ attack: Attack, _ answer: CGIAnswer, _ endpoint: TokenEndpoint, before: [String: Int64],
        after: [String: Int64], label: String
    ) throws {
        let (status, revocation) = attack.deletionAnswer
        #expect(answer.status == status, "\(label): \(answer.status) \(answer.rawBody) \(answer.stderr)")
        guard let revocation else {
            #expect(answer.errorCode != nil, "\(label)")
            #expect(after == before, "\(label): rows \(before) -> \(after)")
            return
        }
        #expect(answer.body["deleted"] == true, "\(label)")
        #expect(answer.body["appleRevocation"]?.stringValue == revocation, "\(label): \(answer.rawBody)")
        var expected = before
        // The world holds this one account (with every session `prepare()` gave it): all of it goes.
        for table in ["accounts", "identities", "sessions"] { expected[table] = 0 }
        expected["deletion_audit", default: 0] += 1
        if revocation == "scheduled" {
            expected["apple_revocations", default: 0] += 1
            expected["nonces", default: 0] += 1
        }
        #expect(after == expected, "\(label): rows \(before) -> \(after)")
    }
}
