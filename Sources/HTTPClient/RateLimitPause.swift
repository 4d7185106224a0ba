/// Pure, like ConcurrencyWindow: tested alone.
/// The one hold a 429 puts on a whole run: no request starts until its `Retry-After` has passed.
/// A rolling-window rate limit answers every request it refuses with about the same deadline (when
/// the oldest admitted request leaves the window), so the requests already on the wire when the
/// limit is hit add nothing but the same deadline again: a later deadline moves the hold, an
/// earlier or equal one is the same hold. One pause per wall, not one wait per refused request,
/// and requests that would head into the same wall meanwhile are never sent.
struct RateLimitPause: Sendable, Equatable {
    /// When starting may resume, on the limit's clock (seconds); nil: not paused.
    private(set) var until: Double?
    /// Moves with every new deadline, so the wake-up set for an earlier one does not end a later one.
    private(set) var generation = 0
    /// Whether someone has already told the user about this pause (one note per pause).
    private var noted = false

    init() {}

    var isPaused: Bool { until != nil }

    /// An answer asked every request to hold off `seconds` from `now`. Returns the new deadline and
    /// its generation when the hold starts or moves later (a wake-up is due then), nil when it asks
    /// for nothing (0 s) or for no later than the hold already set.
    mutating func hold(for seconds: Double, now: Double) -> (until: Double, generation: Int)? {
        guard seconds > 0, seconds.isFinite else { return nil }
        let deadline = now + seconds
        if let until, until >= deadline { return nil }
        if until == nil { noted = false }
        until = deadline
        generation += 1
        return (deadline, generation)
    }

    /// The wake-up set for `generation` came: the hold ends unless a later deadline replaced it.
    /// Whether it ended.
    mutating func wake(generation: Int) -> Bool {
        guard isPaused, generation == self.generation else { return false }
        until = nil
        return true
    }

    /// True once per pause: for the one request that says "waiting N s" on a terminal.
    mutating func claimNote() -> Bool {
        guard isPaused, !noted else { return false }
        noted = true
        return true
    }
}
