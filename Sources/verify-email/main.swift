import Shared

Endpoint.main(name: "verify-email", handler: VerifyEmail.handle)
