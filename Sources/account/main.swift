import Shared

Endpoint.main(name: "account", handler: AccountData.handle)
