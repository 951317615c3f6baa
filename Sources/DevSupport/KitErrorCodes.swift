import Shared

/// Every error code the server can give, for the tests that hold the web kit's table to it
/// (rule 21: each is one sentence): DESIGN.md's "Codes to keep stable", and every code of
/// `FrontdoorError`, so a code added to either without its sentence fails a test.
public enum KitErrorCodes {
    /// DESIGN.md, "The API": "Codes to keep stable" (with `proof_required` and the passkeys' own).
    public static let design = [
        "invalid_request", "invalid_ticket", "invalid_token", "invalid_credentials", "invalid_code", "unauthorized",
        "email_not_verified", "account_disabled", "method_not_allowed", "email_taken", "payload_too_large",
        "unsupported_media_type", "invalid_email", "invalid_password", "not_found", "too_many_passkeys",
        "reauthentication_required", "account_mismatch", "identity_taken", "provider_linked", "last_sign_in_method",
        "no_password", "password_exists", "rate_limited", "too_many_attempts", "upstream_unavailable", "internal",
        "proof_required", "credential_taken",
    ]

    /// The design's codes and `FrontdoorError.Code`'s, once each, in that order.
    public static var all: [String] {
        var codes = design
        for code in FrontdoorError.Code.allCases where !codes.contains(code.rawValue) { codes.append(code.rawValue) }
        return codes
    }
}
