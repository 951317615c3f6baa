/// The mail that tells the person a passkey was added to their account (issue 29), so that one a
/// stolen session added is seen: what was added, when, from which device, and what to do if it
/// was not them. It goes after the answer and never holds it, and only to the account's own
/// address when it may be mailed (as a code may); an account without one gets none. Its only link
/// is "This wasn't me" (`NoticeLink`): nothing in it signs anyone in.
struct PasskeyNotice {
    let to: String
    let passkeyName: String?
    let deviceName: String?
    let addedAt: UnixTime
    var notMe: (url: String, until: UnixTime)? = nil
    var language: MailLanguage = .en

    /// Read in the registration's transaction; nil when no mail may go.
    static func read(
        _ session: LiveSession, passkeyName: String?, config: Config, db: Database, now: UnixTime
    ) throws(FrontdoorError) -> PasskeyNotice? {
        guard let account = try db.query(
            "SELECT email, email_key, language FROM accounts WHERE id = ?", [.text(session.accountId)]
        ).first, let email = account.text(0), EmailAddress.isMailable(email, key: account.text(1)),
            try MailWithheld.reason(session.accountId, db: db) == nil
        else { return nil }
        let device = try db.query(
            "SELECT device_name FROM sessions WHERE session_id = ?", [.text(session.sessionId)]
        ).first?.text(0)
        var notice = PasskeyNotice(to: email, passkeyName: passkeyName, deviceName: device, addedAt: now)
        notice.language = account.text(2).flatMap(MailLanguage.init(rawValue:)) ?? .en
        notice.notMe = try NoticeLink.make(session.accountId, config: config, db: db, now: now)
        return notice
    }

    /// After the answer; the outcome goes to syslog, never the address.
    func send(_ context: RequestContext) {
        guard context.config.mail != nil else {
            SysLog.info("frontdoor endpoint=passkey notice not sent: no mail configured")
            return
        }
        do throws(FrontdoorError) {
            try context.mailer().send(message, now: addedAt)
            SysLog.info("frontdoor endpoint=passkey notice sent")
        } catch {
            SysLog.warning("frontdoor endpoint=passkey notice not sent: \(error.detail ?? error.code.rawValue)")
        }
    }

    var message: MailMessage {
        let w = language.words
        let what = passkeyName.map { MailWords.fill(w.passkeyNamed, ["name": $0]) } ?? w.passkeyUnnamed
        let device = deviceName.map { MailWords.fill(w.deviceNamed, ["name": $0]) } ?? w.deviceUnnamed
        return MailMessage(
            to: to, subject: w.passkeyAddedSubject,
            text: w.notice(w.passkeyAddedText, when: addedAt, extra: ["what": what, "device": device])
                + NoticeLink.paragraph(notMe, words: w))
    }
}
