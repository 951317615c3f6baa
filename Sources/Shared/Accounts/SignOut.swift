/// `sign-out`: ends the session it is called with.
public enum SignOut {
    public static func handle(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        try Sessions.end(in: try context.database(), token: context.request.bearerToken, now: context.now)
        return CGIResponse(status: 200, body: .object([("signedOut", .bool(true))]))
    }
}
