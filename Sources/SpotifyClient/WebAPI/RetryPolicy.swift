#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Pure: which tries to make and how long to back off, tested alone.
/// How often and how long a request is retried after a transient failure (5xx, a reset or timed-out
/// connection, a truncated or unreadable body) and how many 429s it sits out.
package struct RetryPolicy: Sendable, Equatable {
    /// Tries in all for transient failures, the first one included.
    var maxAttempts: Int
    /// The first backoff, in seconds; each later one doubles, up to `maxDelay`.
    var baseDelay: Double
    var maxDelay: Double
    /// 429 answers sat out per request before giving up (exit 75).
    var maxRateLimitWaits: Int

    package init(maxAttempts: Int = 5, baseDelay: Double = 0.25, maxDelay: Double = 8, maxRateLimitWaits: Int = 6) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
        self.maxRateLimitWaits = max(0, maxRateLimitWaits)
    }

    /// The wait after failed try number `attempt` (1-based): exponential, capped, with jitter that
    /// keeps it between half and all of that, so parallel requests that failed together spread out.
    /// `random` is in 0..<1.
    package func backoff(afterAttempt attempt: Int, random: Double) -> Double {
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
    func rateLimitWait(retryAfter seconds: Double?, attempt: Int, random: Double) -> Double {
        seconds ?? backoff(afterAttempt: attempt, random: random)
    }

    /// How long a whole run holds every request after this answer (`InFlightLimit`'s pause), or
    /// nil: only a rate-limit 429 with a usable `Retry-After` within the wait cap. Without one
    /// each request backs off on its own and the window halves; a quota (`QUOTA_EXCEEDED`) or a
    /// wait over the cap ends the run (69, 75), and holding everything back would only delay that.
    static func runPause(status: Int, retryAfter: Double?, reason: String?, cap: Double) -> Double? {
        guard status == 429, reason != "QUOTA_EXCEEDED", let retryAfter, retryAfter <= cap else { return nil }
        return retryAfter
    }
}
