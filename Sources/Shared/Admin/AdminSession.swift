/// What one `frontdoor-admin` run works with: the config (found as `frontdoor-check` finds it),
/// the time, and the store, opened only when a command needs it and never made where none is.
final class AdminSession {
    let configPath: String
    let config: Config
    let now: UnixTime
    private var context: RequestContext?

    init(configPath: String) throws {
        self.configPath = configPath
        guard Files.exists(configPath) else {
            throw AdminError(.notFound, "There is no config file at \(configPath) (--config PATH, or AUTH_CONFIG).")
        }
        do {
            config = try Config.load(environment: ["AUTH_CONFIG": configPath])
        } catch {
            throw AdminError(.failed, "The config \(configPath) is not valid (\(error)).")
        }
        now = Clock.now()
    }

    /// The context the shared code's work takes (a deletion's work after its commit): no request.
    func requestContext() throws -> RequestContext {
        if let context { return context }
        // On PostgreSQL there is no file to find: the store is reached through the box's pgbouncer.
        guard config.usesPostgres || Files.exists(config.databasePath) else {
            throw AdminError(.notFound, "There is no store at \(config.databasePath).")
        }
        let made = RequestContext(
            config: config, request: CGIRequest.withoutBody(environment: CGIEnvironment()), body: .object([]), now: now)
        context = made
        return made
    }

    func database() throws -> Database { try requestContext().database() }

    /// Every command but `restore` and `reapply-deletions` stays away from a store that a restore
    /// is putting back (it may not even be in its place).
    func refuseWhileDoorClosed() throws {
        guard let closed = Door.closedAt(config.databasePath) else { return }
        throw AdminError(
            .unavailable,
            "The door is closed since \(Clock.rfc3339(closed)): a restore is under way or was interrupted; "
                + "run frontdoor-admin restore again to finish it.")
    }
}
