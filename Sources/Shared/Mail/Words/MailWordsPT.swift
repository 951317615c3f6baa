extension MailWords {
    static let pt = MailWords(
        date: "{day} de {month} de {year} às {time} UTC",
        months: ["janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro",
                 "novembro", "dezembro"],
        codeSubject: "Seu código",
        codeText: """
            Seu código {purpose} é {code}

            Ele expira em 10 minutos. Se você não pediu este código, pode ignorar este e-mail.
            """,
        purposeConfirmAddress: "para confirmar seu endereço de e-mail",
        purposeConfirmNewAddress: "para confirmar seu novo endereço de e-mail",
        purposeNewPassword: "para escolher uma nova senha",
        resetAdvice: """
            escolha agora uma nova senha em “Esqueceu a senha?”, na tela de entrada do app, o que
            desconecta todos os dispositivos
            """,
        ifYou: "Se foi você, não é preciso fazer nada.",
        checkWaysIn: "Depois, confira as formas de entrar nas configurações da conta no app.",
        passwordChangedSubject: "Sua senha foi alterada",
        passwordChangedText: """
            A senha da sua conta foi alterada em {when}. Todos os outros dispositivos conectados à sua
            conta foram desconectados.

            {ifYou}

            Se não foi você, outra pessoa sabe sua senha ou está conectada à sua conta: {reset}.
            {checkWaysIn}
            """,
        passwordSetSubject: "Uma senha foi adicionada à sua conta",
        passwordSetText: """
            Uma senha foi adicionada à sua conta em {when}: agora também é possível entrar com este
            endereço de e-mail e essa senha.

            {ifYou}

            Se não foi você, outra pessoa está conectada à sua conta: {reset}. {checkWaysIn}
            """,
        passwordRemovedSubject: "A senha da sua conta foi removida",
        passwordRemovedText: """
            A senha da sua conta foi removida em {when}: não é mais possível entrar com este endereço
            de e-mail e uma senha.

            {ifYou}

            Se não foi você, outra pessoa está conectada à sua conta: {reset}. {checkWaysIn}
            """,
        addressChangedSubject: "O endereço de e-mail da sua conta foi alterado",
        addressChangedText: """
            O endereço de e-mail da sua conta foi alterado em {when}: este endereço foi trocado por
            outro. Os códigos e os avisos de segurança agora vão para o novo endereço, e com este não
            é mais possível entrar usando uma senha.

            {ifYou}

            Se não foi você, outra pessoa está conectada à sua conta: entre de outra forma que você
            usa (Google, Apple ou uma chave de acesso), desconecte todos os dispositivos e volte a
            colocar este endereço nas configurações da conta no app, ou escreva para o suporte do app.
            """,
        addressChangeBegunSubject: "Foi pedida a troca do endereço de e-mail da sua conta",
        addressChangeBegunText: """
            Em {when}, alguém conectado à sua conta pediu para trocar este endereço de e-mail por
            outro. Um código foi enviado para o outro endereço. A troca só acontece se esse código for
            digitado lá nos próximos minutos.

            {ifYou}

            Se não foi você, outra pessoa está conectada à sua conta: desconecte todos os dispositivos
            nas configurações da conta no app, ou {reset}. Qualquer uma das duas coisas impede a
            troca.
            """,
        providerLinkedSubject: "O acesso com {provider} foi adicionado à sua conta",
        providerLinkedText: """
            Uma conta {provider} foi vinculada à sua conta em {when}: agora também é possível entrar
            com essa conta {provider}.

            {ifYou}

            Se não foi você, outra pessoa está conectada à sua conta: desconecte todos os dispositivos
            nas configurações da conta no app, ou {reset}. Qualquer uma das duas coisas remove de novo
            essa forma de entrar.
            """,
        providerUnlinkedSubject: "O acesso com {provider} foi removido da sua conta",
        providerUnlinkedText: """
            O acesso com {provider} foi removido da sua conta em {when}: não é mais possível entrar
            com essa conta {provider}.

            {ifYou}

            Se não foi você, outra pessoa está conectada à sua conta: {reset}. {checkWaysIn}
            """,
        passkeyRemovedSubject: "Uma chave de acesso foi removida da sua conta",
        passkeyRemovedText: """
            Uma chave de acesso da sua conta foi removida em {when}: ela não serve mais para entrar na
            sua conta.

            {ifYou}

            Se não foi você, outra pessoa está conectada à sua conta: {reset}. {checkWaysIn}
            """,
        passkeyAddedSubject: "Uma chave de acesso foi adicionada à sua conta",
        passkeyAddedText: """
            {what} foi adicionada à sua conta em {when}, a partir de {device}.
            Agora ela pode ser usada para entrar na sua conta.

            {ifYou}

            Se não foi você, talvez outra pessoa esteja conectada à sua conta. Abra o app e desconecte
            todos os dispositivos, ou redefina sua senha: qualquer uma das duas coisas remove todas as
            chaves de acesso adicionadas antes, inclusive esta. Depois, entre de novo e adicione outra
            vez suas próprias chaves de acesso.
            """,
        passkeyNamed: "Uma chave de acesso chamada “{name}”",
        passkeyUnnamed: "Uma chave de acesso",
        deviceNamed: "um dispositivo conectado que se identifica como “{name}”",
        deviceUnnamed: "um dispositivo conectado que não informou o nome",
        notMe: """
            Não foi você? Este link desconecta todos os dispositivos conectados à sua conta e remove
            as formas de entrar que foram adicionadas por eles. Nada acontece até você apertar o único
            botão da página. O link funciona uma vez só, até {until}:
            {link}
            """)
}
