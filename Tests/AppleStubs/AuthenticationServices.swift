// Test-only declarations of the AuthenticationServices API that Sources/FrontdoorClient/Apple uses
// (Sign in with Apple's request and credential, the platform passkey provider, the controller and
// its delegate), written from Apple's documentation (developer.apple.com/documentation/
// authenticationservices): the names, types, optionality and availability of exactly what the
// client calls, so that Linux type-checks it (scripts/apple-stubs-check). Never shipped; no behaviour.
import Foundation

open class ASPresentationAnchor: NSObject {}

open class ASAuthorization: NSObject {
    public struct Scope: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let fullName = Scope(rawValue: "full_name")
        public static let email = Scope(rawValue: "email")
    }
    open var provider: any ASAuthorizationProvider { fatalError() }
    open var credential: any ASAuthorizationCredential { fatalError() }
}

public protocol ASAuthorizationProvider: NSObjectProtocol {}
public protocol ASAuthorizationCredential: NSObjectProtocol, NSCopying, NSSecureCoding {}

open class ASAuthorizationRequest: NSObject {}

open class ASAuthorizationOpenIDRequest: ASAuthorizationRequest {
    open var requestedScopes: [ASAuthorization.Scope]?
    open var state: String?
    open var nonce: String?
}

open class ASAuthorizationAppleIDRequest: ASAuthorizationOpenIDRequest {
    open var user: String?
}

open class ASAuthorizationAppleIDProvider: NSObject, ASAuthorizationProvider {
    override public init() {}
    open func createRequest() -> ASAuthorizationAppleIDRequest { ASAuthorizationAppleIDRequest() }
}

open class ASAuthorizationAppleIDCredential: NSObject, ASAuthorizationCredential {
    open var user: String { "" }
    open var state: String? { nil }
    open var authorizedScopes: [ASAuthorization.Scope] { [] }
    open var authorizationCode: Data? { nil }
    open var identityToken: Data? { nil }
    open var email: String? { nil }
    open var fullName: PersonNameComponents? { nil }
    public func copy(with zone: NSZone? = nil) -> Any { self }
    public static var supportsSecureCoding: Bool { true }
    public func encode(with coder: NSCoder) {}
    public required init?(coder: NSCoder) { nil }
}

public enum ASAuthorizationPublicKeyCredentialUserVerificationPreference: Sendable {
    case preferred, required, discouraged
}

open class ASAuthorizationPlatformPublicKeyCredentialDescriptor: NSObject {
    public init(credentialID: Data) {}
}

open class ASAuthorizationPlatformPublicKeyCredentialAssertionRequest: ASAuthorizationRequest {
    open var userVerificationPreference: ASAuthorizationPublicKeyCredentialUserVerificationPreference = .preferred
    open var allowedCredentials: [ASAuthorizationPlatformPublicKeyCredentialDescriptor] = []
}

open class ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest: ASAuthorizationRequest {
    open var userVerificationPreference: ASAuthorizationPublicKeyCredentialUserVerificationPreference = .preferred
    @available(iOS 17.4, macOS 14.4, *)
    open var excludedCredentials: [ASAuthorizationPlatformPublicKeyCredentialDescriptor] {
        get { [] }
        set {}
    }
}

open class ASAuthorizationPlatformPublicKeyCredentialProvider: NSObject, ASAuthorizationProvider {
    public init(relyingPartyIdentifier: String) {}
    open func createCredentialAssertionRequest(challenge: Data) -> ASAuthorizationPlatformPublicKeyCredentialAssertionRequest {
        ASAuthorizationPlatformPublicKeyCredentialAssertionRequest()
    }
    open func createCredentialRegistrationRequest(challenge: Data, name: String, userID: Data)
        -> ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest
    {
        ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest()
    }
}

open class ASAuthorizationPlatformPublicKeyCredentialAssertion: NSObject, ASAuthorizationCredential {
    open var credentialID: Data { Data() }
    open var rawClientDataJSON: Data { Data() }
    open var rawAuthenticatorData: Data! { Data() }
    open var signature: Data! { Data() }
    open var userID: Data! { Data() }
    public func copy(with zone: NSZone? = nil) -> Any { self }
    public static var supportsSecureCoding: Bool { true }
    public func encode(with coder: NSCoder) {}
    public required init?(coder: NSCoder) { nil }
}

open class ASAuthorizationPlatformPublicKeyCredentialRegistration: NSObject, ASAuthorizationCredential {
    open var credentialID: Data { Data() }
    open var rawClientDataJSON: Data { Data() }
    open var rawAttestationObject: Data? { nil }
    public func copy(with zone: NSZone? = nil) -> Any { self }
    public static var supportsSecureCoding: Bool { true }
    public func encode(with coder: NSCoder) {}
    public required init?(coder: NSCoder) { nil }
}

public struct ASAuthorizationError: Error {
    public static let errorDomain = "com.apple.AuthenticationServices.AuthorizationError"
    public enum Code: Int, Sendable {
        case unknown = 1000, canceled = 1001, invalidResponse = 1002, notHandled = 1003, failed = 1004,
             notInteractive = 1005, matchedExcludedCredential = 1006
    }
}

public protocol ASAuthorizationControllerDelegate: NSObjectProtocol {
    func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization)
    func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error)
}

public protocol ASAuthorizationControllerPresentationContextProviding: NSObjectProtocol {
    func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor
}

open class ASAuthorizationController: NSObject {
    open var authorizationRequests: [ASAuthorizationRequest] { [] }
    open weak var delegate: (any ASAuthorizationControllerDelegate)?
    open weak var presentationContextProvider: (any ASAuthorizationControllerPresentationContextProviding)?
    public init(authorizationRequests: [ASAuthorizationRequest]) {}
    open func performRequests() {}
    open func cancel() {}
}
