/// The server's rule for slips in an address's domain (Sources/Shared/Email/TypoDomains.swift),
/// over the same table (`TypoTable`, made from kits/web/typos.json); Tests/Vectors/typos holds
/// the verdicts the server, the web kit and this client all give.
enum TypoDomains {
    /// The domain the person most likely meant, or nil when `domain` (lower-cased) looks as intended.
    static func suggestion(for domain: String) -> String? {
        var fixed = domain
        if let dot = domain.lastIndex(of: "."), let tld = TypoTable.topLevelSlips[String(domain[domain.index(after: dot)...])] {
            fixed = String(domain[...dot]) + tld
        }
        if !TypoTable.providers.contains(fixed) && !TypoTable.realNeighbours.contains(fixed) {
            // Short names (aol.com, live.com) only by an exact top-level fix, not by a single edit.
            if let provider = TypoTable.providers.first(where: {
                $0.unicodeScalars.count >= TypoTable.editedProviderMinLength && isOneEditAway(fixed, $0)
            }) {
                fixed = provider
            }
        }
        return fixed == domain ? nil : fixed
    }

    /// Optimal string alignment distance of exactly one (a character added, dropped or changed,
    /// or two neighbours swapped), counted in Unicode code points.
    static func isOneEditAway(_ a: String, _ b: String) -> Bool {
        let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
        if x == y || abs(x.count - y.count) > 1 { return false }
        var i = 0
        while i < min(x.count, y.count) && x[i] == y[i] { i += 1 }
        if x.count == y.count {
            if x[(i + 1)...] == y[(i + 1)...] { return true }
            return i + 1 < x.count && x[i] == y[i + 1] && x[i + 1] == y[i] && x[(i + 2)...] == y[(i + 2)...]
        }
        return x.count > y.count ? x[(i + 1)...] == y[i...] : x[i...] == y[(i + 1)...]
    }
}
