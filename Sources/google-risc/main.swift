import Shared

// Google's POST of a raw Security Event Token (RFC 8935): the body is the JWT, not JSON.
Endpoint.main(name: "google-risc", rawBody: true, handler: GoogleRISC.handle)
