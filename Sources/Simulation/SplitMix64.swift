/// SplitMix64 (Steele, Lea and Flood): a tiny seeded generator, so a run's schedule (each
/// operation, victim and delay, each fault of the simulated network) comes again from its seed.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `range`.
    public mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }

    /// Picks by weight: `choices` are (value, weight) pairs, weights above zero.
    public mutating func weighted<T>(_ choices: [(T, Int)]) -> T {
        var roll = int(0...(choices.reduce(0) { $0 + $1.1 } - 1))
        for (value, weight) in choices {
            if roll < weight { return value }
            roll -= weight
        }
        return choices[choices.count - 1].0
    }
}

extension SplitMix64 {
    /// True one time in `odds` (never for `odds` below 1).
    public mutating func oneIn(_ odds: Int) -> Bool { odds >= 1 && int(0...(odds - 1)) == 0 }
}
