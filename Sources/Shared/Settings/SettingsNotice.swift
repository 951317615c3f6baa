/// The mail that tells the person how their account's way in changed (rule 18): after a password
/// is changed, set or removed, a provider linked or unlinked, to the account's address; when an
/// address change is begun and when it is done, to the old address (the fourth review's T5-6: a
/// link or a change a stolen session made was told to nobody). It goes after the answer and never holds it; it says what changed and when, and what
/// to do if it was not them, with the "This wasn't me" link (`NoticeLink`) when a page is
/// configured: nothing in it signs anyone in. It goes only to an address that may be mailed (as a
/// code may: by today's rules, not stopped by a provider's event, not of a disabled account); an
/// account without one gets none.
struct SettingsNotice {
    enum Change: String {
        case passwordChanged = "password-changed"
        case passwordSet = "password-set"
        case passwordRemoved = "password-removed"
        case addressChanged = "address-changed"
        case addressChangeBegun = "address-change-begun"
        case providerLinked = "provider-linked"
        case providerUnlinked = "provider-unlinked"
        case passkeyRemoved = "passkey-removed"
    }

    let to: String
    let change: Change
    let at: UnixTime
    /// The provider a link or an unlink concerns, as the person reads it ("Google", "Apple").
    var provider: String = ""
    /// The "This wasn't me" link, and when it stops working.
    var notMe: (url: String, until: UnixTime)? = nil
    /// The account's (`MailLanguage`).
    var language: MailLanguage = .en

    /// Read in the change's transaction, before an address change writes the new address: nil
    /// when no mail may go to the account's address.
    static func read(
        _ change: Change, accountId: String, config: Config, db: Database, now: UnixTime
    ) throws(FrontdoorError) -> SettingsNotice? {
        guard let account = try db.query(
            "SELECT email, email_key, disabled_at IS NOT NULL, language FROM accounts WHERE id = ?", [.text(accountId)]
        ).first, let email = account.text(0), EmailAddress.isMailable(email, key: account.text(1)), account.int(2) == 0,
            try !ProviderEventStore.mailStopped(accountId, db: db)
        else { return nil }
        var notice = SettingsNotice(to: email, change: change, at: now)
        notice.language = account.text(3).flatMap(MailLanguage.init(rawValue:)) ?? .en
        notice.notMe = try NoticeLink.make(accountId, config: config, db: db, now: now)
        return notice
    }

    /// A link's or an unlink's notice, naming the provider.
    static func read(
        _ change: Change, provider: String, accountId: String, config: Config, db: Database, now: UnixTime
    ) throws(FrontdoorError) -> SettingsNotice? {
        guard var notice = try read(change, accountId: accountId, config: config, db: db, now: now) else { return nil }
        notice.provider = ProviderIdentity.Provider(rawValue: provider)?.displayName ?? provider
        return notice
    }

    /// After the answer; the outcome goes to syslog, never the address.
    func send(_ context: RequestContext) {
        let line = "frontdoor endpoint=account notice=\(change.rawValue)"
        guard context.config.mail != nil else {
            SysLog.info(line + " not sent: no mail configured")
            return
        }
        do throws(FrontdoorError) {
            try context.mailer().send(message, now: at)
            SysLog.info(line + " sent")
        } catch {
            SysLog.warning(line + " not sent: \(error.detail ?? error.code.rawValue)")
        }
    }

    var message: MailMessage {
        let w = language.words
        let (subject, text): (String, String) = switch change {
        case .passwordChanged: (w.passwordChangedSubject, w.passwordChangedText)
        case .passwordSet: (w.passwordSetSubject, w.passwordSetText)
        case .passwordRemoved: (w.passwordRemovedSubject, w.passwordRemovedText)
        case .addressChanged: (w.addressChangedSubject, w.addressChangedText)
        case .addressChangeBegun: (w.addressChangeBegunSubject, w.addressChangeBegunText)
        case .providerLinked: (w.providerLinkedSubject, w.providerLinkedText)
        case .providerUnlinked: (w.providerUnlinkedSubject, w.providerUnlinkedText)
        case .passkeyRemoved: (w.passkeyRemovedSubject, w.passkeyRemovedText)
        }
        return MailMessage(
            to: to, subject: MailWords.fill(subject, ["provider": provider]),
            text: w.notice(text, when: at, provider: provider) + NoticeLink.paragraph(notMe, words: w))
    }
}
