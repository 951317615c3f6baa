#if canImport(Glibc)
import Glibc
#endif
import Shared

/// SplitMix64: small, fast and the same everywhere, so a printed seed replays a run exactly.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// `FRONTDOOR_SEED` when set, else one from the clock; printed either way, under `label`.
    static func fromEnvironment(_ label: String) -> SeededRandom {
        let given = getenv("FRONTDOOR_SEED").flatMap { UInt64(String(cString: $0)) }
        let seed = given ?? UInt64(Clock.monotonicMillis() * 1000) ^ UInt64(Clock.now())
        print("\(label): seed \(seed) (FRONTDOOR_SEED=\(seed) replays it)")
        return SeededRandom(seed: seed)
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// An integer setting from the environment, or `fallback`.
func environmentInt(_ name: String, _ fallback: Int) -> Int {
    getenv(name).flatMap { Int(String(cString: $0)) } ?? fallback
}
