/// `frontdoor-check`'s finding on stored addresses: accounts whose address was written before
/// today's rules (a look-alike character, such as U+0131 whose key is an ASCII address's, or a
/// spelling the rules now store or key differently, as a domain the upgrade could not rekey).
/// Such an address never receives a code (`EmailAddress.isMailable`), and its key stays taken: it
/// may hold the key of an innocent person's address. What to do with each is the operator's call (the
/// person may sign in by password with it), so this only names them.
public enum SelfCheckAddresses {
    static func findings(_ db: Database) -> [SelfCheck.Finding] {
        guard let rows = try? db.query("SELECT id, email, email_key FROM accounts WHERE email IS NOT NULL ORDER BY created_at")
        else { return [SelfCheck.Finding(ok: false, text: "accounts: the stored addresses could not be read")] }
        var count = 0
        var shown: [String] = []
        for row in rows {
            guard let id = row.text(0), let email = row.text(1), !EmailAddress.isMailable(email, key: row.text(2)) else {
                continue
            }
            count += 1
            if shown.count < SelfCheck.idsShown { shown.append(id) }
        }
        guard count > 0 else { return [] }
        return [SelfCheck.Finding(
            ok: false,
            text: "accounts: \(count) keep an address written before today's address rules (a look-alike character "
                + "keyed as another address, or a spelling stored or keyed otherwise): they never receive a code, and "
                + "each keeps its key from a new account with the address it looks like. Check each (docs/security.md, "
                + "\"Addresses are keyed\"); ids: "
                + SelfCheck.listed(shown, of: count))]
    }
}
