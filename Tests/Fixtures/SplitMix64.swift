// MARK: - SplitMix64

/// A small, seedable generator, so that random tests give the same values in every run and a
/// stress run can be replayed from its printed seed.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator whose values follow from `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next value.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound` (`0` when `bound` is not positive).
    public mutating func next(upTo bound: Int) -> Int {
        Int(next() % UInt64(max(bound, 1)))
    }
}
