import Shared

Endpoint.main(name: "delete-account", bodyOptional: true, handler: AccountDeletion.handle)
