import Foundation

/// The check of an address as it is typed (DESIGN rule 21): the same slips the server catches,
/// so the form can say "Did you mean ada@gmail.com?" before anything is sent.
///
/// The format check here is looser than the server's, never stricter: it refuses only what the
/// server refuses too (no single `@`, an empty local part, a domain without two non-empty
/// labels, a top-level label under two bytes, white space or a control character inside), so the
/// form never blocks an address the server would take. The server's answer (`invalidEmail`) stays
/// the authority.
public enum AddressCheck {
    /// The address the person most likely meant (the local part as typed, the domain corrected
    /// and lower-cased), or nil when it looks as intended or does not look like an address.
    public static func suggestion(for typed: String) -> String? {
        guard let (local, domain) = parts(typed), let better = TypoDomains.suggestion(for: domain) else { return nil }
        return local + "@" + better
    }

    /// Whether `typed` passes the client's loose format check (see above).
    public static func looksLikeAddress(_ typed: String) -> Bool { parts(typed) != nil }

    /// The trimmed local part and the domain lower-cased in NFC, as the server keys them.
    static func parts(_ typed: String) -> (String, String)? {
        let scalars = typed.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return nil }
        let trimmed = scalars[first...last]
        guard !trimmed.contains(where: isSpaceOrControl) else { return nil }
        let halves = trimmed.split(separator: "@", omittingEmptySubsequences: false)
        guard halves.count == 2, !halves[0].isEmpty else { return nil }
        let local = String(String.UnicodeScalarView(halves[0]))
        let domain = String(String.UnicodeScalarView(halves[1])).lowercased().precomposedStringWithCanonicalMapping
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty }), let top = labels.last, top.utf8.count >= 2 else {
            return nil
        }
        return (local, domain)
    }

    private static func isSpaceOrControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x21 || (0x7F...0x9F).contains(scalar.value) || scalar.properties.isWhitespace
    }
}
