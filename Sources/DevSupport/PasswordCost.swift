#if canImport(Glibc)
import Glibc
#endif
import Shared

/// `frontdoor-dev password-cost --list PATH`, for `make bench`: what rule 19's checks made on the
/// box add to an accepted password being set, against the Argon2id hash it costs anyway. Each
/// check maps the list afresh, as every process does; the page cache is warm, as on a box that
/// sets passwords. Medians; the pages a check touches are the minor faults of mapping the list and
/// looking one password up (`getrusage`).
public enum PasswordCost {
    public struct Figures: Sendable {
        /// Mapping the list and one look-up, µs.
        public let openAndLookUp: Double
        /// The whole check an accepted passphrase passes (the list mapped, the look-ups, runs and
        /// words), µs.
        public let check: Double
        /// Argon2id at the floor cost (19 MiB, 2 passes), ms.
        public let hash: Double
        /// Minor page faults per mapping and look-up.
        public let faults: Double
    }

    public static func measure(listPath: String, rounds: Int = 201, hashes: Int = 21) throws -> Figures {
        let rules = Config.Passwords(listFile: listPath)
        let context = PasswordPolicy.Context(email: "ada.lovelace@example.org")
        let accepted = "correct horse battery staple 42"
        var lookUps: [Double] = [], checks: [Double] = [], faults: [Double] = []
        for _ in 0..<rounds {
            let before = minorFaults()
            let started = Clock.monotonicMillis()
            let list = try PasswordList(path: listPath)
            _ = list.contains(PasswordKey.fold(accepted))
            lookUps.append((Clock.monotonicMillis() - started) * 1000)
            faults.append(Double(minorFaults() - before))
            let checking = Clock.monotonicMillis()
            let verdict = PasswordPolicy.verdict(accepted, context: context, rules: rules, list: try PasswordList(path: listPath))
            checks.append((Clock.monotonicMillis() - checking) * 1000)
            if let verdict { throw FrontdoorError.internal("password-cost: the passphrase was refused: \(verdict)") }
        }
        var hashing: [Double] = []
        for _ in 0..<hashes {
            let started = Clock.monotonicMillis()
            _ = try PasswordHasher.hash(accepted, cost: .minimum)
            hashing.append(Clock.monotonicMillis() - started)
        }
        return Figures(
            openAndLookUp: HintCost.median(lookUps), check: HintCost.median(checks), hash: HintCost.median(hashing),
            faults: HintCost.median(faults))
    }

    static func minorFaults() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return usage.ru_minflt
    }
}
