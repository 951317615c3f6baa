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

    /// Read in the change's transaction, before an address change writes the new address: nil
    /// when no mail may go to the account's address.
    static func read(
        _ change: Change, accountId: String, config: Config, db: Database, now: UnixTime
    ) throws(FrontdoorError) -> SettingsNotice? {
        guard let account = try db.query(
            "SELECT email, email_key, disabled_at IS NOT NULL FROM accounts WHERE id = ?", [.text(accountId)]
        ).first, let email = account.text(0), EmailAddress.isMailable(email, key: account.text(1)), account.int(2) == 0,
            try !ProviderEventStore.mailStopped(accountId, db: db)
        else { return nil }
        var notice = SettingsNotice(to: email, change: change, at: now)
        if let url = try NoticeLink.make(accountId, config: config, db: db, now: now) {
            notice.notMe = (url, now + (config.mail?.noticeLinkSeconds ?? 0))
        }
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
        let told = told
        return MailMessage(to: told.to, subject: told.subject, text: told.text + NoticeLink.paragraph(notMe))
    }

    private var told: MailMessage {
        let when = MailMessage.date(at)
        let reset = """
            choose a new password now with "Forgot password" on the app's sign-in screen: it signs
            out every device
            """
        switch change {
        case .passwordChanged:
            return MailMessage(
                to: to, subject: "Your password was changed",
                text: """
                    The password of your account was changed on \(when). Every other device signed in
                    to your account was signed out.

                    If that was you, there is nothing to do.

                    If it was not you, someone else knows your password or is signed in to your account:
                    \(reset). Then check the ways you sign in, in the app's account settings.
                    """)
        case .passwordSet:
            return MailMessage(
                to: to, subject: "A password was added to your account",
                text: """
                    A password was added to your account on \(when): it now also signs in with this
                    email address and that password.

                    If that was you, there is nothing to do.

                    If it was not you, someone else is signed in to your account: \(reset). Then
                    check the ways you sign in, in the app's account settings.
                    """)
        case .passwordRemoved:
            return MailMessage(
                to: to, subject: "The password was removed from your account",
                text: """
                    The password of your account was removed on \(when): it no longer signs in with
                    this email address and a password.

                    If that was you, there is nothing to do.

                    If it was not you, someone else is signed in to your account: \(reset). Then
                    check the ways you sign in, in the app's account settings.
                    """)
        case .addressChanged:
            return MailMessage(
                to: to, subject: "Your account's email address was changed",
                text: """
                    The email address of your account was changed on \(when), from this address to
                    another one. Codes and notices now go to the new address, and this one no longer
                    signs in with a password.

                    If that was you, there is nothing to do.

                    If it was not you, someone else is signed in to your account: sign in with
                    another way you use (Google, Apple or a passkey), sign out every device and
                    change the address back in the app's account settings, or write to the app's
                    support.
                    """)
        case .addressChangeBegun:
            return MailMessage(
                to: to, subject: "A change of your account's email address was asked for",
                text: """
                    On \(when) someone signed in to your account asked to move it from this address to
                    another one. A code went to the other address; the move happens only if that code
                    is entered there within a few minutes.

                    If that was you, there is nothing to do.

                    If it was not you, someone else is signed in to your account: sign out every device
                    in the app's account settings, or \(reset). Either stops the move.
                    """)
        case .providerLinked:
            return MailMessage(
                to: to, subject: "\(provider) sign-in was added to your account",
                text: """
                    A \(provider) account was added to your account on \(when): it now also signs in
                    with that \(provider) account.

                    If that was you, there is nothing to do.

                    If it was not you, someone else is signed in to your account: sign out every device
                    in the app's account settings, or \(reset). Either takes that sign-in away again.
                    """)
        case .providerUnlinked:
            return MailMessage(
                to: to, subject: "\(provider) sign-in was removed from your account",
                text: """
                    The \(provider) sign-in of your account was removed on \(when): it no longer
                    signs in with that \(provider) account.

                    If that was you, there is nothing to do.

                    If it was not you, someone else is signed in to your account: \(reset). Then
                    check the ways you sign in, in the app's account settings.
                    """)
        case .passkeyRemoved:
            return MailMessage(
                to: to, subject: "A passkey was removed from your account",
                text: """
                    A passkey of your account was removed on \(when): it no longer signs in to your
                    account.

                    If that was you, there is nothing to do.

                    If it was not you, someone else is signed in to your account: \(reset). Then
                    check the ways you sign in, in the app's account settings.
                    """)
        }
    }
}
