// Arithmetic on numbers that come from input, files and servers (progress, durations, expiry
// times, Retry-After): it saturates instead of trapping, because an absurd value must never
// crash a tool (a trap is a signal exit). Pure.

extension Int {
    /// The Int nearest to `value` (truncated toward zero), saturating at `Int.min`/`Int.max`;
    /// NaN gives 0. Unlike `Int(_:)`, never traps.
    package init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= 9_223_372_036_854_775_808.0 {  // 2^63: the first Double above Int.max
            self = .max
        } else if value <= -9_223_372_036_854_775_808.0 {
            self = .min
        } else {
            self = Int(value)
        }
    }
}

/// a + b, stopping at `Int.max`/`Int.min` instead of trapping.
package func saturatingAdd(_ a: Int, _ b: Int) -> Int {
    let (sum, overflow) = a.addingReportingOverflow(b)
    guard overflow else { return sum }
    return b > 0 ? .max : .min
}

/// a - b, stopping at `Int.max`/`Int.min` instead of trapping.
func saturatingSubtract(_ a: Int, _ b: Int) -> Int {
    let (difference, overflow) = a.subtractingReportingOverflow(b)
    guard overflow else { return difference }
    return b < 0 ? .max : .min
}

/// `value` limited to `range`; NaN gives the lower bound.
package func clamped(_ value: Double, to range: ClosedRange<Double>) -> Double {
    guard !value.isNaN else { return range.lowerBound }
    return min(max(value, range.lowerBound), range.upperBound)
}
