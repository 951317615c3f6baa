/// Direct mode: the fresh Apple token verified against Apple's keys, the code exchanged at Apple's
/// token endpoint with a client secret signed by the team key, and the refresh token revoked only
/// when the ID token that endpoint returns for the code names the deleted account's Apple `sub`.
/// That binds the code to the account whatever the fresh token's `c_hash` says; whether `c_hash`
/// matched is recorded beside the outcome, which is how the belief about it gets tested.
struct DirectRevocation {
    typealias Outcome = AppleRevocation.Outcome
    let after: AppleRevocation.AfterAnswer
    let apple: Config.Apple
    var context: RequestContext { after.context }

    func revoke(_ plan: AppleRevocation.Plan) -> Outcome {
        // Apple's keys maybe, the exchange, the revoke.
        guard after.hasTime(calls: 3) else { return .failed("no time left to revoke") }
        let verified: VerifiedToken
        do {
            verified = try IssuerTokens.verify(
                plan.token.raw, keysUrl: apple.keysUrl, policy: AppleToken.policy(audiences: apple.audiences),
                context: context)
        } catch {
            let detail = error.detail ?? error.message
            return error.code == .invalidToken ? .mismatch(detail) : .failed(detail)
        }
        guard verified.subject == plan.subject else { return .mismatch("the Apple sub is not the deleted account's") }
        let codeHash = FreshAppleAuthorization.codeHashMismatch(plan.fresh.code, hash: verified.claims["c_hash"]?.stringValue)
            ?? "c_hash matched the code"
        // The code was issued to the app the token names; the audience check made it one of ours.
        guard let clientId = verified.claims["aud"]?.stringValue else { return .failed("aud is not one bundle id") }
        let subjectHash: [UInt8]
        do {
            subjectHash = try AppleRevocationStore.subjectHash(plan.subject, config: context.config)
        } catch {
            return .failed(error.detail ?? error.message)
        }
        let kept = AppleRevocationStore.Kept(
            clientId: clientId, code: plan.fresh.code, subjectHash: subjectHash,
            until: context.now + AppleRevocationStore.codeLifetimeSeconds)
        return exchangeAndRevoke(kept, codeHash: codeHash)
    }

    func retry(_ due: AppleRevocationStore.Due) -> Outcome { exchangeAndRevoke(due.kept, codeHash: nil) }

    private func exchangeAndRevoke(_ kept: AppleRevocationStore.Kept, codeHash: String?) -> Outcome {
        guard let clientId = kept.clientId else { return .failed("nothing kept to retry with") }
        let secret: String
        do {
            secret = try AppleClientSecret.make(apple: apple, clientId: clientId, now: Clock.now())
        } catch {
            return .failed(error.detail ?? error.message)
        }
        let endpoints = AppleAuthEndpoints(apple: apple, client: context.httpClient())
        var spent = kept
        if kept.refreshToken == nil {
            guard let code = kept.code, let subjectHash = kept.subjectHash else {
                return .failed("nothing kept to retry with")
            }
            guard after.hasTime(calls: 2) else { return .retry("out of time before the code exchange", kept) }
            switch endpoints.exchange(code: code, clientId: clientId, secret: secret) {
            case .done(let json):
                guard let refresh = json?["refresh_token"]?.stringValue, !refresh.isEmpty else {
                    return .failed("apple token: 200 without a refresh_token")
                }
                if let wrong = codeOwnerMismatch(json, clientId: clientId, subjectHash: subjectHash) {
                    // Another Apple account's code: its tokens are not ours to revoke.
                    return .mismatch(wrong + (codeHash.map { "; \($0)" } ?? ""))
                }
                // The code is spent: from here a retry needs the refresh token instead.
                spent = AppleRevocationStore.Kept(
                    clientId: clientId, refreshToken: refresh,
                    until: Clock.now() + AppleRevocationStore.refreshRetrySeconds)
            case .transient(let detail): return .retry(detail, kept)
            case .refused(let detail): return .failed(detail)
            }
        }
        guard let refresh = spent.refreshToken else { return .failed("no refresh token") }
        guard after.hasTime() else { return .retry("out of time before the revoke", spent) }
        switch endpoints.revoke(refreshToken: refresh, clientId: clientId, secret: secret) {
        case .done: return .revoked(codeHash)
        case .transient(let detail): return .retry(detail, spent)
        case .refused(let detail): return .failed(detail)
        }
    }

    /// nil when the ID token Apple's token endpoint returned with the code is Apple's, for this
    /// app, and names the deleted account's `sub`; otherwise why not.
    private func codeOwnerMismatch(_ json: JSONValue?, clientId: String, subjectHash: [UInt8]) -> String? {
        guard let idToken = json?["id_token"]?.stringValue else { return "apple token: 200 without an id_token" }
        let verified: VerifiedToken
        do {
            verified = try IssuerTokens.verify(
                idToken, keysUrl: apple.keysUrl, policy: AppleToken.policy(audiences: [clientId]), context: context)
        } catch {
            return "apple token's id_token: \(error.detail ?? error.message)"
        }
        let hash = try? AppleRevocationStore.subjectHash(verified.subject, config: context.config)
        return hash == subjectHash ? nil : "the code belongs to another Apple account (token endpoint sub)"
    }
}
