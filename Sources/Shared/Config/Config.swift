#if canImport(Glibc)
import Glibc
#endif

/// Everything the binaries need, from the JSON file named by `AUTH_CONFIG`; validated when read.
public struct Config: Sendable {
    public struct Google: Sendable {
        public var clientIds: [String]
        public var certsUrl: String
        /// Cross-Account Protection (`google.risc`): nil when not configured.
        public var risc: RISC? = nil
        /// Refuse a token whose nonce cannot be checked (no `rawNonce` sent, or no `nonce` claim):
        /// for operators whose every client is a kit that sends one (rule 21).
        public var requireNonce = false
        public static let issuers = ["accounts.google.com", "https://accounts.google.com"]
    }

    /// What `frontdoor-admin risc` needs to manage the RISC stream; the receiver needs none of it.
    public struct RISC: Sendable {
        /// The service account (role `roles/riscconfigs.admin`) whose self-signed JWT the RISC API takes.
        public var serviceAccountFile: String
        public var apiUrl: String
        /// Where Google should post (`https://<host>/auth/google-risc`): `risc register`'s default
        /// and what `frontdoor-check` holds the stream to; nil: `register` needs `--url`.
        public var receiverUrl: String?
    }

    public struct Apple: Sendable {
        public enum Mode: String, Sendable { case relay, direct }
        public var bundleIds: [String]
        public var mode: Mode
        public var keysUrl: String
        public var tokenUrl: String
        public var revokeUrl: String
        public var teamId: String?
        public var keyId: String?
        public var privateKeyFile: String?
        /// Services IDs (Sign in with Apple on the web, whose script signs for the Services ID):
        /// accepted audiences beside `bundleIds`, for sign-ins, deletions' fresh tokens and
        /// notifications. The older single `servicesId` key joins this list.
        public var servicesIds: [String] = []
        /// An HTTP proxy for `keysUrl` alone (`http://host:port`), so a box without IPv4 can check
        /// Apple's notifications (a box that reaches Apple fetches directly first: `AppleKeysRoute`);
        /// TLS still runs end to end with Apple through its tunnel.
        public var keysProxy: String? = nil

        /// Whom an Apple token may be addressed to: the apps, and the web's Services IDs.
        public var audiences: [String] { bundleIds + servicesIds.filter { !bundleIds.contains($0) } }
        /// Whom a notification may be addressed to: the same.
        public var notificationAudiences: [String] { audiences }
    }

    public struct Firebase: Sendable {
        public var projectId: String
        public var apiKey: String
        public var identityToolkitUrl: String
        public var securetokenUrl: String
        public var certsUrl: String
        /// A service account's JSON key (`firebase.serviceAccountFile`), for deleting relay users
        /// past the recent-sign-in window by `localId`; nil: such users wait for the operator.
        public var serviceAccountFile: String?
        /// Where the service account's signed assertion is exchanged for an access token.
        public var oauthTokenUrl: String = "https://oauth2.googleapis.com/token"
    }

    public struct Mail: Sendable {
        public var smtpUrl: String
        public var from: String
        public var username: String?
        public var password: String?
        /// The bound on one whole SMTP conversation, connecting included.
        public var timeoutSeconds: Double
        /// How long a reset waits after its answer before mailing (uniform between half and one and
        /// a half of it), for known and unknown addresses alike. 0: no wait (tests).
        public var resetDelaySeconds: Double = 2
        /// The web kit's page as a mail links to it (`mail.pageUrl`): a notice's "This wasn't me"
        /// link is this with `#not-me=` and its token. nil: `passkeys.siteUrl`'s `/auth/kit/`,
        /// or, without passkeys, notices go without the link (`frontdoor-check` says so).
        public var pageUrl: String? = nil
        /// How long a notice's "This wasn't me" link works (rule 18's "the notice's life").
        public var noticeLinkSeconds: Int64 = 14 * 86_400
    }

    /// Argon2id's cost for new password hashes; a stored hash made at another cost is redone at
    /// the next successful login. The floor is OWASP's minimum (19 MiB, 2 passes, 1 lane).
    public struct PasswordCost: Sendable, Equatable {
        public var memoryKiB: Int64
        public var iterations: Int64
        public static let minimum = PasswordCost(memoryKiB: 19 * 1024, iterations: 2)
    }

