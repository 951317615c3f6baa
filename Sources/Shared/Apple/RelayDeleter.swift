/// One try at removing a relay user: with its own ID token (or a fresh one from its refresh
/// token) while its sign-in is recent, by `localId` through the Admin API past that.
public struct RelayDeleter {
    let relay: FirebaseRelay
    /// nil without a service account.
    let admin: FirebaseAdmin?
    /// The longest one outbound call may take.
    let perCallSeconds: Double

    public init(context: RequestContext, firebase: Config.Firebase, db: Database) {
        let client = context.httpClient()
        relay = FirebaseRelay(firebase: firebase, client: client)
        admin = FirebaseAdmin(firebase: firebase, config: context.config, client: client, db: db)
        perCallSeconds = context.config.http.totalTimeoutSeconds.rounded(.up)
    }

    /// Deletes with `idToken`, or with a fresh one from `refreshToken` (an expired or refused ID
    /// token is refreshed once). `rotated` hears of a new refresh token.
    func deleteByToken(
        localId: String, idToken: String?, refreshToken: String?, rotated: (String) -> Void
    ) -> RelayCleanup.Attempt {
        var token = idToken
        var refreshed = false
        while true {
            if token == nil {
                guard let refreshToken else { return .pastWindow("no refresh token to delete with") }
                do {
                    switch try relay.refresh(refreshToken: refreshToken) {
                    case .fresh(let fresh, let next):
                        if let next, next != refreshToken { rotated(next) }
                        token = fresh
                        refreshed = true
                    case .gone(let detail): return confirmGone(localId: localId, detail)
                    case .unusable(let detail): return .pastWindow(detail)
                    }
                } catch {
                    return .failed(error.detail ?? error.message)
                }
            }
            guard let current = token else { return .failed("no token") }
            switch relay.deleteUser(idToken: current) {
            case .deleted: return .gone("deleted")
            case .alreadyGone: return .gone("already gone (USER_NOT_FOUND)")
            case .pastWindow(let detail): return .pastWindow(detail)
            case .tokenRefused(let detail):
                guard !refreshed, refreshToken != nil else { return .failed(detail) }
                token = nil
            case .failed(let detail): return .failed(detail)
            }
        }
    }

    /// A refresh said the user is gone. With a service account that is checked by `localId`
    /// (`INVALID_REFRESH_TOKEN` may mean only that the token names nobody); without one it is
    /// believed.
    func confirmGone(localId: String, _ detail: String) -> RelayCleanup.Attempt {
        guard admin != nil else { return .gone(detail) }
        switch deleteByAdmin(localId: localId) {
        case .gone(let how): return .gone("\(detail); \(how)")
        case let other: return other
        }
    }

    func deleteByAdmin(localId: String) -> RelayCleanup.Attempt {
        guard let admin else { return .failed("no firebase.serviceAccountFile") }
        switch admin.deleteUser(localId: localId, now: Clock.now()) {
        case .deleted: return .gone("deleted by the Admin API")
        case .alreadyGone: return .gone("gone (Admin API: USER_NOT_FOUND)")
        case .failed(let detail): return .failed(detail)
        }
    }
}
