// Fit mode: how many songs fill a target time ("15 minutes is 4.5 songs").

/// Walks tracks in order until their durations fill a target window.
///
/// Streaming, O(1) memory: the caller feeds durations one by one and stops when `add` returns
/// true. The answer uses the *average* duration of the tracks needed, so "15 minutes of this
/// playlist" reads as 4.5 songs rather than "5 tracks, the last one cut short".
package struct SongFit: Sendable {
    /// The window to fill, in milliseconds.
    package let targetMs: Int
    /// Tracks added so far: once filled, the number of tracks needed to fill the window.
    package private(set) var trackCount: Int = 0
    /// Sum of the durations added so far.
    package private(set) var totalDurationMs: Int = 0

    /// - Parameter targetMs: the window, > 0 (the caller validates; a non-positive target is
    ///   filled from the start).
    package init(targetMs: Int) {
        self.targetMs = targetMs
    }

    /// True once the tracks added reach the target.
    var isFilled: Bool { totalDurationMs >= targetMs }

    /// Adds the next track in order; returns true once the window is full (caller stops then).
    ///
    /// Adding after the window is full is ignored (returns true) rather than trapping, and so
    /// is a duration ≤ 0 (returns `isFilled`): neither can corrupt the average.
    @discardableResult
    package mutating func add(durationMs: Int) -> Bool {
        guard !isFilled else { return true }
        guard durationMs > 0 else { return false }
        trackCount += 1
        totalDurationMs = saturatingAdd(totalDurationMs, durationMs)
        return isFilled
    }

    /// target ÷ average duration of the tracks needed. When the input ran out first, the songs
    /// it holds: extrapolating ("24 songs" for a 4-track playlist and 90 minutes) would answer a
    /// question the input cannot.
    package var songs: Double {
        guard trackCount > 0, totalDurationMs > 0 else { return 0 }
        guard isFilled else { return Double(trackCount) }
        return Double(targetMs) * Double(trackCount) / Double(totalDurationMs)
    }

    /// How much time the input lacked when it ran out before the target; nil when filled.
    package var shortByMs: Int? {
        isFilled ? nil : targetMs - totalDurationMs
    }
}