    /// The limits that keep guessing and mail slow; every window is fixed (it starts at a multiple
    /// of its length). "Client" is the remote address nginx passes (`REMOTE_ADDR`).
    public struct Limits: Sendable {
        public var loginWindowSeconds: Int64 = 900
        /// Failed logins (and password proofs) per email address, whether or not an account has it.
        public var loginFailuresPerEmail: Int64 = 10
        public var loginFailuresPerClient: Int64 = 50
        public var registrationsPerClientPerHour: Int64 = 20
        /// Registrations per IPv6 /48 (`ClientAddress.networkKey`): one site's 65,536 /64s together.
        public var registrationsPerNetworkPerHour: Int64 = 100
        /// Codes mailed to one address: at most one per interval and so many per hour.
        public var mailIntervalSeconds: Int64 = 60
        public var mailPerEmailPerHour: Int64 = 5
        /// Codes mailed by this server for tickets (joins, own-email verification).
        public var mailPerHour: Int64 = 200
        /// Reset mails by this server (counted for unknown addresses too): apart from `mailPerHour`,
        /// so anonymous resets never starve people holding a ticket.
        public var resetMailPerHour: Int64 = 100
        public var resetRequestsPerClientPerHour: Int64 = 20
        public var resetRequestsPerNetworkPerHour: Int64 = 100
        /// Wrong codes per address in a day, across all its tickets.
        public var codeFailuresPerEmailPerDay: Int64 = 20
        /// Apple sign-ins per client that failed after the checks made on the box (a nonce row
        /// and a Firebase call each).
        public var appleFailuresPerClientPerHour: Int64 = 30
        /// Passkey ceremonies begun (`signin-passkey` begin and `passkey` register_begin together)
        /// per client and per IPv6 /48: each is a stored row for its 5 minutes.
        public var passkeyBeginsPerClientPerHour: Int64 = 60
        public var passkeyBeginsPerNetworkPerHour: Int64 = 300
        /// `register_begin`s per account, from any of its sessions.
        public var passkeyRegistrationsPerAccountPerHour: Int64 = 20
    }

    /// `delete-account`: where the audit hash's key lives and how long revoking Apple may take.
    public struct Deletion: Sendable {
        /// The HMAC key for the audit record's account hash; nil: `audit-key` beside the database,
        /// made once (mode 0600) by the first deletion.
        public var auditKeyFile: String?
        /// The time after the answer that revoking may use, capped by `processLifetimeSeconds`.
        public var revocationBudgetSeconds: Int64
        /// The deletion ledger (rule 13); nil: `deletions.ledger` beside the database.
        public var ledgerFile: String? = nil
    }

    public struct HTTP: Sendable {
        public var connectTimeoutSeconds: Double
        public var totalTimeoutSeconds: Double
        public var maxResponseBytes: Int
    }

    public struct KeyCache: Sendable {
        /// How long cached keys keep serving after their expiry while the issuer cannot be reached.
        public var graceSeconds: Int64
        /// The least time between two fetches caused by an unknown `kid`.
        public var refetchIntervalSeconds: Int64
        /// The lifetime of keys whose response has no usable `Cache-Control: max-age`.
        public var defaultMaxAgeSeconds: Int64
    }

    /// The SQLite file (`databasePath`). With `postgresUrl` no file holds the store, and this is
    /// the stem of the box's own files (the events hint): `frontdoor-box` beside
    /// `deletion.ledgerFile`.
    public var databasePath: String
    /// `postgresUrl`, the PostgreSQL store (through the box's pgbouncer); nil: the SQLite file
    /// `databasePath`. Behind a reference: every copy of a `Config` then costs one retain, where
    /// an optional struct's copy needs its type's metadata made at run time (about 20 K
    /// instructions a process, measured on the session check).
    public var postgresStore: PostgresStore? = nil
    public var postgresUrl: PostgresURL? { postgresStore?.url }
    /// True with `postgresUrl`.
    public var usesPostgres: Bool { postgresStore != nil }

