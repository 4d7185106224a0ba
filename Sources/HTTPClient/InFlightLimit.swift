import Dispatch
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Caps how many HTTP exchanges are on the wire at once at its `ConcurrencyWindow`'s size, and
/// hands a freed place straight to the waiting exchange with the lowest `order`, starting it on
/// the thread that saw the last one end. Each answer moves the window as it arrives: a 2xx is
/// clean; a 429 whose Retry-After the limit's `PauseRule` accepts pauses the whole limit until
/// then (`RateLimitPause`: one shared deadline, nothing starts meanwhile, and the window is kept,
/// since halving buys nothing against a count limit and only slows the next window's burst); a
/// 429 without one halves the window at once. Either way the places of requests sitting out a
/// rate limit are not handed to new ones heading into the same limit.
///
/// `order` ranks only the exchanges still waiting: a retried page re-enters behind later pages
/// already on the wire (it waits at most one answer for a place).
///
/// Why not let each task wait for a place and then send: on Linux, waking a task from
/// URLSession's delegate queue and having it send the next request takes about 2 ms (a hop
/// through the cooperative pool and back into URLSession); starting the next request from the
/// completion handler itself takes about 0.4 ms (measured on the answer-to-next-request gap of
/// each connection, tcpdump on loopback). Over the 26 round trips of a 10,000-item playlist that
/// is about 45 ms.
///
/// Every ticket that entered and started must report `finished(ticket:status:)` exactly once.
package final class InFlightLimit: Sendable {
    private let lockedState: Locked<State>

    enum TicketState {
        case issued, waiting, started, withdrawn
    }

    struct Waiter {
        var ticket: Int
        var order: Int
        var start: @Sendable () -> Void
        var abandon: @Sendable () -> Void
    }

    private struct State {
        var window: ConcurrencyWindow
        var pause = RateLimitPause()
        var active = 0
        var waiting: [Waiter] = []
        var tickets: [Int: TicketState] = [:]
        var lastTicket = 0

        /// A 2xx is clean, a 429 is Spotify pushing back; anything else (5xx, no answer) says
        /// nothing about the rate. `holdOff`: the seconds a 429 asks the whole run to wait (its
        /// Retry-After, when the rule accepts it): that pauses every start and keeps the window;
        /// a 429 without one halves it. Returns a pause deadline that needs a wake-up.
        mutating func adjust(_ status: Int?, holdOff: Double?, now: Double) -> (until: Double, generation: Int)? {
            switch status {
            case 429? where holdOff != nil: return pause.hold(for: holdOff!, now: now)
            case 429?: window.recordRateLimited()
            case let status? where (200..<300).contains(status): window.recordClean()
            default: break
            }
            return nil
        }

        /// The waiting exchanges that now have room, lowest order first, marked started; none
        /// while the run is paused.
        mutating func takeStartable() -> [@Sendable () -> Void] {
            var starts: [@Sendable () -> Void] = []
            while !pause.isPaused, active < window.size,
                let index = waiting.indices.min(by: { waiting[$0].order < waiting[$1].order })
            {
                let waiter = waiting.remove(at: index)
                tickets[waiter.ticket] = .started
                starts.append(waiter.start)
                active += 1
            }
            return starts
        }
    }

    /// How the limit pauses its run after a 429: nil never pauses (each request waits its own
    /// Retry-After, and the window halves).
    let pauseRule: PauseRule?

    package init(window: ConcurrencyWindow, pauseRule: PauseRule? = nil) {
        lockedState = Locked(State(window: window))
        self.pauseRule = pauseRule
    }

    /// What makes a limit pause its run: which answers ask for it and how long, the clock the
    /// deadline is kept on, and how the wake-up is set (a test drives both by hand).
    package struct PauseRule: Sendable {
        /// The seconds `answer` asks every request to hold off, or nil (not a rate limit the run
        /// should wait out together: no Retry-After, a quota, a wait over the cap).
        package var holdOff: @Sendable (HTTPResult) -> Double?
        /// Seconds on a monotonic clock.
        package var now: @Sendable () -> Double
        /// Calls the closure once `seconds` have passed.
        package var after: @Sendable (_ seconds: Double, _ wake: @escaping @Sendable () -> Void) -> Void

        package init(
            holdOff: @escaping @Sendable (HTTPResult) -> Double?,
            now: @escaping @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 },
            after: @escaping @Sendable (Double, @escaping @Sendable () -> Void) -> Void = { seconds, wake in
                DispatchQueue.global().asyncAfter(deadline: .now() + max(0, seconds), execute: wake)
            }
        ) {
            self.holdOff = holdOff
            self.now = now
            self.after = after
        }
    }

    /// The seconds `answer` asks the whole run to hold off, by the rule (nil without one).
    func holdOff(after answer: HTTPResult) -> Double? {
        pauseRule?.holdOff(answer)
    }

    /// Whether a 429 like `answer` is waited out by the whole limit (its requests re-enter and
    /// start after the shared deadline) rather than by each request on its own.
    package func holdsRun(after answer: HTTPResult) -> Bool {
        holdOff(after: answer).map { $0 > 0 } ?? false
    }

    /// Whether the run is paused now.
    var isPaused: Bool { lockedState.withLock { $0.pause.isPaused } }

    /// True for the first caller of each pause: who tells the user about it.
    package func claimPauseNote() -> Bool {
        lockedState.withLock { $0.pause.claimNote() }
    }

    /// How many exchanges are on the wire now, how many wait for a place, and the most allowed.
    package var state: (active: Int, waiting: Int, limit: Int) {
        lockedState.withLock { ($0.active, $0.waiting.count, $0.window.size) }
    }

    /// The most allowed on the wire now.
    package var size: Int { lockedState.withLock { $0.window.size } }

    /// A new ticket, to enter with and to withdraw by.
    func ticket() -> Int {
        lockedState.withLock {
            $0.lastTicket += 1
            $0.tickets[$0.lastTicket] = .issued
            return $0.lastTicket
        }
    }

    /// Calls `start` now if there is room, else later from whichever thread frees a place.
    /// `abandon` is called instead when the ticket is (or was already) withdrawn before it started.
    func enter(ticket: Int, order: Int, start: @escaping @Sendable () -> Void, abandon: @escaping @Sendable () -> Void)
    {
        let run: [@Sendable () -> Void] = lockedState.withLock {
            if $0.tickets[ticket] == .withdrawn {
                $0.tickets[ticket] = nil
                return [abandon]
            }
            $0.tickets[ticket] = .waiting
            $0.waiting.append(Waiter(ticket: ticket, order: order, start: start, abandon: abandon))
            return $0.takeStartable()
        }
        for start in run { start() }
    }

    /// A started exchange has ended, with an HTTP `status` (nil: no answer) and, for a 429 the
    /// run waits out together, the seconds it asked for (`holdOff`): the window moves or the run
    /// pauses, and the freed place goes to the waiting one with the lowest order if there is room.
    func finished(ticket: Int, status: Int?, holdOff: Double? = nil) {
        let now = pauseRule?.now() ?? 0
        let (starts, deadline) = lockedState.withLock { state in
            if state.tickets.removeValue(forKey: ticket) == .started { state.active -= 1 }
            let deadline = state.adjust(status, holdOff: pauseRule == nil ? nil : holdOff, now: now)
            return (state.takeStartable(), deadline)
        }
        if let deadline, let pauseRule {
            pauseRule.after(deadline.until - now) { [self] in self.wake(generation: deadline.generation) }
        }
        for start in starts { start() }
    }

    /// The pause of `generation` is over (unless a later deadline replaced it): the window resumes.
    private func wake(generation: Int) {
        let starts = lockedState.withLock { state in
            state.pause.wake(generation: generation) ? state.takeStartable() : []
        }
        for start in starts { start() }
    }

    /// The ticket's task was cancelled: an exchange still waiting is abandoned and never started,
    /// one not yet entered is abandoned when it enters, one on the wire is left to finish.
    func withdraw(ticket: Int) {
        let abandon = lockedState.withLock { (state: inout State) -> (@Sendable () -> Void)? in
            switch state.tickets[ticket] {
            case .issued?:
                state.tickets[ticket] = .withdrawn
            case .waiting?:
                state.tickets[ticket] = nil
                if let index = state.waiting.firstIndex(where: { $0.ticket == ticket }) {
                    return state.waiting.remove(at: index).abandon
                }
            case .started?, .withdrawn?, nil:
                break
            }
            return nil
        }
        abandon?()
    }
}

/// A place in an `InFlightLimit`: which limit, and how urgent (lower goes first).
package struct InFlightSlot: Sendable {
    package let limit: InFlightLimit
    package let order: Int

    package init(_ limit: InFlightLimit, order: Int) {
        self.limit = limit
        self.order = order
    }
}
