import Shared

// The check behind every protected request of the app: any method, no body read, a renewal's lost
// commit only costs an earlier expiry (see Database.Durability), and no pruning on this hot path.
Endpoint.main(
    name: "session", readsBody: false, durability: .crashSafe, housekeeping: false, handler: SessionCheck.handle)