    public final class PostgresStore: Sendable {
        public let url: PostgresURL
        public init(url: PostgresURL) { self.url = url }
    }
    /// A development config may use loopback URLs; `frontdoor-check` flags them anywhere else.
    public var development: Bool
    /// A session's idle lifetime: each renewal moves its expiry this far past the check (rule 11).
    public var sessionLifetimeSeconds: Int64
    /// `sessions.renewAfterSeconds` and `sessions.maxLifetimeSeconds`, with the idle lifetime.
    public var sessions: SessionPolicy
    public var ticketLifetimeSeconds: Int64
    /// The hard ceiling on a process's life, work after the answer included (rule 9).
    public var processLifetimeSeconds: Int64
    public var http: HTTP
    public var keyCache: KeyCache
    public var google: Google?
    public var apple: Apple?
    public var firebase: Firebase?
    public var mail: Mail?
    public var passwordCost: PasswordCost
    /// What a password being set must pass (`passwords`).
    public var passwords = Passwords()
    public var limits: Limits
    public var deletion = Deletion(auditKeyFile: nil, revocationBudgetSeconds: 20)
    /// The app's receiver of account events; nil: no events are written.
    public var events: EventReceiver?
    /// The RP ID and the apps whose passkeys are accepted; nil: no passkeys.
    public var passkeys: Passkeys?
    /// The `kit` section as written (see `kit` for what the page gets); nil: not given.
    public var kitSection: Kit?
    /// The files secrets were read from (`firebase.apiKeyFile`, …), by key.
    public var secretFiles: [(key: String, path: String)] = []

    /// How much of the file a program reads.
    public enum Scope: Sendable {
        /// Every section, validated (`frontdoor-check`, `frontdoor-admin`).
        case everything
        /// What a request's program reads: every section but `kit`, which only `frontdoor-check`
        /// reads, to write the page's files (`--print-kit-files`); a request skims it as the
        /// check skims the providers. It cost a sign-in 0.25 M instructions of its 2.85 M.
        case request
        /// What the session check uses: the top-level settings, `sessions` and `events` (a check
        /// carries events that are due, as every request does). The other sections are only
        /// named, not read: the check calls no provider and sends no mail, so none of their
        /// secrets is read into the process, and a broken provider section does not shut the
        /// app's door (the sign-ins and `frontdoor-check` still refuse it).
        case sessionCheck
    }

    /// Reads and validates the file named by `AUTH_CONFIG`.
    public static func load(environment: CGIEnvironment, scope: Scope = .everything) throws(ConfigError) -> Config {
        guard let path = environment.configPath, !path.isEmpty else {
            throw ConfigError(key: "AUTH_CONFIG", reason: "the environment variable naming the config file is not set")
        }
        guard let bytes = FileIO.readFile(path, limit: 256 * 1024) else {
            throw ConfigError(key: "AUTH_CONFIG", reason: "the config file cannot be read (errno \(errno))")
        }
        return try parse(bytes, scope: scope)
    }

    /// Every outbound URL with the key that names it, for the self-check.
    public var outboundURLs: [(key: String, url: String)] {
        var urls: [(String, String)] = []
        if let google { urls.append(("google.certsUrl", google.certsUrl)) }
        if let risc = google?.risc { urls.append(("google.risc.apiUrl", risc.apiUrl)) }
        if let apple, apple.mode == .direct {
            urls += [("apple.keysUrl", apple.keysUrl), ("apple.tokenUrl", apple.tokenUrl), ("apple.revokeUrl", apple.revokeUrl)]
        }
        // Relay mode fetches Apple's keys for the notifications (directly, or through the proxy).
        if let apple, apple.mode == .relay { urls.append(("apple.keysUrl", apple.keysUrl)) }
        if let firebase {
            urls += [
                ("firebase.identityToolkitUrl", firebase.identityToolkitUrl),
                ("firebase.securetokenUrl", firebase.securetokenUrl), ("firebase.certsUrl", firebase.certsUrl),
            ]
            if firebase.serviceAccountFile != nil { urls.append(("firebase.oauthTokenUrl", firebase.oauthTokenUrl)) }
        }
        if let mail { urls.append(("mail.smtpUrl", mail.smtpUrl)) }
        if let events { urls.append(("events.url", events.url)) }
        if let passkeys { urls.append(("passkeys.siteUrl", passkeys.siteUrl)) }
        if let range = passwords.rangeUrl { urls.append(("passwords.rangeUrl", range)) }
        return urls
    }

