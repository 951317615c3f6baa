/// Issue 19's data migration: a domain is now keyed by its A-label (`IDNA.asciiKey`), where the
/// key used to case-fold it with the rest of the address, so `victim@gmaıl.com` held the key of
/// `victim@gmail.com`. Run once, by `Migrations.domainKeys` inside the migration's transaction
/// (the write lock): every account whose key came from the old function and differs under today's
/// gets today's, so it is found by its own address and gives back the key of the ASCII address it
/// took. A row whose new key another account already holds keeps its old one: it is then never
/// mailed (`EmailAddress.isMailable`), and `frontdoor-check` names it.
enum AddressRekey {
    static func run(_ db: SQLiteDatabase) throws(FrontdoorError) {
        // Only a non-ASCII address can key otherwise; it is longer in bytes than in characters.
        let rows = try db.query(
            """
            SELECT id, email, email_key FROM accounts
            WHERE email IS NOT NULL AND email_key IS NOT NULL AND length(CAST(email AS BLOB)) <> length(email)
            """)
        for row in rows {
            guard let id = row.text(0), let email = row.text(1), let stored = row.text(2) else { continue }
            let key = EmailAddress.matchKey(email)
            guard Array(stored.utf8) == Array(keyBeforeIssue19(email).utf8), Array(key.utf8) != Array(stored.utf8) else {
                continue
            }
            try db.run("UPDATE OR IGNORE accounts SET email_key = ? WHERE id = ?", [.text(key), .text(id)])
        }
    }

    /// The key as it was made before: the whole address trimmed, in NFC and folded.
    static func keyBeforeIssue19(_ email: String) -> String {
        EmailAddress.fold(EmailAddress.nfc(email.trimmingWhitespace()))
    }
}
