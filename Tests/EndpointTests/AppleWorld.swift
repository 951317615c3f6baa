#if canImport(Glibc)
import Glibc
#endif
import DevSupport
import Shared

/// A `Harness` with a fake Apple and a fake Firebase beside the fake Google, and a config whose
/// apple and firebase sections point at them, with short outbound timeouts.
final class AppleWorld: @unchecked Sendable {
    static let totalTimeout = 2.0

    let h: Harness
    let apple: FakeApple
    let firebase: FakeFirebase
    let mode: String
    /// Set by `useServiceAccount()`: the config names it as `firebase.serviceAccountFile`.
    private(set) var serviceAccountFile: String?
    static let serviceAccountEmail = "relay-cleaner@frontdoor-relay.iam.gserviceaccount.com"

    init(mode: String = "relay", config extra: [(String, JSONValue)] = []) throws {
        let apple = try FakeApple(keys: [try TestKeys.rsa("apple-1")])
        self.apple = apple
        firebase = try FakeFirebase(firebaseKeys: [try TestKeys.rsa("firebase-1")], appleKeys: { apple.keys })
        self.mode = mode
        h = try Harness()
        try writeConfig(extra)
    }

    deinit {
        apple.server?.stop()
        firebase.servers.forEach { $0.stop() }
    }

    func configMembers(apiKey: String = FakeFirebase.apiKey) -> [(String, JSONValue)] {
        [
            ("apple", .object([
                ("bundleIds", .array([.string(FakeApple.bundleId), "com.example.frontdoor.second"])),
                ("mode", .string(mode)), ("keysUrl", .string(apple.keysURL)),
            ])),
            ("firebase", .object([
                ("projectId", .string(FakeFirebase.projectId)), ("apiKey", .string(apiKey)),
                ("identityToolkitUrl", .string(firebase.identityToolkitURL)),
                ("securetokenUrl", .string(firebase.securetokenURL)), ("certsUrl", .string(firebase.certsURL)),
                ("oauthTokenUrl", .string(firebase.oauthTokenURL)),
            ] + (serviceAccountFile.map { [("serviceAccountFile", JSONValue.string($0))] } ?? []))),
            ("http", .object([
                ("connectTimeoutSeconds", 1), ("totalTimeoutSeconds", .number(Self.totalTimeout)),
            ])),
            ("processLifetimeSeconds", 10),
        ]
    }

    /// The web's Services ID the tests' Sign in with Apple JS would sign for (rule 21).
    static let servicesId = "com.example.frontdoor.web"

    /// The config's apple section with `servicesIds` added (the key `apple.servicesIds`).
    func appleSection(servicesIds: [String]) -> (String, JSONValue) {
        ("apple", .object([
            ("bundleIds", .array([.string(FakeApple.bundleId), "com.example.frontdoor.second"])),
            ("servicesIds", .array(servicesIds.map { .string($0) })),
            ("mode", .string(mode)), ("keysUrl", .string(apple.keysURL)),
        ]))
    }

    func writeConfig(_ extra: [(String, JSONValue)] = [], apiKey: String = FakeFirebase.apiKey) throws {
        try h.writeConfig(configMembers(apiKey: apiKey) + extra)
    }

    /// Gives the relay a service account (a key file on disk, mode 0600, and the fake OAuth
    /// endpoint told its public key) and rewrites the config with `extra`.
    func useServiceAccount(_ extra: [(String, JSONValue)] = []) throws {
        let key = try TestKeys.rsa("service-account-1")
        firebase.setServiceAccount(email: Self.serviceAccountEmail, key: key)
        let file = h.dir + "/service-account.json"
        try h.writeText(file, try FakeFirebase.serviceAccountJSON(email: Self.serviceAccountEmail, key: key))
        // The PEM's lines, for the log scan (a secret with a newline is not recorded whole).
        for line in try key.privateKeyPEM().split(separator: "\n") where !line.hasPrefix("-----") {
            TestLogs.register(String(line))
        }
        serviceAccountFile = file
        try writeConfig(extra)
    }

    /// A fresh raw nonce, as the phone makes one.
    static func nonce() -> String { Hex.encode((try? SecureRandom.bytes(32)) ?? []) }

    static func body(_ token: String, nonce: String?, givenName: String? = nil, familyName: String? = nil) -> String {
        var members: [(String, JSONValue)] = [("identityToken", .string(token))]
        if let nonce { members.append(("rawNonce", .string(nonce))) }
        if let givenName { members.append(("givenName", .string(givenName))) }
        if let familyName { members.append(("familyName", .string(familyName))) }
        return JSONValue.object(members).serialized
    }

    /// Runs signin-apple to its exit (work after the answer included).
    func signIn(
        _ token: String, nonce: String?, givenName: String? = nil, familyName: String? = nil
    ) throws -> CGIAnswer {
        try h.run("signin-apple", json: Self.body(token, nonce: nonce, givenName: givenName, familyName: familyName))
    }

    /// A new Apple token and its nonce, signed in; the answer.
    func signInNew(sub: String, email: String? = nil, emailVerified: JSONValue = "true") throws -> CGIAnswer {
        let nonce = Self.nonce()
        let token = try apple.token(sub: sub, rawNonce: nonce, email: email, emailVerified: emailVerified)
        return try signIn(token, nonce: nonce)
    }

    /// Paths the fake Firebase was asked for, in order, without the host.
    var firebasePaths: [String] { firebase.requests.map { $0.path } }

    func count(_ table: String) throws -> Int64 { try h.count(table) }
    func count(_ kind: Ephemeral.Kind) throws -> Int64 { try h.count(kind) }
}
