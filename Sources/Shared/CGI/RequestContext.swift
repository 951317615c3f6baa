/// What a handler works with: the request, the configuration, the time, and the store and
/// outbound client opened only when first asked for (a rejected request pays for neither).
public final class RequestContext {
    public let config: Config
    public let request: CGIRequest
    /// The request body, an object; empty when the request had no body.
    public let body: JSONValue
    public let now: UnixTime
    /// How durable the store's commits are for this endpoint (see `Database.Durability`).
    public let durability: Database.Durability
    private var openedDatabase: Database?
    private var openedSessionFile: Database?
    private var openedHTTPClient: HTTPClient?
    /// See `rateLimitSecret()`.
    var rateLimitSecretCache: [UInt8]?
    /// See `codeKey()`.
    var codeKeyCache: [UInt8]?
    private let makeHTTPClient: (Config) -> HTTPClient
    /// Work that runs after the answer is out (stdout and stderr closed); it must record its own outcome.
    public private(set) var afterwards: [() -> Void] = []

    public init(
        config: Config, request: CGIRequest, body: JSONValue, now: UnixTime,
        durability: Database.Durability = .powerCutSafe,
        makeHTTPClient: @escaping (Config) -> HTTPClient = RequestContext.curlClient
    ) {
        self.config = config
        self.request = request
        self.body = body
        self.now = now
        self.durability = durability
        self.makeHTTPClient = makeHTTPClient
    }

    public static func curlClient(_ config: Config) -> HTTPClient {
        CurlHTTPClient(
            connectTimeoutSeconds: config.http.connectTimeoutSeconds,
            totalTimeoutSeconds: config.http.totalTimeoutSeconds,
            maxResponseBytes: config.http.maxResponseBytes)
    }

    public func database() throws(FrontdoorError) -> Database {
        if let openedDatabase { return openedDatabase }
        // A request lives one process: its first read carries the schema check along.
        let db = try Database(config: config, durability: durability, checkSchemaWithFirstStatement: true)
        openedDatabase = db
        return db
    }

    /// The session check's store: SQLite's session file alone where that serves (`Database.forSessionCheck`).
    /// Only for `sessions`: everything after the answer that needs the store opens it whole.
    public func sessionCheckDatabase() throws(FrontdoorError) -> Database {
        if let openedDatabase { return openedDatabase }
        if let openedSessionFile { return openedSessionFile }
        let db = try Database.forSessionCheck(config: config, durability: durability)
        if db.isSessionFileOnly { openedSessionFile = db } else { openedDatabase = db }
        return db
    }

    /// Whether this request touched the store (so tidying it afterwards costs no extra open).
    public var usedDatabase: Bool { openedDatabase != nil }

    /// Whether this request may have committed a write to the store (see `Door.AnswerPermit`).
    public var wroteToStore: Bool { (openedDatabase?.changedRows ?? 0) > 0 || (openedSessionFile?.changedRows ?? 0) > 0 }

    public func httpClient() -> HTTPClient {
        if let openedHTTPClient { return openedHTTPClient }
        let client = makeHTTPClient(config)
        openedHTTPClient = client
        return client
    }

    public func runAfterAnswer(_ work: @escaping () -> Void) {
        afterwards.append(work)
    }
}
