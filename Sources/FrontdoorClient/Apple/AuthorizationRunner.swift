#if canImport(AuthenticationServices)
import AuthenticationServices
import Foundation

/// Runs one `ASAuthorizationController` request in async Swift: the authorization, or nil when
/// the person backed out (`AuthorizationOutcome` decides). Type-checked on Linux against
/// Tests/AppleStubs: see docs/clients.md.
@MainActor
final class AuthorizationRunner: NSObject {
    private let anchor: ASPresentationAnchor
    private var continuation: CheckedContinuation<Handed, any Error>?
    /// The controller lives as long as its sheet.
    private var controller: ASAuthorizationController?

    init(anchor: ASPresentationAnchor) {
        self.anchor = anchor
    }

    func run(_ request: ASAuthorizationRequest, appleSignIn: Bool) async throws(FrontdoorError) -> ASAuthorization? {
        let controller = ASAuthorizationController(authorizationRequests: [request])
        controller.delegate = self
        controller.presentationContextProvider = self
        self.controller = controller
        defer { self.controller = nil }
        // The caller going away withdraws the sheet (its task cancelled): `.cancelled`, not a back-out.
        let withdraw = Withdraw(controller: controller)
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    self.continuation = continuation
                    controller.performRequests()
                }
            } onCancel: {
                Task { @MainActor in withdraw.controller.cancel() }
            }.authorization
        } catch {
            if Task.isCancelled { throw .cancelled }
            let failed = error as NSError
            #if DEBUG
            if failed.domain == ASAuthorizationError.errorDomain, failed.code == 1000 {
                // Seen on every tap, it is rarely the person's doing (docs/clients.md, "Backing out is nothing").
                print(
                    "FrontdoorClient: Apple's sheet answered 1000 (unknown): no Apple Account is signed in on this "
                        + "device, or this build lacks the Sign in with Apple capability "
                        + "(com.apple.developer.applesignin in its entitlements).")
            }
            #endif
            guard failed.domain == ASAuthorizationError.errorDomain else { throw .authorizationFailed(code: failed.code) }
            if let failure = AuthorizationOutcome.failure(code: failed.code, appleSignIn: appleSignIn) { throw failure }
            return nil
        }
    }
}

/// The controller, for the cancellation handler, which may run on any thread: it only hands it
/// to the main actor, where the controller lives.
struct Withdraw: @unchecked Sendable {
    let controller: ASAuthorizationController
}

/// The authorization on its way from the delegate to `run`: both on the main actor, so nothing is
/// shared, which the compiler cannot see through a continuation.
struct Handed: @unchecked Sendable {
    let authorization: ASAuthorization
}

extension AuthorizationRunner: @preconcurrency ASAuthorizationControllerDelegate {
    func authorizationController(
        controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization
    ) {
        continuation?.resume(returning: Handed(authorization: authorization))
        continuation = nil
    }

    func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {
        continuation?.resume(throwing: error)
        continuation = nil
    }
}

extension AuthorizationRunner: @preconcurrency ASAuthorizationControllerPresentationContextProviding {
    func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor { anchor }
}
#endif
