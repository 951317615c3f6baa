import COpenSSL

/// OpenSSL, initialised once per process without reading `openssl.cnf` (DESIGN.md field notes).
/// Everything in frontdoor that calls OpenSSL goes through `start()` first.
public enum OpenSSLRuntime {
    // A global `let` is initialised once, thread-safely, on first use.
    private static let started: Bool = frontdoor_openssl_init() == 1

    /// False only when OpenSSL could not initialise (no memory); callers then fail closed.
    public static func start() -> Bool { started }

    /// Drops queued OpenSSL errors after a failure we report our own way, so they cannot pile up
    /// or be misread by a later caller.
    /// Starts the runtime first: ERR_clear_error would otherwise initialise OpenSSL with its
    /// defaults, error strings included.
    static func clearErrors() {
        guard start() else { return }
        ERR_clear_error()
    }
}
