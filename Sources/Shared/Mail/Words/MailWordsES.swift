extension MailWords {
    static let es = MailWords(
        date: "{day} de {month} de {year} a las {time} UTC",
        months: ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre",
                 "noviembre", "diciembre"],
        codeSubject: "Su código",
        codeText: """
            Su código {purpose} es {code}

            Caduca en 10 minutos. Si no lo pidió, puede ignorar este correo.
            """,
        purposeConfirmAddress: "para confirmar su dirección de correo electrónico",
        purposeConfirmNewAddress: "para confirmar su nueva dirección de correo electrónico",
        purposeNewPassword: "para elegir una contraseña nueva",
        resetAdvice: """
            elija ahora una contraseña nueva con «Olvidé mi contraseña» en la pantalla de inicio de
            sesión de la app, y así se cierra la sesión en todos los dispositivos
            """,
        ifYou: "Si fue usted, no tiene que hacer nada.",
        checkWaysIn: "Después, revise sus formas de acceso en la configuración de la cuenta de la app.",
        passwordChangedSubject: "Se cambió su contraseña",
        passwordChangedText: """
            La contraseña de su cuenta se cambió el {when}. Se cerró la sesión en todos los demás
            dispositivos conectados a su cuenta.

            {ifYou}

            Si no fue usted, otra persona conoce su contraseña o tiene la sesión iniciada en su
            cuenta: {reset}. {checkWaysIn}
            """,
        passwordSetSubject: "Se añadió una contraseña a su cuenta",
        passwordSetText: """
            Se añadió una contraseña a su cuenta el {when}: ahora también se puede iniciar sesión con
            esta dirección de correo y esa contraseña.

            {ifYou}

            Si no fue usted, otra persona tiene la sesión iniciada en su cuenta: {reset}.
            {checkWaysIn}
            """,
        passwordRemovedSubject: "Se quitó la contraseña de su cuenta",
        passwordRemovedText: """
            Se quitó la contraseña de su cuenta el {when}: ya no se puede iniciar sesión con esta
            dirección de correo y una contraseña.

            {ifYou}

            Si no fue usted, otra persona tiene la sesión iniciada en su cuenta: {reset}.
            {checkWaysIn}
            """,
        addressChangedSubject: "Se cambió la dirección de correo de su cuenta",
        addressChangedText: """
            La dirección de correo de su cuenta se cambió el {when}: esta dirección se reemplazó por
            otra. Los códigos y los avisos de seguridad ahora van a la dirección nueva, y con esta ya
            no se puede iniciar sesión con contraseña.

            {ifYou}

            Si no fue usted, otra persona tiene la sesión iniciada en su cuenta: inicie sesión de otra
            forma que use (Google, Apple o una llave de acceso), cierre la sesión en todos los
            dispositivos y vuelva a poner esta dirección en la configuración de la cuenta de la app, o
            escriba al servicio de ayuda de la app.
            """,
        addressChangeBegunSubject: "Se pidió cambiar la dirección de correo de su cuenta",
        addressChangeBegunText: """
            El {when}, alguien con la sesión iniciada en su cuenta pidió cambiar esta dirección de
            correo por otra. Se envió un código a la otra dirección. El cambio solo se hace si ese
            código se escribe allí en los próximos minutos.

            {ifYou}

            Si no fue usted, otra persona tiene la sesión iniciada en su cuenta: en la configuración
            de la cuenta de la app, cierre la sesión en todos los dispositivos, o {reset}. Con
            cualquiera de las dos cosas, el cambio no se hace.
            """,
        providerLinkedSubject: "Se añadió el inicio de sesión con {provider} a su cuenta",
        providerLinkedText: """
            Se vinculó una cuenta de {provider} a su cuenta el {when}: ahora también se puede iniciar
            sesión con esa cuenta de {provider}.

            {ifYou}

            Si no fue usted, otra persona tiene la sesión iniciada en su cuenta: en la configuración
            de la cuenta de la app, cierre la sesión en todos los dispositivos, o {reset}. Con
            cualquiera de las dos cosas, se quita otra vez ese inicio de sesión.
            """,
        providerUnlinkedSubject: "Se quitó el inicio de sesión con {provider} de su cuenta",
        providerUnlinkedText: """
            Se quitó el inicio de sesión con {provider} de su cuenta el {when}: ya no se puede iniciar
            sesión con esa cuenta de {provider}.

            {ifYou}

            Si no fue usted, otra persona tiene la sesión iniciada en su cuenta: {reset}.
            {checkWaysIn}
            """,
        passkeyRemovedSubject: "Se quitó una llave de acceso de su cuenta",
        passkeyRemovedText: """
            Se quitó una llave de acceso de su cuenta el {when}: ya no sirve para iniciar sesión en su
            cuenta.

            {ifYou}

            Si no fue usted, otra persona tiene la sesión iniciada en su cuenta: {reset}.
            {checkWaysIn}
            """,
        passkeyAddedSubject: "Se añadió una llave de acceso a su cuenta",
        passkeyAddedText: """
            {what} se añadió a su cuenta el {when}, desde {device}.
            Ahora sirve para iniciar sesión en su cuenta.

            {ifYou}

            Si no fue usted, puede que otra persona tenga la sesión iniciada en su cuenta. Abra la app
            y cierre la sesión en todos los dispositivos, o restablezca su contraseña: con cualquiera
            de las dos cosas se quitan todas las llaves de acceso añadidas antes, también esta.
            Después, vuelva a iniciar sesión y añada de nuevo sus propias llaves de acceso.
            """,
        passkeyNamed: "Una llave de acceso llamada «{name}»",
        passkeyUnnamed: "Una llave de acceso",
        deviceNamed: "un dispositivo con la sesión iniciada que se identifica como «{name}»",
        deviceUnnamed: "un dispositivo con la sesión iniciada que no indicó su nombre",
        notMe: """
            ¿No fue usted? Este enlace cierra la sesión en todos los dispositivos conectados a su
            cuenta y quita las formas de acceso que se añadieron desde ellos. No pasa nada hasta que
            pulse el único botón de la página. Funciona una sola vez, hasta el {until}:
            {link}
            """)
}
