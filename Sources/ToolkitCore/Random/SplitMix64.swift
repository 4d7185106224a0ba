/// A small seeded generator (Steele, Lea and Flood's SplitMix64): the same numbers on every
/// platform, unlike the standard library's seedless one. fake-spotify's generated library and
/// fault rates, and the tests that must replay a failing run, use it.
package struct SplitMix64: RandomNumberGenerator, Sendable, Equatable {
    package var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `range`. Modulo bias is irrelevant for ranges this small against 2^64.
    package mutating func next(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// A number in [0, 1), from the top 53 bits.
    package mutating func nextUnit() -> Double {
        Double(next() >> 11) / Double(UInt64(1) << 53)
    }
}
