import Shared

Endpoint.main(name: "signin-passkey", handler: PasskeySignIn.handle)