    /// The sections `Scope.sessionCheck` leaves unread.
    static let sectionsBeyondTheCheck = [
        "http", "keyCache", "google", "apple", "firebase", "mail", "password", "passwords", "limits", "deletion", "passkeys",
        "kit",
    ]

    /// The sections `Scope.sessionCheck` does not even build: its JSON parse only checks their
    /// syntax (`JSONParser.parse(_:skimming:)`). All those it leaves unread but `deletion`, whose
    /// `ledgerFile` a PostgreSQL box's files stand beside.
    static let sectionsSkimmedByTheCheck = sectionsBeyondTheCheck.filter { $0 != "deletion" }

    public static func parse(_ bytes: [UInt8], scope: Scope = .everything) throws(ConfigError) -> Config {
        let json: JSONValue
        do {
            let skimmed: [String] = switch scope {
            case .everything: []
            case .request: ["kit"]
            case .sessionCheck: sectionsSkimmedByTheCheck
            }
            json = try JSONParser.parse(bytes, skimming: skimmed)
        } catch {
            throw ConfigError(key: "(file)", reason: "is not valid JSON (\(error))")
        }
        var top = try ConfigReader(json, path: "")
        let store = try storeKeys(&top, json: json)
        var config = Config(
            databasePath: store.databasePath,
            development: try top.bool("development", default: false),
            sessionLifetimeSeconds: try top.int("sessionLifetimeSeconds", default: 30 * 86_400, range: 1...(400 * 86_400)),
            sessions: SessionPolicy(lifetimeSeconds: 0, renewAfterSeconds: 0, maxLifetimeSeconds: nil),
            ticketLifetimeSeconds: try top.int("ticketLifetimeSeconds", default: 15 * 60, range: 60...86_400),
            processLifetimeSeconds: try top.int("processLifetimeSeconds", default: 30, range: 5...600),
            http: HTTP(connectTimeoutSeconds: 3, totalTimeoutSeconds: 5, maxResponseBytes: 1 << 20),
            keyCache: KeyCache(graceSeconds: 6 * 3600, refetchIntervalSeconds: 60, defaultMaxAgeSeconds: 3600),
            passwordCost: .minimum,
            limits: Limits()
        )
        config.sessions = try sessionPolicy(&top, lifetime: config.sessionLifetimeSeconds)
        switch scope {
        case .everything: try readServices(&top, into: &config, kit: true)
        case .request:
            try readServices(&top, into: &config, kit: false)
            top.skip("kit")
        case .sessionCheck: for name in sectionsBeyondTheCheck { top.skip(name) }
        }
        if var r = try top.section("events") {
            let events = try EventReceiver.read(&r, processLifetimeSeconds: config.processLifetimeSeconds)
            config.events = events
            config.secretFiles.append((r.key("secretFile"), events.secretFile))
        }
        try top.rejectUnknown()
        config.postgresStore = store.postgres
        if store.postgres != nil, scope != .sessionCheck, config.deletion.auditKeyFile == nil {
            // The server key made beside a SQLite file would be a different one on every box:
            // rate limits, sealed rows and audit hashes must agree across them.
            throw ConfigError(key: "deletion.auditKeyFile", reason: "is required with postgresUrl (the same file on every box)")
        }
        return config
    }

    /// The box's own files with `postgresUrl`: beside the deletion ledger (see `databasePath`).
    public static let boxFilesStem = "frontdoor-box"

