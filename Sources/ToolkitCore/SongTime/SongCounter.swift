// Count mode: how many songs a listening log (or a plain track list) got through.

/// One record of the input: a track, or a now-playing snapshot with its position.
package struct SongObservation: Sendable, Equatable {
    /// The song's identity: id, else uri; nil = unknown, every record is its own song.
    package var key: String?
    /// The song's full length, > 0. Observations with a duration ≤ 0 are ignored.
    package var durationMs: Int
    /// Position within the song: now-playing records have it; plain track records don't.
    package var progressMs: Int?
    /// false for a paused observation: it adds no listening time and no song on its own, but
    /// its position still tells how far the current play got before the pause.
    package var isPlaying: Bool

    package init(key: String?, durationMs: Int, progressMs: Int? = nil, isPlaying: Bool = true) {
        self.key = key
        self.durationMs = durationMs
        self.progressMs = progressMs
        self.isPlaying = isPlaying
    }
}

/// What a `SongCounter` has counted so far.
package struct SongCountResult: Sendable, Equatable {
    /// Songs (plays) seen.
    package var trackCount: Int
    /// Fractional songs got through.
    package var songs: Double
    /// Time those songs represent (fractions × durations).
    package var listenedMs: Int
    /// Sum of the full durations of the songs seen.
    package var totalDurationMs: Int

    package init(trackCount: Int, songs: Double, listenedMs: Int, totalDurationMs: Int) {
        self.trackCount = trackCount
        self.songs = songs
        self.listenedMs = listenedMs
        self.totalDurationMs = totalDurationMs
    }
}

/// Counts songs got through, streaming, in O(1) memory whatever the input size.
///
/// A *play* is a run of consecutive observations with the same non-nil key: a poller's log
/// repeats the playing song many times, and a song that comes back after another is played
/// again. Every play is one song except at the edges of the log, where listening was only
/// partly observed: the first play counts from its first observed progress, the last up to its
/// last observed progress (a single play: the span between them). A side without progress
/// counts whole. A play is heard up to its *furthest* observed progress (a poll after a short
/// seek back does not undo what was heard). Paused observations never start a play. Only the
/// first play, the current play and the sums of the plays between them are kept, because only
/// the edges need anything but their duration.
package struct SongCounter: Sendable {
    /// One play, as far as the counter needs it.
    private struct Play: Sendable {
        var key: String?
        /// Progress of the play's first observation.
        var firstProgressMs: Int?
        /// Progress of the play's latest observation.
        var lastProgressMs: Int?
        /// The furthest progress observed in the play.
        var furthestProgressMs: Int?
        /// Duration of the play's latest observation.
        var durationMs: Int

        mutating func observe(_ observation: SongObservation) {
            lastProgressMs = observation.progressMs
            durationMs = observation.durationMs
            if let progress = observation.progressMs {
                furthestProgressMs = max(furthestProgressMs ?? progress, progress)
            }
        }

        /// Clamped into 0...duration; nil (unobserved) gives `whole`.
        func clamped(_ progress: Int?, whole: Int) -> Int {
            guard let progress else { return whole }
            return min(max(progress, 0), durationMs)
        }
    }

    private var first: Play?
    /// The current play when it is not the first one.
    private var last: Play?
    private var middleCount = 0
    private var middleDurationMs = 0

    package init() {}

    /// Adds the next record in input order.
    package mutating func add(_ observation: SongObservation) {
        guard observation.durationMs > 0 else { return }
        if let key = observation.key, let current = last ?? first, key == current.key,
            !Self.restarts(current, with: observation)
        {
            if last != nil {
                last!.observe(observation)
            } else {
                first!.observe(observation)
            }
            return
        }
        // A paused song that was not playing before is not listened to.
        guard observation.isPlaying else { return }
        let play = Play(
            key: observation.key,
            firstProgressMs: observation.progressMs,
            lastProgressMs: observation.progressMs,
            furthestProgressMs: observation.progressMs,
            durationMs: observation.durationMs
        )
        if first == nil {
            first = play
        } else {
            if let finished = last {
                middleCount += 1
                middleDurationMs = saturatingAdd(middleDurationMs, finished.durationMs)
            }
            last = play
        }
    }

    /// Progress jumping back by more than half the song means it started again (repeat-one, or
    /// played again): a new play. A short seek back stays in the same play.
    private static func restarts(_ play: Play, with observation: SongObservation) -> Bool {
        guard let before = play.lastProgressMs, let now = observation.progressMs else { return false }
        // Both clamped into 0...duration first, so the difference cannot overflow.
        let duration = observation.durationMs
        return min(max(before, 0), duration) - min(max(now, 0), duration) > duration / 2
    }

    /// The count so far; callable at any time.
    package var result: SongCountResult {
        guard let first else { return SongCountResult(trackCount: 0, songs: 0, listenedMs: 0, totalDurationMs: 0) }
        var songs = Double(middleCount)
        var listenedMs = middleDurationMs
        var totalMs = saturatingAdd(middleDurationMs, first.durationMs)

        func count(_ play: Play, heardMs: Int) {
            songs += Double(heardMs) / Double(play.durationMs)
            listenedMs = saturatingAdd(listenedMs, heardMs)
        }
        if let last {
            count(first, heardMs: first.durationMs - first.clamped(first.firstProgressMs, whole: 0))
            count(last, heardMs: last.clamped(last.furthestProgressMs, whole: last.durationMs))
            totalMs = saturatingAdd(totalMs, last.durationMs)
        } else {
            let start = first.clamped(first.firstProgressMs, whole: 0)
            let end = first.clamped(first.furthestProgressMs, whole: first.durationMs)
            count(first, heardMs: max(0, end - start))
        }
        return SongCountResult(
            trackCount: 1 + middleCount + (last == nil ? 0 : 1),
            songs: songs,
            listenedMs: listenedMs,
            totalDurationMs: totalMs
        )
    }
}
