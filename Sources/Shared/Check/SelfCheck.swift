import CSystem
#if canImport(Glibc)
import Glibc
#endif

/// `frontdoor-check`: what an operator needs to know before the first person signs in. One line
/// per finding, ✓ or ✗ with the reason and, where the seed learnt something the hard way, advice.
public struct SelfCheck {
    public struct Finding: Sendable {
        public let ok: Bool
        public let text: String
        public var line: String { (ok ? "✓ " : "✗ ") + text }
    }

    /// How many ids a finding names (relay uids, account ids); the rest are counted.
    static let idsShown = 10

    /// The ids a finding names, with "…" when there were more than it shows.
    static func listed(_ shown: [String], of count: Int) -> String {
        shown.joined(separator: ", ") + (count > shown.count ? ", …" : "")
    }

    let configPath: String
    let resolver: NameResolver
    let routes: Routes
    let timeoutSeconds: Double
    /// Where nginx's configuration is (`--nginx`): checked when frontdoor-protect.conf is installed.
    let nginxDirectory: String
    private(set) var findings: [Finding] = []

    public init(
        configPath: String, resolver: NameResolver, routes: Routes, timeoutSeconds: Double = 5,
        nginxDirectory: String = "/etc/nginx"
    ) {
        self.configPath = configPath
        self.resolver = resolver
        self.routes = routes
        self.timeoutSeconds = timeoutSeconds
        self.nginxDirectory = nginxDirectory
    }

    /// Runs every check; `emit` sees each finding as it is made (slow network checks show progress).
    public mutating func run(emit: (Finding) -> Void = { _ in }) -> [Finding] {
        func note(_ ok: Bool, _ text: String) {
            let finding = Finding(ok: ok, text: text)
            findings.append(finding)
            emit(finding)
        }
        // First, as it needs no config: what the store's safety rests on.
        let sqlite = SQLiteLibrary.finding
        note(sqlite.ok, sqlite.text)
        let config: Config
        do {
            config = try Config.load(environment: ["AUTH_CONFIG": configPath])
            note(true, "config \(configPath): valid (\(Self.summary(config)))")
        } catch {
            note(false, "config \(configPath): \(error)")
            return findings
        }
        for (key, url) in config.outboundURLs + config.kitURLs
        where OutboundURL.classify(url) == .loopback && !config.development {
            note(false, "config: \(key) is a loopback address, a development setting in a production config")
        }
        checkFile(configPath, what: "config file", note: note)
        for (key, path) in config.secretFiles { checkFile(path, what: "secret \(key)", note: note) }
        if let url = config.postgresUrl {
            checkPostgres(config, url: url, note: note)
        } else {
            checkDatabase(config.databasePath, note: note)
        }
        let serverKeyPath = config.deletion.auditKeyFile == nil
            ? Files.directory(of: config.databasePath) + "/" + DeletionAudit.keyFileName : nil
        for finding in Self.ownerFindings(databasePath: config.databasePath, serverKeyPath: serverKeyPath) {
            note(finding.ok, finding.text)
        }
        for nginx in NginxCheck.findings(directory: nginxDirectory) { note(nginx.ok, nginx.text) }
        for finding in SelfCheckRelay.findings(config) { note(finding.ok, finding.text) }
        note(routes.ipv4 || routes.ipv6, "this host: IPv4 route \(routes.ipv4 ? "yes" : "no"), IPv6 route \(routes.ipv6 ? "yes" : "no")")
        if let apple = config.apple, apple.mode == .relay {
            note(true, "Apple: relay mode, reached through Firebase (Apple's sign-in service needs no route from here)")
        }
        if let apple = config.apple, apple.mode == .direct { checkTeamKey(apple, note: note) }
        for finding in Self.lookupFindings() { note(finding.ok, finding.text) }
        for service in services(config) {
            checkService(service, note: note)
        }
        checkPasswords(config, note: note)
        checkEvents(config, note: note)
        checkProviderEvents(config, note: note)
        checkPasskeys(config, note: note)
        if let finding = Self.noticeLinkFinding(config) { note(finding.ok, finding.text) }
        return findings
    }

