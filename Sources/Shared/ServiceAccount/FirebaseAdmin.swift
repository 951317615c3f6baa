/// Identity Toolkit's Admin API, as the Firebase Admin SDKs call it (firebase-admin-node
/// `src/auth/auth-api-request.ts`, firebase-admin-go `auth/user_mgt.go`): `POST
/// {identityToolkitUrl}/v1/projects/{projectId}/accounts:delete` with `{"localId"}` and the
/// service account's access token. It deletes a relay user whatever its sign-in's age; it needs
/// `firebaseauth.users.delete` (the REST reference of `projects.accounts.delete`).
struct FirebaseAdmin {
    enum Deleted: Equatable {
        case deleted
        /// `USER_NOT_FOUND`: already gone (what the Admin SDKs map to `auth/user-not-found`).
        case alreadyGone
        case failed(String)
    }

    let firebase: Config.Firebase
    /// For the server key, which seals the cached access token.
    let config: Config
    let client: HTTPClient
    let db: Database

    /// nil without `firebase.serviceAccountFile`.
    init?(firebase: Config.Firebase, config: Config, client: HTTPClient, db: Database) {
        guard firebase.serviceAccountFile != nil else { return nil }
        self.firebase = firebase
        self.config = config
        self.client = client
        self.db = db
    }

    /// The service account's OAuth client, its key read from the file now.
    func oauth() throws(FrontdoorError) -> GoogleOAuth {
        guard let file = firebase.serviceAccountFile else { throw .internal("no firebase.serviceAccountFile") }
        return GoogleOAuth(
            tokenUrl: firebase.oauthTokenUrl, account: try ServiceAccount.load(path: file), client: client, db: db,
            serverKey: try DeletionAudit.key(config: config))
    }

    func deleteUser(localId: String, now: UnixTime) -> Deleted {
        do throws(FrontdoorError) {
            let oauth = try oauth()
            let first = try send(localId: localId, token: try oauth.accessToken(now: now))
            guard case .failed(let why) = first, why.hasPrefix("admin delete: HTTP 401") else { return first }
            // A cached token that is refused (revoked, the key rotated) is dropped; one new one is tried.
            oauth.forget()
            return try send(localId: localId, token: try oauth.accessToken(now: now))
        } catch {
            return .failed(error.detail ?? error.message)
        }
    }

    private func send(localId: String, token: String) throws(FrontdoorError) -> Deleted {
        let url = firebase.identityToolkitUrl + "/v1/projects/" + FormEncoding.escape(firebase.projectId)
            + "/accounts:delete"
        let response = try client.send(HTTPRequest(
            method: "POST", url: url,
            headers: [("Content-Type", "application/json"), ("Authorization", "Bearer " + token)],
            body: Array(JSONValue.object([("localId", .string(localId))]).serialized.utf8)))
        if response.status == 200 { return .deleted }
        let reason = FirebaseRelay.errorCode(response)
        if reason == "USER_NOT_FOUND" { return .alreadyGone }
        return .failed("admin delete: HTTP \(response.status) \(reason)")
    }
}
