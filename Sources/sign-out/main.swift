import Shared

Endpoint.main(name: "sign-out", bodyOptional: true, handler: SignOut.handle)
