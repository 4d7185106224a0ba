import Foundation

/// The pure parts of offset paging, kept apart from I/O so they can be tested alone: which pages
/// to ask for, how many requests to keep in flight, how long to back off.

/// The pages of a paged endpoint once the first page has told its `total`. Spotify's paged
/// endpoints (`/playlists/{id}/items`, `/me/playlists`, `/me/tracks`) give at most 50 per page.
/// We page by offset ourselves: the `next` links of `/me/playlists` name a removed endpoint.
public struct PagePlan: Sendable, Equatable {
    public static let pageSize = 50
    /// More than this is a broken answer, not a library: playlists hold at most 10,000 items and
    /// `/me/playlists` offsets stop at 100,000. Checked before any arithmetic on `total`.
    public static let maxTotal = 1_000_000

    public let total: Int
    public let pageSize: Int

    /// nil when `total` is not a count we can page through (negative or absurd).
    public init?(total: Int, pageSize: Int = PagePlan.pageSize) {
        guard (0...Self.maxTotal).contains(total), pageSize > 0 else { return nil }
        self.total = total
        self.pageSize = pageSize
    }

    /// How many pages hold `total` items (0 for an empty list; the first page is still fetched).
    public var pageCount: Int { (total + pageSize - 1) / pageSize }

    /// The offsets after the first page, in order.
    public var remainingOffsets: [Int] {
        total > pageSize ? Array(stride(from: pageSize, to: total, by: pageSize)) : []
    }

    /// How many items the page at `offset` must hold while `total` stays what it was.
    public func expectedCount(at offset: Int) -> Int {
        max(0, min(pageSize, total - offset))
    }
}

/// How many page requests may be in flight. It starts at 4 and, until Spotify first answers 429,
/// doubles with each clean answer up to 8 (slow start: the first page, alone on the wire while
/// `total` is unknown, is enough to reach 8 for the rest; growing one at a time instead cost a
/// whole round trip per list). A 429 halves it; after that it grows by one only after as many
/// clean answers in a row as it then allows, so a rate limit is not run into again at once. A
/// fixed size (`--concurrency N`) never grows, but still halves when Spotify pushes back.
public struct ConcurrencyWindow: Sendable, Equatable {
    public static let initial = 4
    public static let ceiling = 8

    public private(set) var size: Int
    public let maximum: Int
    private var cleanStreak = 0
    private var wasRateLimited = false

    /// `fixed` nil: adaptive from 4 up to 8. Otherwise clamped to 1...8 and never grown.
    public init(fixed: Int? = nil) {
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
    public mutating func recordClean() {
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
    public mutating func recordRateLimited() {
        size = max(1, size / 2)
        cleanStreak = 0
        wasRateLimited = true
    }
}

/// How often and how long a request is retried after a transient failure (5xx, a reset or timed-out
/// connection, a truncated or unreadable body) and how many 429s it sits out.
public struct RetryPolicy: Sendable, Equatable {
    /// Tries in all for transient failures, the first one included.
    public var maxAttempts: Int
    /// The first backoff, in seconds; each later one doubles, up to `maxDelay`.
    public var baseDelay: Double
    public var maxDelay: Double
    /// 429 answers sat out per request before giving up (exit 75).
    public var maxRateLimitWaits: Int

    public init(maxAttempts: Int = 5, baseDelay: Double = 0.25, maxDelay: Double = 8, maxRateLimitWaits: Int = 6) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
        self.maxRateLimitWaits = max(0, maxRateLimitWaits)
    }

    /// The wait after failed try number `attempt` (1-based): exponential, capped, with jitter that
    /// keeps it between half and all of that, so parallel requests that failed together spread out.
    /// `random` is in 0..<1.
    public func backoff(afterAttempt attempt: Int, random: Double) -> Double {
        let exponent = Double(min(max(attempt, 1), 30) - 1)
        let full = min(maxDelay, baseDelay * pow2(exponent))
        let unit = min(max(random, 0), 1)
        return full / 2 + full / 2 * unit
    }

    private func pow2(_ exponent: Double) -> Double {
        var result = 1.0
        for _ in 0..<Int(exponent) { result *= 2 }
        return result
    }

    /// How long a 429 asks us to wait: its `Retry-After` seconds (`SpotifyWebAPI.retryAfterSeconds`)
    /// when it had a usable one, else a backoff.
    public func rateLimitWait(retryAfter seconds: Double?, attempt: Int, random: Double) -> Double {
        seconds ?? backoff(afterAttempt: attempt, random: random)
    }
}

/// "10,000": counts in progress lines and tables.
public func groupedThousands(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var out = ""
    for (index, character) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
        out.append(character)
    }
    return value < 0 ? "-" + out : out
}
