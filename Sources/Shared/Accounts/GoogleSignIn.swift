/// `signin-google`: a phone's Google ID token in, a session out.
public enum GoogleSignIn {
    public static func handle(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        guard context.config.google != nil else {
            throw .internal("config: google: not configured, yet signin-google was called")
        }
        let idToken = try context.body.requiredString("idToken")
        let rawNonce = try Nonces.optionalRawNonce(context.body)
        let deviceName = try PersonText.deviceName(context.body)
        let reauth = try Reauthentication.bearer(context)
        let identity = try verifiedIdentity(idToken, rawNonce: rawNonce, context: context)
        let body = try ProviderSignIn.signIn(
            identity, db: try context.database(), config: context.config, now: context.now, deviceName: deviceName,
            language: try MailLanguage.fromBody(context.body), reauth: reauth)
        return body.response
    }

    /// The person a Google ID token vouches for, checked as a sign-in checks it (the nonce too):
    /// `signin-google`, and `account` `link` with the same code path.
    static func verifiedIdentity(
        _ idToken: String, rawNonce: String?, context: RequestContext
    ) throws(FrontdoorError) -> ProviderIdentity {
        guard let google = context.config.google else {
            throw .internal("config: google: not configured, yet a Google token was sent")
        }
        let policy = ClaimsPolicy(issuers: Config.Google.issuers, audiences: google.clientIds)
        let token = try IssuerTokens.verify(idToken, keysUrl: google.certsUrl, policy: policy, context: context)
        try checkNonce(token.claims["nonce"]?.stringValue, rawNonce: rawNonce, required: google.requireNonce)
        return ProviderIdentity(
            provider: .google, subject: token.subject, email: token.email, emailVerified: token.emailVerified,
            authoritativeForEmail: isAuthoritative(email: token.email, hostedDomain: token.claims["hd"]))
    }

    /// Rule 21: a kit gives Google the lowercase hex SHA-256 of a one-off value and sends us the
    /// value, so a token minted for another page's sign-in is refused. Without `rawNonce` the
    /// token's nonce (if any) is not ours to judge, unless the operator requires one.
    static func checkNonce(_ claim: String?, rawNonce: String?, required: Bool) throws(FrontdoorError) {
        guard let rawNonce else {
            if required { throw .invalidToken("google: google.requireNonce is set and no rawNonce was sent") }
            return
        }
        guard claim != nil else { throw .invalidToken("google: rawNonce sent but the token has no nonce claim") }
        guard Nonces.matches(claim: claim, rawNonce: rawNonce) else {
            throw .invalidToken("google: nonce is not the SHA-256 (lowercase hex) of rawNonce")
        }
    }

    /// Google's own guidance: it speaks for an address only at gmail.com or in a Workspace
    /// domain (the `hd` claim); elsewhere `email_verified` may be stale.
    static func isAuthoritative(email: String?, hostedDomain: JSONValue?) -> Bool {
        if let hd = hostedDomain?.stringValue, !hd.isEmpty { return true }
        guard let email else { return false }
        return EmailAddress.matchKey(email).hasSuffix("@gmail.com")
    }
}
