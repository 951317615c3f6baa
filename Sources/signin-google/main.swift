import Shared

Endpoint.main(name: "signin-google", handler: GoogleSignIn.handle)
