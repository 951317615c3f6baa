/// Identity Toolkit's Admin API, as the Firebase Admin SDKs call it (firebase-admin-node
/// `src/auth/auth-api-request.ts`, firebase-admin-go `auth/user_mgt.go`): `POST
/// {identityToolkitUrl}/v1/projects/{projectId}/accounts:delete` with `{"localId"}` and the
/// service account's access token. It deletes a relay user whatever its sign-in's age; it needs
/// `firebaseauth.users.delete` (the REST reference of `projects.accounts.delete`). `frontdoor-check
/// --forget-relay-users` looks users up the same way (`accounts:lookup`, `firebaseauth.users.get`).
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
            let response = try call("accounts:delete", .object([("localId", .string(localId))]), now: now)
            if response.status == 200 { return .deleted }
            let reason = FirebaseRelay.errorCode(response)
            if reason == "USER_NOT_FOUND" { return .alreadyGone }
            return .failed("admin delete: HTTP \(response.status) \(reason)")
        } catch {
            return .failed(error.detail ?? error.message)
        }
    }

    enum Found: Equatable {
        case exists
        case gone
        case failed(String)
    }

    /// Whether Firebase still has the user: `accounts:lookup` by `localId`, as the Admin SDKs'
    /// `getUser(uid)` asks (firebase-admin-node `getAccountInfoByUid`: `{"localId": [uid]}`). An
    /// unknown uid is a 200 without `users`, which the SDKs turn into `auth/user-not-found`
    /// (Google's Auth emulator, firebase-tools `src/emulator/auth/operations.ts` `lookup`, leaves
    /// `users` out for them, citing firebase-admin-node#1078).
    func lookupUser(localId: String, now: UnixTime) -> Found {
        do throws(FrontdoorError) {
            let response = try call("accounts:lookup", .object([("localId", .array([.string(localId)]))]), now: now)
            guard response.status == 200 else {
                return .failed("admin lookup: HTTP \(response.status) \(FirebaseRelay.errorCode(response))")
            }
            guard let json = try? JSONParser.parse(response.body), json.objectValue != nil else {
                return .failed("admin lookup: 200 that is not a JSON object")
            }
            let users = json["users"]?.arrayValue ?? []
            return users.contains { $0["localId"]?.stringValue == localId } ? .exists : .gone
        } catch {
            return .failed(error.detail ?? error.message)
        }
    }

    /// POSTs `body` to `{identityToolkitUrl}/v1/projects/{projectId}/<operation>` with the service
    /// account's access token. A cached token that is refused (revoked, the key rotated) is
    /// dropped and one new one tried.
    private func call(_ operation: String, _ body: JSONValue, now: UnixTime) throws(FrontdoorError) -> HTTPResponse {
        let oauth = try oauth()
        let url = firebase.identityToolkitUrl + "/v1/projects/" + FormEncoding.escape(firebase.projectId) + "/"
            + operation
        func send(_ token: String) throws(FrontdoorError) -> HTTPResponse {
            try client.send(HTTPRequest(
                method: "POST", url: url,
                headers: [("Content-Type", "application/json"), ("Authorization", "Bearer " + token)],
                body: Array(body.serialized.utf8)))
        }
        let first = try send(try oauth.accessToken(now: now))
        guard first.status == 401 else { return first }
        oauth.forget()
        return try send(try oauth.accessToken(now: now))
    }
}
