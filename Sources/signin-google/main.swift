import Shared

// A lost commit here costs a person one more sign-in: no fsync per sign-in (see Database.Durability).
Endpoint.main(name: "signin-google", durability: .crashSafe, handler: GoogleSignIn.handle)
