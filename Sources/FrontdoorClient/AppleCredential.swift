/// What Sign in with Apple gave the phone, and the raw nonce whose hash it was asked with: all the
/// server needs for `signin-apple`, `link` and a deletion's revocation. `AppleSignInStep` makes
/// one on an iPhone; an app with its own Apple button fills it in itself.
public struct AppleCredential: Equatable, Sendable {
    /// `credential.identityToken` as UTF-8 text.
    public let identityToken: String
    /// `credential.authorizationCode` as UTF-8 text (what a deletion uses to revoke).
    public let authorizationCode: String?
    /// The nonce whose `hashed` value was the request's `nonce`.
    public let nonce: Nonce
    /// Apple gives the name only the first time a person signs in to the app.
    public let givenName: String?
    public let familyName: String?

    public init(
        identityToken: String, authorizationCode: String? = nil, nonce: Nonce, givenName: String? = nil,
        familyName: String? = nil
    ) {
        self.identityToken = identityToken
        self.authorizationCode = authorizationCode
        self.nonce = nonce
        self.givenName = givenName
        self.familyName = familyName
    }
}
