/// The transports a registration reports (`getTransports()`), kept for `allowCredentials` hints.
public enum PasskeyTransports {
    /// L3's `AuthenticatorTransport` values. Clients must ignore unknown ones, and so do we:
    /// nothing else the sender wrote is stored.
    public static let known = ["usb", "nfc", "ble", "smart-card", "hybrid", "internal"]

    /// The known values among `sent`, in their first order, each once.
    public static func kept(_ sent: [String]) -> [String] {
        var out: [String] = []
        for name in sent where known.contains(name) && !out.contains(name) { out.append(name) }
        return out
    }
}
