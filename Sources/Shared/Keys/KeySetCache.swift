/// Issuers' key sets, kept in the store so every process shares one copy. Fetched when missing
/// or expired (expiry from `Cache-Control: max-age`); refetched early for an unknown `kid` at most
/// once per interval across all processes; when the issuer cannot be reached, expired keys keep
/// serving for `graceSeconds`, then sign-ins answer 503.
public struct KeySetCache {
    let db: Database
    let settings: Config.KeyCache
    let client: () -> HTTPClient

    public init(db: Database, settings: Config.KeyCache, client: @escaping () -> HTTPClient) {
        self.db = db
        self.settings = settings
        self.client = client
    }

    public func keys(url: String, now: UnixTime) throws(FrontdoorError) -> JSONWebKeySet {
        let cached = try db.query("SELECT body, expires_at FROM key_sets WHERE url = ?", [.text(url)]).first
        let stale = cached.flatMap { row in row.blob(0).flatMap { try? JSONWebKeySet.parse($0) } }
        if let stale, let expiresAt = cached?.int(1), expiresAt > now {
            return stale
        }
        do {
            return try fetchAndStore(url: url, now: now)
        } catch {
            if let stale, let expiresAt = cached?.int(1), now < expiresAt + settings.graceSeconds {
                FileIO.log("frontdoor keys=stale url=\(Self.host(url)) reason=\(error.detail ?? error.message)")
                return stale
            }
            throw error
        }
    }

    /// After a token named a `kid` the cached set lacks: fetches again if no process has done so
    /// within the interval, else nil (the token is then refused as it stands).
    public func refetchForUnknownKey(url: String, now: UnixTime) throws(FrontdoorError) -> JSONWebKeySet? {
        let claimed = try db.run(
            "UPDATE key_sets SET refetch_after = ? WHERE url = ? AND refetch_after <= ?",
            [.integer(now + settings.refetchIntervalSeconds), .text(url), .integer(now)])
        guard claimed == 1 else { return nil }
        return try fetchAndStore(url: url, now: now)
    }

    private func fetchAndStore(url: String, now: UnixTime) throws(FrontdoorError) -> JSONWebKeySet {
        let response = try client().send(HTTPRequest(method: "GET", url: url, headers: [("Accept", "application/json")]))
        guard response.status == 200 else {
            throw .upstream("keys \(Self.host(url)): HTTP \(response.status)")
        }
        let keys: JSONWebKeySet
        do {
            keys = try JSONWebKeySet.parse(response.body)
        } catch {
            throw .upstream("keys \(Self.host(url)): unusable key set (\(error))")
        }
        let maxAge = Self.maxAge(response.header("cache-control")) ?? settings.defaultMaxAgeSeconds
        // refetch_after is left alone: only fetches caused by unknown kids count against it.
        try db.run(
            """
            INSERT INTO key_sets (url, body, fetched_at, expires_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (url) DO UPDATE SET body = excluded.body, fetched_at = excluded.fetched_at,
                expires_at = excluded.expires_at
            """,
            [.text(url), .blob(response.body), .integer(now), .integer(now + maxAge)])
        return keys
    }

    /// `max-age` of a Cache-Control header, bounded to a minute .. two days so a silly value
    /// neither hammers the issuer nor pins keys for ever.
    static func maxAge(_ header: String?) -> Int64? {
        guard let header else { return nil }
        for directive in header.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingASCIISpaces().lowercased() == "max-age",
                let seconds = Int64(parts[1].trimmingASCIISpaces())
            else { continue }
            return min(max(seconds, 60), 2 * 86_400)
        }
        return nil
    }

    static func host(_ url: String) -> String { OutboundURL.host(of: url) ?? "?" }
}
