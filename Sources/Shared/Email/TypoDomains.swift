/// The slips everyone makes in an address's domain, caught as the form catches them.
///
/// Two steps: a top-level label that is a known slip (`.con`, `.cmo`, …) is put right; then a
/// domain one edit (a character added, dropped, changed, or two neighbours swapped) away from a
/// big mail provider becomes that provider, unless it is itself a real mail domain. The data is
/// `TypoTable`, made from kits/web/typos.json, which the web kit and the Swift client read too;
/// Tests/Vectors/typos/vectors.json holds the verdicts all three must give.
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

    /// Optimal string alignment distance of at most one (Damerau–Levenshtein, one operation),
    /// counted in Unicode code points, as JavaScript's `Array.from` and Swift's scalars count them.
    static func isOneEditAway(_ a: String, _ b: String) -> Bool {
        let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
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
