/// Every sentence frontdoor mails, in one language (rule 22's codes, rule 18's notices), as
/// templates: `{name}` is filled by `MailWords.fill`. Each language is one file of this folder,
/// the same members in the same order; the person's language is the account's (`MailLanguage`).
struct MailWords: Sendable {
    /// `{day}`, `{month}` (from `months`), `{year}`, `{time}` (24-hour, UTC).
    var date: String
    var months: [String]

    var codeSubject: String
    /// `{purpose}`: one of the three below; `{code}`.
    var codeText: String
    var purposeConfirmAddress: String
    var purposeConfirmNewAddress: String
    var purposeNewPassword: String

    /// What to do when a change was not the person's: in several notices.
    var resetAdvice: String
    var ifYou: String
    var checkWaysIn: String

    var passwordChangedSubject: String
    var passwordChangedText: String
    var passwordSetSubject: String
    var passwordSetText: String
    var passwordRemovedSubject: String
    var passwordRemovedText: String
    var addressChangedSubject: String
    var addressChangedText: String
    var addressChangeBegunSubject: String
    /// `{reset}`: `resetAdvice`.
    var addressChangeBegunText: String
    /// `{provider}`: "Google" or "Apple".
    var providerLinkedSubject: String
    var providerLinkedText: String
    var providerUnlinkedSubject: String
    var providerUnlinkedText: String
    var passkeyRemovedSubject: String
    var passkeyRemovedText: String
    var passkeyAddedSubject: String
    /// `{what}`: `passkeyNamed` or `passkeyUnnamed`; `{device}`: `deviceNamed` or `deviceUnnamed`.
    var passkeyAddedText: String
    var passkeyNamed: String
    var passkeyUnnamed: String
    var deviceNamed: String
    var deviceUnnamed: String

    /// The "This wasn't me" paragraph: `{until}`, `{link}`.
    var notMe: String

    /// The template with each `{name}` of `values` replaced, in one pass: what a value brings (a
    /// passkey's name the person typed) is never read as a placeholder. Other braces stay.
    static func fill(_ template: String, _ values: [String: String]) -> String {
        var out = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            let after = rest[rest.index(after: open)...]
            if let close = after.firstIndex(of: "}"), let value = values[String(after[..<close])] {
                out += value
                rest = after[after.index(after: close)...]
            } else {
                out += "{"
                rest = after
            }
        }
        return out + rest
    }

    /// A notice's text: `{ifYou}`, `{reset}` and `{checkWaysIn}` first (ours, holding no
    /// placeholder of a person's), then `{when}`, `{provider}` and `extra`, in one pass.
    func notice(_ template: String, when: UnixTime, provider: String = "", extra: [String: String] = [:]) -> String {
        let whole = Self.fill(template, ["ifYou": ifYou, "reset": resetAdvice, "checkWaysIn": checkWaysIn])
        return Self.fill(whole, extra.merging(["when": format(when), "provider": provider]) { ours, _ in ours })
    }

    /// `t` in this language's date form.
    func format(_ t: UnixTime) -> String {
        let stamp = Clock.rfc3339(t)  // 2026-11-30T09:04:42Z
        let parts = stamp.split(whereSeparator: { "-TZ".contains($0) })
        guard parts.count == 4, let month = Int(parts[1]), months.count == 12 else { return stamp }
        return Self.fill(date, [
            "day": String(Int(parts[2]) ?? 0), "month": months[(month - 1) % 12], "year": String(parts[0]),
            "time": String(parts[3].prefix(5)),
        ])
    }
}

extension MailWords {
    static let en = MailWords(
        date: "{day} {month} {year} at {time} UTC",
        months: ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                 "November", "December"],
        codeSubject: "Your code",
        codeText: """
            Your code {purpose} is {code}

            It expires in 10 minutes. If you did not ask for it, you can ignore this email.
            """,
        purposeConfirmAddress: "to confirm your email address",
        purposeConfirmNewAddress: "to confirm your new email address",
        purposeNewPassword: "to choose a new password",
        resetAdvice: """
            choose a new password now with "Forgot password" on the app's sign-in screen: it signs
            out every device
            """,
        ifYou: "If that was you, there is nothing to do.",
        checkWaysIn: "Then check the ways you sign in, in the app's account settings.",
        passwordChangedSubject: "Your password was changed",
        passwordChangedText: """
            The password of your account was changed on {when}. Every other device signed in
            to your account was signed out.

            {ifYou}

            If it was not you, someone else knows your password or is signed in to your account:
            {reset}. {checkWaysIn}
            """,
        passwordSetSubject: "A password was added to your account",
        passwordSetText: """
            A password was added to your account on {when}: it now also signs in with this
            email address and that password.

            {ifYou}

            If it was not you, someone else is signed in to your account: {reset}. {checkWaysIn}
            """,
        passwordRemovedSubject: "The password was removed from your account",
        passwordRemovedText: """
            The password of your account was removed on {when}: it no longer signs in with
            this email address and a password.

            {ifYou}

            If it was not you, someone else is signed in to your account: {reset}. {checkWaysIn}
            """,
        addressChangedSubject: "Your account's email address was changed",
        addressChangedText: """
            The email address of your account was changed on {when}, from this address to
            another one. Codes and notices now go to the new address, and this one no longer
            signs in with a password.

            {ifYou}

            If it was not you, someone else is signed in to your account: sign in with
            another way you use (Google, Apple or a passkey), sign out every device and
            change the address back in the app's account settings, or write to the app's
            support.
            """,
        addressChangeBegunSubject: "A change of your account's email address was asked for",
        addressChangeBegunText: """
            On {when} someone signed in to your account asked to move it from this address to
            another one. A code went to the other address; the move happens only if that code
            is entered there within a few minutes.

            {ifYou}

            If it was not you, someone else is signed in to your account: sign out every device
            in the app's account settings, or {reset}. Either stops the move.
            """,
        providerLinkedSubject: "{provider} sign-in was added to your account",
        providerLinkedText: """
            A {provider} account was added to your account on {when}: it now also signs in
            with that {provider} account.

            {ifYou}

            If it was not you, someone else is signed in to your account: sign out every device
            in the app's account settings, or {reset}. Either takes that sign-in away again.
            """,
        providerUnlinkedSubject: "{provider} sign-in was removed from your account",
        providerUnlinkedText: """
            The {provider} sign-in of your account was removed on {when}: it no longer
            signs in with that {provider} account.

            {ifYou}

            If it was not you, someone else is signed in to your account: {reset}. {checkWaysIn}
            """,
        passkeyRemovedSubject: "A passkey was removed from your account",
        passkeyRemovedText: """
            A passkey of your account was removed on {when}: it no longer signs in to your
            account.

            {ifYou}

            If it was not you, someone else is signed in to your account: {reset}. {checkWaysIn}
            """,
        passkeyAddedSubject: "A passkey was added to your account",
        passkeyAddedText: """
            {what} was added to your account on {when}, from {device}.
            It can now sign in to your account.

            {ifYou}

            If it was not you, someone else may be signed in to your account. Open the app and sign
            out of every device, or reset your password: either one removes every passkey added
            before it, this one included. Then sign in again and add your own passkeys again.
            """,
        passkeyNamed: "A passkey named \"{name}\"",
        passkeyUnnamed: "A passkey",
        deviceNamed: "a signed-in device that calls itself \"{name}\"",
        deviceUnnamed: "a signed-in device that did not give its name",
        notMe: """
            This wasn't me: this link signs out every device signed in to your account and takes
            back the ways in they added. Nothing happens until you press its one button. It works
            once, until {until}:
            {link}
            """)
}