    /// `databasePath` xor `postgresUrl`. With `postgresUrl`, `deletion.ledgerFile` is required
    /// (one file per box), and read here whatever the scope, since the box's files sit beside it.
    private static func storeKeys(_ top: inout ConfigReader, json: JSONValue) throws(ConfigError)
        -> (databasePath: String, postgres: PostgresStore?)
    {
        let path = try top.string("databasePath")
        let urlText = try top.string("postgresUrl")
        switch (path, urlText) {
        case (let path?, nil):
            return (path, nil)
        case (nil, let text?):
            let url = try PostgresURL.parse(text)
            guard let ledger = json["deletion"]?["ledgerFile"]?.stringValue, ledger.hasPrefix("/") else {
                throw ConfigError(
                    key: "deletion.ledgerFile", reason: "is required with postgresUrl: an absolute path, one file per box")
            }
            return (Files.directory(of: ledger) + "/" + boxFilesStem, PostgresStore(url: url))
        case (.some, .some):
            throw ConfigError(key: "postgresUrl", reason: "give either databasePath or postgresUrl, not both")
        case (nil, nil):
            throw ConfigError(key: "databasePath", reason: "is required (or postgresUrl)")
        }
    }

    /// Every section but `sessions` and `events`: the providers, mail, limits and the rest.
    private static func readServices(_ top: inout ConfigReader, into config: inout Config, kit: Bool) throws(ConfigError) {
        if var r = try top.section("http") {
            config.http.connectTimeoutSeconds = try r.seconds("connectTimeoutSeconds", default: 3, range: 0.1...60)
            config.http.totalTimeoutSeconds = try r.seconds("totalTimeoutSeconds", default: 5, range: 0.1...120)
            config.http.maxResponseBytes = Int(try r.int("maxResponseBytes", default: 1 << 20, range: 1024...(16 << 20)))
            try r.rejectUnknown()
        }
        if var r = try top.section("keyCache") {
            config.keyCache.graceSeconds = try r.int("graceSeconds", default: 6 * 3600, range: 0...(7 * 86_400))
            config.keyCache.refetchIntervalSeconds = try r.int("refetchIntervalSeconds", default: 60, range: 1...86_400)
            config.keyCache.defaultMaxAgeSeconds = try r.int("defaultMaxAgeSeconds", default: 3600, range: 60...86_400)
            try r.rejectUnknown()
        }
        if config.http.totalTimeoutSeconds + 5 > Double(config.processLifetimeSeconds) {
            throw ConfigError(key: "processLifetimeSeconds", reason: "must exceed http.totalTimeoutSeconds by at least 5")
        }
        if var r = try top.section("google") {
            config.google = Google(
                clientIds: try r.stringList("clientIds"),
                certsUrl: try r.url("certsUrl", default: "https://www.googleapis.com/oauth2/v3/certs")
            )
            config.google?.requireNonce = try r.bool("requireNonce", default: false)
            if var risc = try r.section("risc") {
                let file = try risc.requiredString("serviceAccountFile")
                config.google?.risc = RISC(
                    serviceAccountFile: file, apiUrl: try risc.url("apiUrl", default: "https://risc.googleapis.com"),
                    receiverUrl: risc.has("receiverUrl") ? try risc.url("receiverUrl") : nil)
                config.secretFiles.append((risc.key("serviceAccountFile"), file))
                try risc.rejectUnknown()
            }
            try r.rejectUnknown()
        }
        if var r = try top.section("apple") {
            let modeText = try r.string("mode") ?? "relay"
            guard let mode = Apple.Mode(rawValue: modeText) else {
                throw ConfigError(key: r.key("mode"), reason: "must be \"relay\" or \"direct\"")
            }
            config.apple = Apple(
                bundleIds: try r.stringList("bundleIds"),
                mode: mode,
                keysUrl: try r.url("keysUrl", default: "https://appleid.apple.com/auth/keys"),
                tokenUrl: try r.url("tokenUrl", default: "https://appleid.apple.com/auth/token"),
                revokeUrl: try r.url("revokeUrl", default: "https://appleid.apple.com/auth/revoke"),
                teamId: try r.string("teamId"),
                keyId: try r.string("keyId"),
                privateKeyFile: try r.string("privateKeyFile")
            )
            if let file = config.apple?.privateKeyFile { config.secretFiles.append((r.key("privateKeyFile"), file)) }
            var servicesIds = r.has("servicesIds") ? try r.optionalStringList("servicesIds") : []
            if let single = try r.string("servicesId"), !servicesIds.contains(single) { servicesIds.append(single) }
            config.apple?.servicesIds = servicesIds
            if let proxy = try r.string("keysProxy") {
                guard OutboundURL.isProxy(proxy) else {
                    throw ConfigError(key: r.key("keysProxy"), reason: "must be http://host:port (an HTTP proxy that tunnels to Apple)")
                }
                config.apple?.keysProxy = proxy
            }
            try r.rejectUnknown()
        }
        if var r = try top.section("firebase") {
            let projectId = try r.requiredString("projectId")
            guard let apiKey = try r.secret("apiKey", files: &config.secretFiles) else { throw ConfigError(key: r.key("apiKey"), reason: "is required (or apiKeyFile)") }
            config.firebase = Firebase(
                projectId: projectId,
                apiKey: apiKey,
                identityToolkitUrl: try r.url("identityToolkitUrl", default: "https://identitytoolkit.googleapis.com"),
                securetokenUrl: try r.url("securetokenUrl", default: "https://securetoken.googleapis.com"),
                certsUrl: try r.url(
                    "certsUrl",
                    default: "https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com")
            )
            config.firebase?.serviceAccountFile = try r.string("serviceAccountFile")
            if let file = config.firebase?.serviceAccountFile {
                config.secretFiles.append((r.key("serviceAccountFile"), file))
            }
            config.firebase?.oauthTokenUrl = try r.url("oauthTokenUrl", default: "https://oauth2.googleapis.com/token")
            try r.rejectUnknown()
        }
        if var r = try top.section("mail") {
            let smtpUrl = try r.requiredString("smtpUrl")
            guard OutboundURL.classify(smtpUrl) != nil, smtpUrl.hasPrefix("smtp") else {
                throw ConfigError(key: r.key("smtpUrl"), reason: "must be smtps://, smtp:// with STARTTLS, or smtp:// to a loopback address")
            }
            let from = try r.requiredString("from")
            guard from.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F && $0 != "<" && $0 != ">" }),
                  from.contains("@")
            else { throw ConfigError(key: r.key("from"), reason: "must be a plain address (no spaces, no <>)") }
            config.mail = Mail(
                smtpUrl: smtpUrl, from: from, username: try r.string("username"),
                password: try r.secret("password", files: &config.secretFiles),
                timeoutSeconds: try r.seconds("timeoutSeconds", default: 10, range: 1...60))
            config.mail?.resetDelaySeconds = try r.seconds("resetDelaySeconds", default: 2, range: 0...10)
            if r.has("pageUrl") { config.mail?.pageUrl = try Mail.pageURL(&r) }
            config.mail?.noticeLinkSeconds = try r.int("noticeLinkSeconds", default: 14 * 86_400, range: 3600...(90 * 86_400))
            try r.rejectUnknown()
            if let mail = config.mail, mail.timeoutSeconds + 1.5 * mail.resetDelaySeconds + 5 > Double(config.processLifetimeSeconds) {
                throw ConfigError(
                    key: "processLifetimeSeconds",
                    reason: "must exceed mail.timeoutSeconds plus 1.5 times mail.resetDelaySeconds by at least 5")
            }
        }
        if var r = try top.section("password") {
            let floor = PasswordCost.minimum
            config.passwordCost = PasswordCost(
                memoryKiB: try r.int("memoryKiB", default: floor.memoryKiB, range: floor.memoryKiB...(4 << 20)),
                iterations: try r.int("iterations", default: floor.iterations, range: floor.iterations...16))
            try r.rejectUnknown()
        }
        if var r = try top.section("passwords") {
            config.passwords = try Passwords.read(&r, processLifetimeSeconds: config.processLifetimeSeconds)
        }
        if var r = try top.section("limits") {
            var l = Limits()
            l.loginWindowSeconds = try r.int("loginWindowSeconds", default: l.loginWindowSeconds, range: 60...86_400)
            l.loginFailuresPerEmail = try r.int("loginFailuresPerEmail", default: l.loginFailuresPerEmail, range: 1...1000)
            l.loginFailuresPerClient = try r.int(
                "loginFailuresPerClient", default: l.loginFailuresPerClient, range: 1...100_000)
            l.registrationsPerClientPerHour = try r.int(
                "registrationsPerClientPerHour", default: l.registrationsPerClientPerHour, range: 1...100_000)
            l.registrationsPerNetworkPerHour = try r.int(
                "registrationsPerNetworkPerHour", default: l.registrationsPerNetworkPerHour, range: 1...1_000_000)
            l.mailIntervalSeconds = try r.int("mailIntervalSeconds", default: l.mailIntervalSeconds, range: 1...3600)
            l.mailPerEmailPerHour = try r.int("mailPerEmailPerHour", default: l.mailPerEmailPerHour, range: 1...100)
            l.mailPerHour = try r.int("mailPerHour", default: l.mailPerHour, range: 1...1_000_000)
            l.resetMailPerHour = try r.int("resetMailPerHour", default: l.resetMailPerHour, range: 1...1_000_000)
            l.resetRequestsPerClientPerHour = try r.int(
                "resetRequestsPerClientPerHour", default: l.resetRequestsPerClientPerHour, range: 1...100_000)
            l.resetRequestsPerNetworkPerHour = try r.int(
                "resetRequestsPerNetworkPerHour", default: l.resetRequestsPerNetworkPerHour, range: 1...1_000_000)
            l.codeFailuresPerEmailPerDay = try r.int(
                "codeFailuresPerEmailPerDay", default: l.codeFailuresPerEmailPerDay, range: 5...10_000)
            l.appleFailuresPerClientPerHour = try r.int(
                "appleFailuresPerClientPerHour", default: l.appleFailuresPerClientPerHour, range: 1...100_000)
            l.passkeyBeginsPerClientPerHour = try r.int(
                "passkeyBeginsPerClientPerHour", default: l.passkeyBeginsPerClientPerHour, range: 1...100_000)
            l.passkeyBeginsPerNetworkPerHour = try r.int(
                "passkeyBeginsPerNetworkPerHour", default: l.passkeyBeginsPerNetworkPerHour, range: 1...1_000_000)
            l.passkeyRegistrationsPerAccountPerHour = try r.int(
                "passkeyRegistrationsPerAccountPerHour", default: l.passkeyRegistrationsPerAccountPerHour,
                range: 1...10_000)
            config.limits = l
            try r.rejectUnknown()
        }
        if var r = try top.section("deletion") {
            config.deletion.auditKeyFile = try r.string("auditKeyFile")
            if let file = config.deletion.auditKeyFile { config.secretFiles.append((r.key("auditKeyFile"), file)) }
            config.deletion.revocationBudgetSeconds = try r.int("revocationBudgetSeconds", default: 20, range: 1...600)
            config.deletion.ledgerFile = try r.string("ledgerFile")
            try r.rejectUnknown()
        }
        if var r = try top.section("passkeys") {
            config.passkeys = try Passkeys.read(&r)
        }
        if kit, var r = try top.section("kit") {
            config.kitSection = try Kit.read(&r, google: config.google, apple: config.apple)
        }
        if config.apple != nil, config.apple?.mode == .relay, config.firebase == nil {
            throw ConfigError(key: "firebase", reason: "is required when apple.mode is \"relay\"")
        }
    }

    /// `sessions`: a renewal interval that could never come before the expiry would make sliding
    /// silently impossible, so it is refused; its default is a day, or half a shorter lifetime.
    static func sessionPolicy(_ top: inout ConfigReader, lifetime: Int64) throws(ConfigError) -> SessionPolicy {
        let fallback = min(86_400, lifetime / 2)
        var policy = SessionPolicy(lifetimeSeconds: lifetime, renewAfterSeconds: fallback, maxLifetimeSeconds: nil)
        guard var r = try top.section("sessions") else { return policy }
        policy.renewAfterSeconds = try r.int("renewAfterSeconds", default: fallback, range: 0...(400 * 86_400))
        if r.has("maxLifetimeSeconds") {
            policy.maxLifetimeSeconds = try r.int("maxLifetimeSeconds", default: 0, range: 1...(10 * 366 * 86_400))
        }
        policy.recentSignInSeconds = try r.int("recentSignInSeconds", default: 600, range: 1...(400 * 86_400))
        try r.rejectUnknown()
        guard policy.renewAfterSeconds < lifetime else {
            throw ConfigError(key: r.key("renewAfterSeconds"), reason: "must be less than sessionLifetimeSeconds (\(lifetime))")
        }
        return policy
    }
}
