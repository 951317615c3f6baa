/// A notice's "This wasn't me" link (rule 18): the kit's page with `#not-me=` and a token, whose
/// one button sends `verify-email` `not_me` and signs the account out everywhere as a takeback,
/// once, within `mail.noticeLinkSeconds`. The token is 16 bytes naming the account (so that its
/// deletion finds its links) and 32 random ones; the store keeps their hash, as an `ephemeral`
/// row (kind `noticeLink`: the account in `note`, `number` 1 once used), never the token.
enum NoticeLink {
    static let fragment = "#not-me="

    /// Made in the change's transaction: the link and when it stops working; nil when no page is
    /// configured (the notice then goes without it).
    static func make(_ accountId: String, config: Config, db: Database, now: UnixTime) throws(FrontdoorError)
        -> (url: String, until: UnixTime)?
    {
        guard let page = config.noticePageUrl, let mail = config.mail else { return nil }
        let secret = try SecureRandom.bytes(32)
        let tag = accountTag(accountId)
        _ = try Ephemeral.claim(
            .noticeLink, key: tag + SHA256.hash(secret), since: now, note: accountId, until: now + mail.noticeLinkSeconds,
            db: db)
        return (page + fragment + Base64URL.encode(tag + secret), now + mail.noticeLinkSeconds)
    }

    /// `verify-email` `not_me`: the account's sessions end and what they did is taken back
    /// (`Takeback`), as signing out everywhere does. An unknown, used or expired token is
    /// `invalid_ticket` and changes nothing.
    static func use(_ context: RequestContext) throws(FrontdoorError) -> CGIResponse {
        let token = try context.body.requiredString("token", maxBytes: 128)
        guard let bytes = Base64URL.decode(token), bytes.count == 48 else { throw used }
        let key = Array(bytes.prefix(16)) + SHA256.hash(bytes.suffix(32))
        let db = try context.database()
        let now = context.now
        let ended = try db.transaction { () throws(FrontdoorError) -> Int in
            guard let entry = try Ephemeral.entry(.noticeLink, key: key, db: db), entry.expiresAt > now, entry.number == 0,
                let accountId = entry.note, accountTag(accountId) == Array(bytes.prefix(16)),
                try !db.query("SELECT 1 FROM accounts WHERE id = ?", [.text(accountId)]).isEmpty
            else { throw used }
            try Ephemeral.bump(.noticeLink, key: key, db: db)
            let ended = try SignOut.end(.all, accountId: accountId, tokenHash: [], db: db, now: now)
            try Takeback.run(accountId, sessionsMadeBy: now, db: db, config: context.config, now: now)
            return ended
        }
        return CGIResponse(status: 200, body: .object([("signedOut", true), ("ended", .number(Double(ended)))]))
    }

    /// The notice's paragraph for its link, after a blank line; empty without one.
    static func paragraph(_ link: (url: String, until: UnixTime)?, words: MailWords) -> String {
        guard let link else { return "" }
        return "\n\n" + MailWords.fill(words.notMe, ["until": words.format(link.until), "link": link.url])
    }

    /// An account's links, when it is deleted.
    static func removeAll(of accountId: String, db: Database) throws(FrontdoorError) {
        try Ephemeral.remove(.noticeLink, prefix: accountTag(accountId), db: db)
    }

    static func accountTag(_ accountId: String) -> [UInt8] {
        Array(SHA256.hash(Array("frontdoor notice link \(accountId)".utf8)).prefix(16))
    }

    static var used: FrontdoorError {
        FrontdoorError(.invalidTicket, "This link no longer works: it was used already, or it is too old.")
    }
}
