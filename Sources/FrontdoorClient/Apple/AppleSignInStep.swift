#if canImport(AuthenticationServices)
import AuthenticationServices
import Foundation

/// Sign in with Apple's sheet, asked with a new nonce's hash: the credential for the server, or
/// nil when the person backed out. Type-checked on Linux against Tests/AppleStubs: see docs/clients.md.
@MainActor
public final class AppleSignInStep {
    private let runner: AuthorizationRunner

    public init(anchor: ASPresentationAnchor) {
        runner = AuthorizationRunner(anchor: anchor)
    }

    /// `scopes`: name and email for a sign-in; none for a deletion's fresh authorization.
    public func run(scopes: [ASAuthorization.Scope] = [.fullName, .email]) async throws(FrontdoorError) -> AppleCredential? {
        let nonce = Nonce()
        let request = ASAuthorizationAppleIDProvider().createRequest()
        request.requestedScopes = scopes
        request.nonce = nonce.hashed
        guard let authorization = try await runner.run(request, appleSignIn: true) else { return nil }
        guard let credential = authorization.credential as? ASAuthorizationAppleIDCredential,
            let token = credential.identityToken
        else { throw .authorizationFailed(code: AuthorizationOutcome.invalidResponse) }
        return AppleCredential(
            identityToken: String(decoding: token, as: UTF8.self),
            authorizationCode: credential.authorizationCode.map { String(decoding: $0, as: UTF8.self) }, nonce: nonce,
            givenName: credential.fullName?.givenName, familyName: credential.fullName?.familyName)
    }
}

extension Frontdoor {
    /// Apple's sheet, then `signin-apple`. Nil when the person backed out: show nothing.
    @MainActor
    public func signInWithApple(anchor: ASPresentationAnchor, reauthenticating: Bool = false) async throws(FrontdoorError)
        -> Session?
    {
        guard let credential = try await AppleSignInStep(anchor: anchor).run() else { return nil }
        return try await signInWithApple(credential, reauthenticating: reauthenticating)
    }

    /// Deletes the account; one with Apple asks Apple's sheet first for the authorization the
    /// server revokes with. Nil when the person backed out of that sheet: nothing is deleted
    /// (`deleteAccount()` deletes without revoking, answering `.notRequested`).
    @MainActor
    public func deleteAccount(anchor: ASPresentationAnchor) async throws(FrontdoorError) -> AppleRevocationStatus? {
        guard try await account().providers.contains(where: { $0.provider == .apple }) else {
            return try await deleteAccount()
        }
        guard let fresh = try await AppleSignInStep(anchor: anchor).run(scopes: []) else { return nil }
        return try await deleteAccount(apple: fresh)
    }
}
#endif
