import Shared

Endpoint.main(name: "signin-email", handler: EmailSignIn.handle)