    struct Service {
        let name: String
        let url: String
        let isMail: Bool
        let isApple: Bool
    }

    func services(_ config: Config) -> [Service] {
        var out: [Service] = []
        if let google = config.google {
            out.append(Service(name: "Google keys", url: google.certsUrl, isMail: false, isApple: false))
        }
        if let apple = config.apple, apple.mode == .direct {
            out.append(Service(name: "Apple keys", url: apple.keysUrl, isMail: false, isApple: true))
        }
        if let firebase = config.firebase {
            out.append(Service(name: "Firebase Identity Toolkit", url: firebase.identityToolkitUrl, isMail: false, isApple: false))
            out.append(Service(name: "Firebase securetoken", url: firebase.securetokenUrl, isMail: false, isApple: false))
            out.append(Service(name: "Firebase token keys", url: firebase.certsUrl, isMail: false, isApple: false))
        }
        if let mail = config.mail { out.append(Service(name: "mail server", url: mail.smtpUrl, isMail: true, isApple: false)) }
        return out
    }

    private func checkFile(_ path: String, what: String, note: (Bool, String) -> Void) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            note(false, "\(what) \(path): cannot be read (\(String(cString: strerror(errno))))")
            return
        }
        let mode = info.st_mode & 0o777
        let owner = "\(Self.userName(info.st_uid)):\(Self.groupName(info.st_gid))"
        let modeText = "0" + String(mode, radix: 8)
        if mode & 0o007 != 0 {
            note(false, "\(what) \(path): mode \(modeText), readable by every user of this box (chmod o-rwx)")
        } else {
            note(true, "\(what) \(path): mode \(modeText), owner \(owner)")
        }
    }

    /// Direct mode revokes Sign in with Apple with a client secret signed by the team's key: without
    /// it every deletion's revocation fails after the answer, where nobody would see it.
    private func checkTeamKey(_ apple: Config.Apple, note: (Bool, String) -> Void) {
        guard let teamId = apple.teamId, let keyId = apple.keyId, let file = apple.privateKeyFile else {
            note(false, "Apple: direct mode without apple.teamId, apple.keyId and apple.privateKeyFile: "
                + "revoking Sign in with Apple when an account is deleted will fail")
            return
        }
        do {
            _ = try AppleClientSecret.make(apple: apple, clientId: apple.bundleIds.first ?? "", now: Clock.now())
            note(true, "Apple: direct mode, team \(teamId), key \(keyId) from \(file) signs client secrets")
        } catch {
            note(false, "Apple: \(error.detail ?? error.message)")
        }
    }

    private func checkDatabase(_ path: String, note: (Bool, String) -> Void) {
        // Opening it now could make an empty store where a restore has moved the old one aside.
        if let closed = Door.closedAt(path) {
            note(false, Self.doorClosedText(path, since: closed))
            return
        }
        do {
            let db = try Database(path: path)
            // The store is attached as `store` beside its session file (`SessionFile`).
            let version = try db.query("PRAGMA store.user_version").first?.int(0) ?? -1
            let journal = try db.query("PRAGMA store.journal_mode").first?.text(0) ?? "?"
            note(journal == "wal", "database \(path): schema version \(version), journal mode \(journal)")
            for finding in SelfCheckAddresses.findings(db) { note(finding.ok, finding.text) }
        } catch {
            note(false, "database \(path): \(error.detail ?? error.message)")
            return
        }
        checkFile(path, what: "database file", note: note)
    }

    /// PostgreSQL: connects (creating the schema on a new store, refusing one newer than this
    /// code), names the schema version and the server's, and what serves the URI: pgbouncer's pool
    /// mode when its console lets this user in (`transaction` or `session` serve; `statement`
    /// breaks transactions), or PostgreSQL itself, which forks a backend for every request.
    private func checkPostgres(_ config: Config, url: PostgresURL, note: (Bool, String) -> Void) {
        do {
            let db = try Database(config: config)
            defer { db.close() }
            let version = try db.query("SELECT version FROM schema_version WHERE id = 1").first?.int(0) ?? -1
            note(
                version == Int64(Database.schemaVersion),
                "store \(url): PostgreSQL \(db.serverVersion ?? "?"), schema version \(version)")
            for finding in SelfCheckAddresses.findings(db) { note(finding.ok, finding.text) }
        } catch {
            note(false, "store \(url): \(error.detail ?? error.message)")
            return
        }
        let pool = Self.poolModeFinding(PostgresPoolMode.of(url))
        note(pool.ok, pool.text)
    }

    static func poolModeFinding(_ mode: PostgresPoolMode) -> (ok: Bool, text: String) {
        switch mode {
        case .pgbouncer(let mode) where mode == "transaction" || mode == "session":
            return (true, "store: through pgbouncer, pool_mode \(mode)")
        case .pgbouncer(let mode):
            return (false, "store: through pgbouncer, pool_mode \(mode): frontdoor's transactions need transaction pooling")
        case .notPgbouncer:
            return (
                false,
                "store: postgresUrl reaches PostgreSQL itself, which forks a backend for every request: "
                    + "put a pgbouncer on this box in transaction pooling (docs/scaling.md)")
        case .unknown(let reason):
            return (
                true,
                "store: pgbouncer's pool mode unknown (\(reason)): list this user in its stats_users to have it named")
        }
    }

    private func checkService(_ service: Service, note: (Bool, String) -> Void) {
        guard let parts = OutboundURL.parse(service.url) else {
            note(false, "\(service.name): cannot parse \(service.url)")
            return
        }
        let host = parts.host
        let literal = Self.isAddressLiteral(host)
        let v4 = literal ? (host.contains(":") ? [] : [host]) : resolver.addresses(of: host, family: AF_INET)
        let v6 = literal ? (host.contains(":") ? [Self.unbracket(host)] : []) : resolver.addresses(of: host, family: AF_INET6)
        let usable = (routes.ipv4 ? v4 : []) + (routes.ipv6 ? v6 : [])
        let records = "A \(v4.isEmpty ? "none" : v4.joined(separator: " ")), AAAA \(v6.isEmpty ? "none" : v6.joined(separator: " "))"
        if usable.isEmpty {
            var advice = ""
            if v6.isEmpty && !routes.ipv4 {
                advice = service.isApple
                    ? " — Apple's sign-in service has no IPv6 address (`dig AAAA \(host)` answers none): "
                        + "set apple.mode to \"relay\""
                    : " — it has no IPv6 address and this host has no IPv4 route"
            }
            note(false, "\(service.name) \(host): \(records): no address this host can reach\(advice)")
            return
        }
        note(true, "\(service.name) \(host): \(records)")
        let port = parts.port ?? Self.defaultPort(parts.scheme)
        let started = Clock.monotonicMillis()
        if service.isMail {
            let result = Self.tcpConnect(addresses: usable, port: port, timeoutSeconds: timeoutSeconds)
            let ms = Int(Clock.monotonicMillis() - started)
            note(result == nil, "\(service.name) \(host):\(port): " + (result.map { "cannot connect (\($0))" } ?? "accepts connections (\(ms) ms)"))
            return
        }
        let client = CurlHTTPClient(connectTimeoutSeconds: min(timeoutSeconds, 3), totalTimeoutSeconds: timeoutSeconds)
        if !literal {
            client.resolveOverrides = ["\(host):\(port):" + usable.map { $0.contains(":") ? "[\($0)]" : $0 }.joined(separator: ",")]
        }
        do {
            let response = try client.send(HTTPRequest(method: "GET", url: service.url))
            let ms = Int(Clock.monotonicMillis() - started)
            note(true, "\(service.name): \(parts.scheme.uppercased()) answered \(response.status) in \(ms) ms")
        } catch {
            note(false, "\(service.name): no answer (\(error.detail ?? error.message))")
        }
    }

    /// The finding, and the refusal of the other commands, while a restore holds the door closed.
    public static func doorClosedText(_ databasePath: String, since: UnixTime) -> String {
        "database \(databasePath): the door is closed since \(Clock.rfc3339(since)) (\(Door.closedPath(databasePath))): "
            + "a restore is under way or was interrupted, and every endpoint answers 503; "
            + "run frontdoor-admin restore again to finish it"
    }

    /// nil when a TCP connection to one of `addresses` opens within the timeout, else the reason.
    static func tcpConnect(addresses: [String], port: Int, timeoutSeconds: Double) -> String? {
        var reason = "no address"
        for address in addresses {
            var hints = addrinfo()
            hints.ai_flags = AI_NUMERICHOST
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(address, String(port), &hints, &list) == 0, let entry = list else { continue }
            defer { freeaddrinfo(list) }
            let fd = socket(entry.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            if connect(fd, entry.pointee.ai_addr, entry.pointee.ai_addrlen) == 0 { return nil }
            guard errno == EINPROGRESS else {
                reason = String(cString: strerror(errno))
                continue
            }
            var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&poller, 1, Int32(timeoutSeconds * 1000))
            if ready == 0 {
                reason = "timed out after \(Int(timeoutSeconds)) s"
                continue
            }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            if error == 0 { return nil }
            reason = String(cString: strerror(error))
        }
        return reason
    }

    /// `getconf`, a dynamically linked program, answers with the box's own glibc.
    static func boxGlibc() -> String? {
        guard let pipe = popen("getconf GNU_LIBC_VERSION 2>/dev/null", "r") else { return nil }
        var line = [CChar](repeating: 0, count: 128)
        let read = fgets(&line, Int32(line.count), pipe) != nil
        let status = pclose(pipe)
        guard read, status == 0 else { return nil }
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.trimmingWhitespace()
    }

    /// Rule 18's "This wasn't me" needs the page the notices link to.
    static func noticeLinkFinding(_ config: Config) -> (ok: Bool, text: String)? {
        guard let mail = config.mail else { return nil }
        guard let page = config.noticePageUrl else {
            return (false, "mail: notices go without their \"This wasn't me\" link (rule 18): set mail.pageUrl to the "
                + "web kit's page, https://<this site>/auth/kit/")
        }
        return (true, "mail: notices link to \(page)\(NoticeLink.fragment)…, each link working "
            + "\(mail.noticeLinkSeconds / 86_400) days")
    }

    static func summary(_ config: Config) -> String {
        var parts: [String] = []
        if config.google != nil { parts.append("google") }
        if let apple = config.apple { parts.append("apple \(apple.mode.rawValue)") }
        if config.firebase != nil { parts.append("firebase") }
        if config.mail != nil { parts.append("mail") }
        if config.development { parts.append("development") }
        return parts.isEmpty ? "no providers" : parts.joined(separator: ", ")
    }

    static func defaultPort(_ scheme: String) -> Int {
        switch scheme {
        case "https": 443
        case "http": 80
        case "smtps": 465
        default: 587
        }
    }

    static func isAddressLiteral(_ host: String) -> Bool {
        if host.hasPrefix("[") { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets.allSatisfy { UInt8($0) != nil }
    }

    static func unbracket(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    static func userName(_ uid: uid_t) -> String {
        guard let entry = getpwuid(uid) else { return String(uid) }
        return String(cString: entry.pointee.pw_name)
    }

    static func groupName(_ gid: gid_t) -> String {
        guard let entry = getgrgid(gid) else { return String(gid) }
        return String(cString: entry.pointee.gr_name)
    }
}
