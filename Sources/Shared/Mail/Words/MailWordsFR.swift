extension MailWords {
    static let fr = MailWords(
        date: "{day} {month} {year} à {time} UTC",
        months: ["janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre",
                 "novembre", "décembre"],
        codeSubject: "Votre code",
        codeText: """
            Votre code {purpose} est {code}

            Il expire dans 10 minutes. Si vous ne l'avez pas demandé, vous pouvez ignorer cet e-mail.
            """,
        purposeConfirmAddress: "pour confirmer votre adresse e-mail",
        purposeConfirmNewAddress: "pour confirmer votre nouvelle adresse e-mail",
        purposeNewPassword: "pour choisir un nouveau mot de passe",
        resetAdvice: """
            choisissez dès maintenant un nouveau mot de passe avec « Mot de passe oublié ? » sur
            l'écran de connexion de l'app, ce qui déconnecte tous les appareils
            """,
        ifYou: "Si c'était vous, vous n'avez rien à faire.",
        checkWaysIn: "Ensuite, vérifiez vos moyens de connexion dans les réglages du compte de l'app.",
        passwordChangedSubject: "Votre mot de passe a été modifié",
        passwordChangedText: """
            Le mot de passe de votre compte a été modifié le {when}. Tous les autres appareils
            connectés à votre compte ont été déconnectés.

            {ifYou}

            Si ce n'était pas vous, quelqu'un d'autre connaît votre mot de passe ou est connecté à
            votre compte : {reset}. {checkWaysIn}
            """,
        passwordSetSubject: "Un mot de passe a été ajouté à votre compte",
        passwordSetText: """
            Un mot de passe a été ajouté à votre compte le {when} : on peut maintenant aussi s'y
            connecter avec cette adresse e-mail et ce mot de passe.

            {ifYou}

            Si ce n'était pas vous, quelqu'un d'autre est connecté à votre compte : {reset}.
            {checkWaysIn}
            """,
        passwordRemovedSubject: "Le mot de passe de votre compte a été retiré",
        passwordRemovedText: """
            Le mot de passe de votre compte a été retiré le {when} : on ne peut plus s'y connecter
            avec cette adresse e-mail et un mot de passe.

            {ifYou}

            Si ce n'était pas vous, quelqu'un d'autre est connecté à votre compte : {reset}.
            {checkWaysIn}
            """,
        addressChangedSubject: "L'adresse e-mail de votre compte a été modifiée",
        addressChangedText: """
            L'adresse e-mail de votre compte a été modifiée le {when} : cette adresse a été remplacée
            par une autre. Les codes et les messages de sécurité vont maintenant à la nouvelle
            adresse, et celle-ci ne permet plus de se connecter avec un mot de passe.

            {ifYou}

            Si ce n'était pas vous, quelqu'un d'autre est connecté à votre compte : connectez-vous
            avec un autre moyen que vous utilisez (Google, Apple ou une clé d'accès), déconnectez tous
            les appareils et remettez cette adresse dans les réglages du compte de l'app, ou écrivez à
            l'assistance de l'app.
            """,
        addressChangeBegunSubject: "Un changement d'adresse e-mail a été demandé pour votre compte",
        addressChangeBegunText: """
            Le {when}, une personne connectée à votre compte a demandé à remplacer cette adresse par
            une autre. Un code a été envoyé à l'autre adresse. Le changement ne se fait que si ce code
            y est saisi dans les quelques minutes qui suivent.

            {ifYou}

            Si ce n'était pas vous, quelqu'un d'autre est connecté à votre compte : déconnectez tous
            les appareils dans les réglages du compte de l'app, ou {reset}. Dans les deux cas, le
            changement n'a pas lieu.
            """,
        providerLinkedSubject: "La connexion avec {provider} a été ajoutée à votre compte",
        providerLinkedText: """
            Un compte {provider} a été lié à votre compte le {when} : on peut maintenant aussi s'y
            connecter avec ce compte {provider}.

            {ifYou}

            Si ce n'était pas vous, quelqu'un d'autre est connecté à votre compte : déconnectez tous
            les appareils dans les réglages du compte de l'app, ou {reset}. Dans les deux cas, cette
            connexion est de nouveau retirée.
            """,
        providerUnlinkedSubject: "La connexion avec {provider} a été retirée de votre compte",
        providerUnlinkedText: """
            La connexion avec {provider} a été retirée de votre compte le {when} : on ne peut plus s'y
            connecter avec ce compte {provider}.

            {ifYou}

            Si ce n'était pas vous, quelqu'un d'autre est connecté à votre compte : {reset}.
            {checkWaysIn}
            """,
        passkeyRemovedSubject: "Une clé d'accès a été retirée de votre compte",
        passkeyRemovedText: """
            Une clé d'accès de votre compte a été retirée le {when} : elle ne permet plus de se
            connecter à votre compte.

            {ifYou}

            Si ce n'était pas vous, quelqu'un d'autre est connecté à votre compte : {reset}.
            {checkWaysIn}
            """,
        passkeyAddedSubject: "Une clé d'accès a été ajoutée à votre compte",
        passkeyAddedText: """
            {what} a été ajoutée à votre compte le {when}, depuis {device}.
            Elle permet maintenant de se connecter à votre compte.

            {ifYou}

            Si ce n'était pas vous, quelqu'un d'autre est peut-être connecté à votre compte. Ouvrez
            l'app et déconnectez tous les appareils, ou réinitialisez votre mot de passe : dans les
            deux cas, toutes les clés d'accès ajoutées avant sont retirées, celle-ci comprise.
            Ensuite, reconnectez-vous et ajoutez de nouveau vos propres clés d'accès.
            """,
        passkeyNamed: "Une clé d'accès nommée « {name} »",
        passkeyUnnamed: "Une clé d'accès",
        deviceNamed: "un appareil connecté qui se présente sous le nom « {name} »",
        deviceUnnamed: "un appareil connecté qui n'a pas donné son nom",
        notMe: """
            Ce n'était pas vous ? Ce lien déconnecte tous les appareils connectés à votre compte et
            retire les moyens de connexion qu'ils ont ajoutés. Rien ne se passe tant que vous
            n'appuyez pas sur l'unique bouton de la page. Il ne fonctionne qu'une fois, jusqu'au
            {until} :
            {link}
            """)
}
