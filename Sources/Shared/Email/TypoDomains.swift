/// The slips everyone makes in an address's domain, caught as the form catches them.
///
/// Two steps: a top-level label that is a known slip (`.con`, `.cmo`, …) is put right; then a
/// domain one edit (a letter added, dropped, changed, or two neighbours swapped) away from a big
/// mail provider becomes that provider, unless it is itself a real mail domain.
enum TypoDomains {
    static let topLevelSlips: [String: String] = [
        "con": "com", "cmo": "com", "ocm": "com", "vom": "com", "xom": "com", "cpm": "com", "coom": "com",
        "comm": "com", "colm": "com", "nte": "net", "nett": "net", "ogr": "org", "orgg": "org",
    ]

    /// Where most people's mail is; only names long enough that one edit is unlikely to be meant.
    static let providers = [
        "gmail.com", "googlemail.com", "hotmail.com", "outlook.com", "yahoo.com", "icloud.com",
        "hotmail.co.uk", "yahoo.co.uk", "live.com", "aol.com", "proton.me", "protonmail.com",
    ]

    /// Real mail domains within one edit of a provider above: never "corrected".
    static let realNeighbours: Set<String> = [
        "mail.com", "email.com", "ymail.com", "gmx.com", "live.co", "love.com", "aim.com", "aol.de",
        "hotmail.de", "hotmail.fr", "hotmail.it", "hotmail.es", "yahoo.de", "yahoo.fr", "yahoo.es", "yahoo.it",
        "yahoo.ca", "yahoo.in", "yahoo.cn", "yahoo.co.in", "outlook.de", "outlook.fr", "outlook.es", "outlook.it",
        "icloud.de", "live.de", "live.fr", "live.it", "live.nl", "live.ca", "msn.com", "proton.ch",
    ]

    /// The domain the person most likely meant, or nil when `domain` looks as intended.
    static func suggestion(for domain: String) -> String? {
        var fixed = domain
        if let dot = domain.lastIndex(of: "."), let tld = topLevelSlips[String(domain[domain.index(after: dot)...])] {
            fixed = String(domain[...dot]) + tld
        }
        if !providers.contains(fixed) && !realNeighbours.contains(fixed) {
            // Short names (aol.com, live.com) only by an exact top-level fix, not by a single edit.
            if let provider = providers.first(where: { $0.count >= 8 && isOneEditAway(fixed, $0) }) {
                fixed = provider
            }
        }
        return fixed == domain ? nil : fixed
    }

    /// Optimal string alignment distance of at most one (Damerau–Levenshtein, one operation).
    static func isOneEditAway(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        if x == y { return false }
        if abs(x.count - y.count) > 1 { return false }
        var i = 0
        while i < min(x.count, y.count) && x[i] == y[i] { i += 1 }
        if x.count == y.count {
            if x[(i + 1)...] == y[(i + 1)...] { return true }
            return i + 1 < x.count && x[i] == y[i + 1] && x[i + 1] == y[i] && x[(i + 2)...] == y[(i + 2)...]
        }
        return x.count > y.count ? x[(i + 1)...] == y[i...] : x[i...] == y[(i + 1)...]
    }
}
