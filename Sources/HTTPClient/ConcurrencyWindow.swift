/// Pure, like PagePlan and RetryPolicy: tested alone.
/// How many page requests may be in flight. It starts at 4 and, until Spotify first answers 429,
/// doubles with each clean answer up to 8 (slow start: the first page, alone on the wire while
/// `total` is unknown, is enough to reach 8 for the rest; growing one at a time instead cost a
/// whole round trip per list). A 429 halves it; after that it grows by one only after as many
/// clean answers in a row as it then allows, so a rate limit is not run into again at once. A
/// fixed size (`--concurrency N`) never grows, but still halves when Spotify pushes back.
package struct ConcurrencyWindow: Sendable, Equatable {
    package static let initial = 4
    package static let ceiling = 8

    package private(set) var size: Int
    package let maximum: Int
    private var cleanStreak = 0
    private var wasRateLimited = false

    /// `fixed` nil: adaptive from 4 up to 8. Otherwise clamped to 1...8 and never grown.
    package init(fixed: Int? = nil) {
        if let fixed {
            let clamped = min(max(fixed, 1), Self.ceiling)
            size = clamped
            maximum = clamped
        } else {
            size = Self.initial
            maximum = Self.ceiling
        }
    }

    /// An answer came back clean (2xx), without Spotify asking us to slow down.
    mutating func recordClean() {
        guard size < maximum else { return }
        guard wasRateLimited else {
            size = min(maximum, size * 2)
            return
        }
        cleanStreak += 1
        if cleanStreak >= size {
            size += 1
            cleanStreak = 0
        }
    }

    /// Spotify answered 429: halve, and start counting clean answers again.
    mutating func recordRateLimited() {
        size = max(1, size / 2)
        cleanStreak = 0
        wasRateLimited = true
    }
}
