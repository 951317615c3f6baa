import Shared

Endpoint.main(name: "passkey", handler: PasskeyEndpoint.handle)
