extension MailWords {
    static let de = MailWords(
        date: "{day}. {month} {year} um {time} UTC",
        months: ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober",
                 "November", "Dezember"],
        codeSubject: "Ihr Code",
        codeText: """
            Ihr Code {purpose} lautet {code}

            Er läuft in 10 Minuten ab. Wenn Sie ihn nicht angefordert haben, können Sie diese E-Mail
            ignorieren.
            """,
        purposeConfirmAddress: "zum Bestätigen Ihrer E-Mail-Adresse",
        purposeConfirmNewAddress: "zum Bestätigen Ihrer neuen E-Mail-Adresse",
        purposeNewPassword: "für ein neues Passwort",
        resetAdvice: """
            Wählen Sie jetzt auf dem Anmeldebildschirm der App über „Passwort vergessen?“ ein neues
            Passwort. Dadurch werden alle Geräte abgemeldet
            """,
        ifYou: "Wenn Sie das waren, müssen Sie nichts tun.",
        checkWaysIn: "Prüfen Sie danach in den Kontoeinstellungen der App Ihre Anmeldewege.",
        passwordChangedSubject: "Ihr Passwort wurde geändert",
        passwordChangedText: """
            Das Passwort Ihres Kontos wurde am {when} geändert. Alle anderen Geräte, die bei Ihrem
            Konto angemeldet waren, wurden abgemeldet.

            {ifYou}

            Falls Sie das nicht waren, kennt jemand anderes Ihr Passwort oder ist bei Ihrem Konto
            angemeldet. {reset}. {checkWaysIn}
            """,
        passwordSetSubject: "Ihrem Konto wurde ein Passwort hinzugefügt",
        passwordSetText: """
            Ihrem Konto wurde am {when} ein Passwort hinzugefügt. Man kann sich jetzt auch mit dieser
            E-Mail-Adresse und diesem Passwort anmelden.

            {ifYou}

            Falls Sie das nicht waren, ist jemand anderes bei Ihrem Konto angemeldet. {reset}.
            {checkWaysIn}
            """,
        passwordRemovedSubject: "Das Passwort Ihres Kontos wurde entfernt",
        passwordRemovedText: """
            Das Passwort Ihres Kontos wurde am {when} entfernt. Mit dieser E-Mail-Adresse und einem
            Passwort kann man sich jetzt nicht mehr anmelden.

            {ifYou}

            Falls Sie das nicht waren, ist jemand anderes bei Ihrem Konto angemeldet. {reset}.
            {checkWaysIn}
            """,
        addressChangedSubject: "Die E-Mail-Adresse Ihres Kontos wurde geändert",
        addressChangedText: """
            Die E-Mail-Adresse Ihres Kontos wurde am {when} geändert: von dieser Adresse auf eine
            andere. Codes und Sicherheitshinweise gehen jetzt an die neue Adresse. Mit dieser Adresse
            und einem Passwort kann man sich nicht mehr anmelden.

            {ifYou}

            Falls Sie das nicht waren, ist jemand anderes bei Ihrem Konto angemeldet. Melden Sie sich
            auf einem anderen Weg an, den Sie nutzen (Google, Apple oder ein Passkey). Melden Sie dann
            alle Geräte ab und ändern Sie die Adresse in den Kontoeinstellungen der App zurück. Oder
            schreiben Sie an den Support der App.
            """,
        addressChangeBegunSubject: "Eine Änderung der E-Mail-Adresse Ihres Kontos wurde angefordert",
        addressChangeBegunText: """
            Am {when} hat jemand, der bei Ihrem Konto angemeldet ist, darum gebeten, das Konto von
            dieser Adresse auf eine andere umzustellen. An die andere Adresse ging ein Code. Die
            Umstellung geschieht nur, wenn dieser Code dort innerhalb weniger Minuten eingegeben wird.

            {ifYou}

            Falls Sie das nicht waren, ist jemand anderes bei Ihrem Konto angemeldet. {reset}. Das
            stoppt die Umstellung. Dasselbe erreichen Sie, wenn Sie in den Kontoeinstellungen der App
            alle Geräte abmelden.
            """,
        providerLinkedSubject: "Ihrem Konto wurde die Anmeldung mit {provider} hinzugefügt",
        providerLinkedText: """
            Ihrem Konto wurde am {when} ein Konto von {provider} hinzugefügt. Man kann sich jetzt auch
            mit diesem Konto von {provider} anmelden.

            {ifYou}

            Falls Sie das nicht waren, ist jemand anderes bei Ihrem Konto angemeldet. {reset}. Damit
            wird diese Anmeldung wieder entfernt. Dasselbe erreichen Sie, wenn Sie in den
            Kontoeinstellungen der App alle Geräte abmelden.
            """,
        providerUnlinkedSubject: "Die Anmeldung mit {provider} wurde aus Ihrem Konto entfernt",
        providerUnlinkedText: """
            Die Anmeldung mit {provider} wurde am {when} aus Ihrem Konto entfernt. Mit dem Konto von
            {provider} kann man sich jetzt nicht mehr bei Ihrem Konto anmelden.

            {ifYou}

            Falls Sie das nicht waren, ist jemand anderes bei Ihrem Konto angemeldet. {reset}.
            {checkWaysIn}
            """,
        passkeyRemovedSubject: "Ein Passkey wurde aus Ihrem Konto entfernt",
        passkeyRemovedText: """
            Ein Passkey Ihres Kontos wurde am {when} entfernt. Mit ihm kann man sich nicht mehr bei
            Ihrem Konto anmelden.

            {ifYou}

            Falls Sie das nicht waren, ist jemand anderes bei Ihrem Konto angemeldet. {reset}.
            {checkWaysIn}
            """,
        passkeyAddedSubject: "Ihrem Konto wurde ein Passkey hinzugefügt",
        passkeyAddedText: """
            {what} wurde am {when} zu Ihrem Konto hinzugefügt. Das geschah auf {device}.
            Mit ihm kann man sich jetzt bei Ihrem Konto anmelden.

            {ifYou}

            Falls Sie das nicht waren, ist vielleicht jemand anderes bei Ihrem Konto angemeldet.
            Öffnen Sie die App und melden Sie alle Geräte ab, oder setzen Sie Ihr Passwort zurück.
            Beides entfernt alle Passkeys, die vorher hinzugefügt wurden, auch diesen. Melden Sie sich
            danach wieder an und fügen Sie Ihre eigenen Passkeys erneut hinzu.
            """,
        passkeyNamed: "Ein Passkey namens „{name}“",
        passkeyUnnamed: "Ein Passkey",
        deviceNamed: "einem angemeldeten Gerät, das sich „{name}“ nennt",
        deviceUnnamed: "einem angemeldeten Gerät, das keinen Namen angegeben hat",
        notMe: """
            Waren Sie das nicht? Dieser Link meldet alle Geräte ab, die bei Ihrem Konto angemeldet
            sind, und entfernt die Anmeldewege, die auf diesen Geräten hinzugefügt wurden. Es passiert
            erst etwas, wenn Sie auf der Seite auf die einzige Schaltfläche tippen. Der Link
            funktioniert einmal, bis zum {until}:
            {link}
            """)
}
