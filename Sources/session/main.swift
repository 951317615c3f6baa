import Shared

// The check behind every protected request of the app: any method, no body read, no bearer token
// refused before the config is read, only the config the check uses read, a renewal's lost commit
// costs only an earlier expiry (see Database.Durability), and no pruning on this hot path.
Endpoint.main(
    name: "session", readsBody: false, precheck: SessionCheck.precheck, configScope: .sessionCheck,
    durability: .crashSafe, housekeeping: false, handler: SessionCheck.handle)
