/// Direct mode: the fresh Apple token verified against Apple's keys, the code exchanged at Apple's
/// token endpoint with a client secret signed by the team key, the refresh token revoked.
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
                plan.token.raw, keysUrl: apple.keysUrl, policy: AppleToken.policy(bundleIds: apple.bundleIds),
                context: context)
        } catch {
            let detail = error.detail ?? error.message
            return error.code == .invalidToken ? .mismatch(detail) : .failed(detail)
        }
        guard verified.subject == plan.subject else { return .mismatch("the Apple sub is not the deleted account's") }
        guard FreshAppleAuthorization.codeMatches(plan.fresh.code, hash: verified.claims["c_hash"]?.stringValue) else {
            return .mismatch("c_hash does not match the authorization code")
        }
        // The code was issued to the app the token names; the audience check made it one of ours.
        guard let clientId = verified.claims["aud"]?.stringValue else { return .failed("aud is not one bundle id") }
        let kept = AppleRevocationStore.Kept(
            clientId: clientId, code: plan.fresh.code, until: context.now + AppleRevocationStore.codeLifetimeSeconds)
        return exchangeAndRevoke(kept)
    }

    func retry(_ due: AppleRevocationStore.Due) -> Outcome { exchangeAndRevoke(due.kept) }

    private func exchangeAndRevoke(_ kept: AppleRevocationStore.Kept) -> Outcome {
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
            guard let code = kept.code else { return .failed("nothing kept to retry with") }
            guard after.hasTime() else { return .retry("out of time before the code exchange", kept) }
            switch endpoints.exchange(code: code, clientId: clientId, secret: secret) {
            case .done(let json):
                guard let refresh = json?["refresh_token"]?.stringValue, !refresh.isEmpty else {
                    return .failed("apple token: 200 without a refresh_token")
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
        case .done: return .revoked
        case .transient(let detail): return .retry(detail, spent)
        case .refused(let detail): return .failed(detail)
        }
    }
}
