#if canImport(AuthenticationServices)
import AuthenticationServices
import Foundation

/// The passkey ceremonies through the phone's own sheet
/// (`ASAuthorizationPlatformPublicKeyCredentialProvider`), around the portable begin and finish
/// calls. Nil when the person backed out. Type-checked on Linux against Tests/AppleStubs: see docs/clients.md.
extension Frontdoor {
    @MainActor
    public func signInWithPasskey(anchor: ASPresentationAnchor, reauthenticating: Bool = false) async throws(FrontdoorError)
        -> Session?
    {
        let options = try await beginPasskeySignIn()
        let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: options.rpId)
        let request = provider.createCredentialAssertionRequest(challenge: options.challenge)
        request.userVerificationPreference = .required
        guard let authorization = try await AuthorizationRunner(anchor: anchor).run(request, appleSignIn: false) else {
            return nil
        }
        guard let assertion = authorization.credential as? ASAuthorizationPlatformPublicKeyCredentialAssertion else {
            throw .authorizationFailed(code: AuthorizationOutcome.invalidResponse)
        }
        let credential = PasskeyAssertionCredential(
            credentialId: assertion.credentialID, clientDataJSON: assertion.rawClientDataJSON,
            authenticatorData: assertion.rawAuthenticatorData, signature: assertion.signature, userHandle: assertion.userID)
        return try await finishPasskeySignIn(options, credential: credential, reauthenticating: reauthenticating)
    }

    /// Needs a recent sign-in (`reauthenticationRequired` otherwise). `name`: what the list shows.
    @MainActor
    public func addPasskey(anchor: ASPresentationAnchor, name: String? = nil) async throws(FrontdoorError) -> AddedPasskey? {
        let options = try await beginPasskeyRegistration()
        let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: options.rpId)
        let request = provider.createCredentialRegistrationRequest(
            challenge: options.challenge, name: options.userName, userID: options.userId)
        request.userVerificationPreference = .required
        if #available(iOS 17.4, macOS 14.4, *) {
            request.excludedCredentials = options.excludedCredentialIds.map {
                ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: $0)
            }
        }
        guard let authorization = try await AuthorizationRunner(anchor: anchor).run(request, appleSignIn: false) else {
            return nil
        }
        guard let registration = authorization.credential as? ASAuthorizationPlatformPublicKeyCredentialRegistration,
            let attestation = registration.rawAttestationObject
        else { throw .authorizationFailed(code: AuthorizationOutcome.invalidResponse) }
        let credential = PasskeyRegistrationCredential(
            credentialId: registration.credentialID, clientDataJSON: registration.rawClientDataJSON,
            attestationObject: attestation)
        return try await finishPasskeyRegistration(options, credential: credential, name: name)
    }
}
#endif
