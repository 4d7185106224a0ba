import Foundation
import LoopbackHTTP
import ToolkitCore

/// Spotify's rate limit as it is documented: a count of an app's Web API requests over a rolling
/// 30-second window, the limit itself unpublished (developer.spotify.com/documentation/web-api/
/// concepts/rate-limits). `--rate-window 180/30s` or `POST /_fake/library rate_window=180/30s`:
/// at most 180 requests admitted in any 30 s; beyond that a request gets 429
/// `{"error":{"status":429,"message":"API rate limit exceeded"}}` with `Retry-After` the whole
/// seconds until the oldest admitted request leaves the window (at least 1). Refused requests are
/// not counted against the window; `GET /_fake/counters` reports them as `rate_limited`.
struct RateWindow: Sendable, Equatable {
    /// Requests admitted per window.
    var limit: Int
    /// The window, in milliseconds.
    var windowMs: Int

    init(limit: Int, windowMs: Int) {
        self.limit = limit
        self.windowMs = windowMs
    }

    /// `N/DURATION`, e.g. `180/30s` or `180/3s`: N from 1 to 1,000,000, the window up to 1 h.
    init(parsing text: String) throws {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let limit = Int(parts[0].trimmingCharacters(in: .whitespaces)),
            (1...1_000_000).contains(limit)
        else {
            throw ControlError(
                "rate_window must be N/DURATION with N from 1 to 1000000, such as 180/30s, not '\(text)'")
        }
        let windowMs: Int
        do {
            windowMs = try parseDuration(String(parts[1]))
        } catch {
            throw ControlError("rate_window's window must be a duration such as 30s or 3s, not '\(parts[1])'")
        }
        guard (1...3_600_000).contains(windowMs) else {
            throw ControlError("rate_window's window must be from 1 ms to 1 h, not '\(parts[1])'")
        }
        self.init(limit: limit, windowMs: windowMs)
    }

    /// `180/30s` (or `5/1.5s`), as the settings answer it.
    var text: String {
        windowMs % 1000 == 0 ? "\(limit)/\(windowMs / 1000)s" : "\(limit)/\(Double(windowMs) / 1000)s"
    }
}

/// Pure: the sliding log of one `RateWindow`, on a clock in seconds that the caller passes in.
struct RollingRateLimit: Sendable, Equatable {
    let window: RateWindow
    /// When each admitted request still in the window arrived, oldest first.
    private(set) var admitted: [Double] = []

    init(_ window: RateWindow) {
        self.window = window
    }

    /// A request arrives at `now`: nil when it is admitted (and counted), else the Retry-After to
    /// answer, in whole seconds until the oldest admitted request leaves the window (at least 1).
    mutating func admit(now: Double) -> Int? {
        let length = Double(window.windowMs) / 1000
        if let stale = admitted.firstIndex(where: { $0 > now - length }) {
            admitted.removeFirst(stale)
        } else {
            admitted.removeAll()
        }
        guard admitted.count >= window.limit else {
            admitted.append(now)
            return nil
        }
        return max(1, Int((admitted[0] + length - now).rounded(.up)))
    }
}

extension FakeSpotifyState {
    /// The rolling rate limit's verdict for a Web API request arriving now: nil admitted (or no
    /// limit set), else the Retry-After of its 429 (counted as `rate_limited`).
    mutating func rateLimitVerdict(path: String, now: Double) -> Int? {
        guard path.hasPrefix("/v1/"), let window = settings.library.rateWindow else {
            rateLimit = nil
            return nil
        }
        if rateLimit?.window != window { rateLimit = RollingRateLimit(window) }
        let verdict = rateLimit!.admit(now: now)
        if verdict != nil { counters.rateLimited += 1 }
        return verdict
    }

    /// A Web API request arrives at `now`: counted in `sent_during_retry_after` when a 429's
    /// Retry-After is still running (the client had been told to wait).
    mutating func noteArrival(path: String, now: Double) {
        if path.hasPrefix("/v1/"), let until = toldToWaitUntil, now < until { counters.sentDuringRetryAfter += 1 }
    }

    /// A 429 goes out at `now` telling its client to wait `Retry-After` seconds.
    mutating func noteAnswer(_ response: HTTPResponse, now: Double) {
        guard response.status == 429,
            let text = response.headers.first(where: { $0.name.lowercased() == "retry-after" })?.value,
            let seconds = Double(text), seconds.isFinite, seconds > 0
        else { return }
        toldToWaitUntil = max(toldToWaitUntil ?? 0, now + min(seconds, 86_400))
    }

    /// Seconds on a monotonic clock, for the rate window (not moved by `advance-clock`).
    static func monotonicSeconds() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }
}
