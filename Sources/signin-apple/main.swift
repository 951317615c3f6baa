import Shared

Endpoint.main(name: "signin-apple", handler: AppleSignIn.handle)
