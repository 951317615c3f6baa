/// Rule 3 of DESIGN.md: addresses match case-insensitively on the whole address after trimming.
public enum EmailAddress {
    /// The form stored beside the account for matching, unique across accounts.
    public static func matchKey(_ address: String) -> String {
        address.trimmingWhitespace().lowercased()
    }
}
