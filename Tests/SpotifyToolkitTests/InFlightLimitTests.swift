import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// What each `start`/`abandon` of an `InFlightLimit` did, in order.
final class StartLog: @unchecked Sendable {  // `entries` behind `lock`
    private let lock = NSLock()
    private var entries: [String] = []
    func add(_ entry: String) { lock.withLock { entries.append(entry) } }
    var all: [String] { lock.withLock { entries } }
}

@Suite(.tags(.medium)) struct InFlightLimitTests {
    /// Enters ticket `name` with `order`, logging "start NAME" or "abandon NAME".
    func enter(_ limit: InFlightLimit, _ log: StartLog, order: Int, name: String) -> Int {
        let ticket = limit.ticket()
        limit.enter(
            ticket: ticket, order: order, start: { log.add("start \(name)") }, abandon: { log.add("abandon \(name)") })
        return ticket
    }

    @Test func startsAtMostTheLimitAndHandsAFreedPlaceToTheLowestOrder() {
        let limit = InFlightLimit(window: ConcurrencyWindow(fixed: 2))
        let log = StartLog()
        let a = enter(limit, log, order: 0, name: "a")
        _ = enter(limit, log, order: 1, name: "b")
        _ = enter(limit, log, order: 5, name: "f")
        _ = enter(limit, log, order: 3, name: "d")
        #expect(log.all == ["start a", "start b"])
        #expect(limit.state == (active: 2, waiting: 2, limit: 2))
        limit.finished(ticket: a, status: 200)
        #expect(log.all == ["start a", "start b", "start d"], "order 3 before order 5, whatever came first")
        #expect(limit.state.active == 2)
    }

    @Test func answersMoveTheWindowAsTheyArrive() {
        let limit = InFlightLimit(window: ConcurrencyWindow())
        let log = StartLog()
        let tickets = (0..<12).map { enter(limit, log, order: $0, name: "\($0)") }
        #expect(log.all == ["start 0", "start 1", "start 2", "start 3"], "the window starts at 4")
        limit.finished(ticket: tickets[0], status: 200)
        #expect(log.all.count == 9, "a clean answer doubles it to 8: five more start at once (3 + 5 on the wire)")
        #expect(limit.state == (active: 8, waiting: 3, limit: 8))
        limit.finished(ticket: tickets[1], status: 429)
        #expect(limit.state == (active: 7, waiting: 3, limit: 4), "a 429 halves it at once and starts nothing")
        limit.finished(ticket: tickets[2], status: 503)
        limit.finished(ticket: tickets[3], status: nil)
        #expect(limit.state == (active: 5, waiting: 3, limit: 4), "a 5xx or no answer says nothing about the rate")
        limit.finished(ticket: tickets[4], status: 200)
        #expect(limit.state == (active: 4, waiting: 3, limit: 4), "after a 429 it grows back only one at a time")
        #expect(log.all.count == 9)
        limit.finished(ticket: tickets[5], status: 200)
        #expect(log.all.last == "start 9", "room again: the lowest order first")
        #expect(limit.state == (active: 4, waiting: 2, limit: 4))
    }

    @Test func aWithdrawnTicketIsAbandonedNeverStartedAndFreesNothing() {
        let limit = InFlightLimit(window: ConcurrencyWindow(fixed: 1))
        let log = StartLog()
        let running = enter(limit, log, order: 0, name: "running")
        let waiting = enter(limit, log, order: 1, name: "waiting")
        limit.withdraw(ticket: waiting)
        #expect(log.all == ["start running", "abandon waiting"])
        limit.withdraw(ticket: running)
        #expect(log.all.count == 2, "one on the wire is left to finish")
        #expect(limit.state == (active: 1, waiting: 0, limit: 1))

        let early = limit.ticket()
        limit.withdraw(ticket: early)
        limit.enter(ticket: early, order: 2, start: { log.add("start early") }, abandon: { log.add("abandon early") })
        #expect(log.all.last == "abandon early", "withdrawn before it entered: abandoned as it enters")

        limit.finished(ticket: running, status: nil)
        #expect(limit.state == (active: 0, waiting: 0, limit: 1))
        _ = enter(limit, log, order: 3, name: "next")
        #expect(log.all.last == "start next")
    }

    /// A clock and wake-ups a test moves by hand: no timing.
    final class ManualPauseClock: @unchecked Sendable {  // all behind `lock`
        private let lock = NSLock()
        private var time = 100.0
        private var wakes: [(at: Double, wake: @Sendable () -> Void)] = []
        var now: Double { lock.withLock { time } }
        var pendingWakes: Int { lock.withLock { wakes.count } }
        func after(_ seconds: Double, _ wake: @escaping @Sendable () -> Void) {
            lock.withLock { wakes.append((time + seconds, wake)) }
        }
        /// Moves the clock to `seconds` later and runs the wake-ups that are due, in order.
        func advance(_ seconds: Double) {
            let due = lock.withLock {
                time += seconds
                let due = wakes.filter { $0.at <= time }
                wakes.removeAll { $0.at <= time }
                return due.sorted { $0.at < $1.at }
            }
            for entry in due { entry.wake() }
        }
        func rule(holdOff: @escaping @Sendable (HTTPResult) -> Double? = { _ in nil }) -> InFlightLimit.PauseRule {
            InFlightLimit.PauseRule(holdOff: holdOff, now: { self.now }, after: { self.after($0, $1) })
        }
    }

    @Test func aPauseHoldsEveryStartUntilOneSharedDeadlineAndKeepsTheWindow() {
        let clock = ManualPauseClock()
        let limit = InFlightLimit(window: ConcurrencyWindow(fixed: 4), pauseRule: clock.rule())
        let log = StartLog()
        let tickets = (0..<10).map { enter(limit, log, order: $0, name: "\($0)") }
        #expect(log.all.count == 4)
        limit.finished(ticket: tickets[0], status: 429, holdOff: 28)
        #expect(limit.isPaused)
        #expect(limit.state == (active: 3, waiting: 6, limit: 4), "nothing starts, and the window is kept")
        // The other requests already on the wire meet the same wall: the same deadline (or one a
        // second later, from rounding), never a second pause or a halving.
        clock.advance(0.1)
        limit.finished(ticket: tickets[1], status: 429, holdOff: 28)
        limit.finished(ticket: tickets[2], status: 429, holdOff: 27)
        limit.finished(ticket: tickets[3], status: 200)
        #expect(limit.state == (active: 0, waiting: 6, limit: 4), "a clean answer during the pause starts nothing")
        #expect(clock.pendingWakes == 2, "the first deadline, and the one 0.1 s later")
        // The refused requests go again: they wait in the limit, first by their order.
        for index in 0..<3 { _ = enter(limit, log, order: index, name: "again \(index)") }
        #expect(log.all.count == 4, "re-sent requests wait for the pause too")
        clock.advance(27.95)
        #expect(limit.isPaused, "the first deadline's wake-up does not end the later one")
        #expect(log.all.count == 4)
        clock.advance(0.1)
        #expect(!limit.isPaused)
        #expect(
            Array(log.all.dropFirst(4)) == ["start again 0", "start again 1", "start again 2", "start 4"],
            "the window resumes at 4, the refused requests first")
        #expect(limit.state == (active: 4, waiting: 5, limit: 4))
    }

    @Test func a429WithoutAHoldOffHalvesAndAPauselessLimitNeverPauses() {
        let clock = ManualPauseClock()
        let limit = InFlightLimit(window: ConcurrencyWindow(fixed: 8), pauseRule: clock.rule())
        let log = StartLog()
        let tickets = (0..<8).map { enter(limit, log, order: $0, name: "\($0)") }
        limit.finished(ticket: tickets[0], status: 429, holdOff: nil)
        #expect(!limit.isPaused)
        #expect(limit.state.limit == 4, "no Retry-After the run can wait out: the window halves as before")
        limit.finished(ticket: tickets[1], status: 429, holdOff: 0)
        #expect(!limit.isPaused && limit.state.limit == 4, "Retry-After: 0 asks for no wait")

        let old = InFlightLimit(window: ConcurrencyWindow(fixed: 8))
        let first = enter(old, log, order: 0, name: "old")
        old.finished(ticket: first, status: 429, holdOff: 5)
        #expect(!old.isPaused && old.state.limit == 4, "without a rule: each request waits on its own")
        #expect(!old.holdsRun(after: HTTPResult(status: 429, headers: ["Retry-After": "5"], body: Data())))
    }

    @Test func thePauseMovesOnlyLaterAndNotesOnce() {
        var pause = RateLimitPause()
        let noteWithoutPause = pause.claimNote()
        let none = [pause.hold(for: 0, now: 10), pause.hold(for: .infinity, now: 10)]
        #expect(!noteWithoutPause && none.allSatisfy { $0 == nil }, "no pause, nothing to say")
        let first = pause.hold(for: 28, now: 10)
        #expect(first?.until == 38 && first?.generation == 1)
        let notes = [pause.claimNote(), pause.claimNote()]
        #expect(notes == [true, false], "one note per pause")
        let same = [pause.hold(for: 27, now: 10.5), pause.hold(for: 28, now: 10)]
        #expect(same.allSatisfy { $0 == nil }, "an earlier or equal deadline is the same pause")
        let later = pause.hold(for: 28, now: 11)
        #expect(later?.until == 39 && later?.generation == 2, "a later one moves it")
        let staleWake = pause.wake(generation: 1)
        let noteAgain = pause.claimNote()
        #expect(!staleWake && pause.isPaused, "the first deadline's wake-up does not end the moved pause")
        #expect(!noteAgain, "still the same pause: already told")
        let wake = pause.wake(generation: 2)
        #expect(wake && !pause.isPaused)
        _ = pause.hold(for: 5, now: 60)
        let newNote = pause.claimNote()
        #expect(newNote, "a new pause is told again")
    }

    @Test func theRunPauseRuleTakesOnlyARateLimitWithinTheCap() {
        #expect(RetryPolicy.runPause(status: 429, retryAfter: 28, reason: nil, cap: 30) == 28)
        #expect(RetryPolicy.runPause(status: 429, retryAfter: nil, reason: nil, cap: 30) == nil, "no Retry-After")
        #expect(RetryPolicy.runPause(status: 429, retryAfter: 31, reason: nil, cap: 30) == nil, "over the cap: exit 75")
        #expect(RetryPolicy.runPause(status: 429, retryAfter: 3, reason: "QUOTA_EXCEEDED", cap: 30) == nil, "a quota")
        #expect(RetryPolicy.runPause(status: 503, retryAfter: 3, reason: nil, cap: 30) == nil)
    }

    /// Through the transport against a real server: the server never sees more than the limit at
    /// once, every request is answered, and a cancelled caller whose request still waited for a
    /// place gets a CancellationError and its request is never sent.
    @Test func overRealSocketsTheServerSeesAtMostTheLimit() async throws {
        let seen = ConcurrencyProbe()
        let release = DispatchSemaphore(value: 0)
        let server = try LoopbackHTTPServer { request in
            seen.enter(request.path)
            defer { seen.leave() }
            // The blocker holds its place until the test has seen the waiter queue behind it and
            // cancelled it (at most 80 s), however slowly a loaded machine schedules the test.
            if request.path == "/blocker" {
                _ = release.wait(timeout: .now() + 80)
            } else {
                Thread.sleep(forTimeInterval: 0.05)
            }
            if request.path == "/busy" { return HTTPResponse(status: 429, headers: [("Retry-After", "1")], body: []) }
            return .text("\(request.path)\n")
        }
        server.start()
        defer { server.stop() }
        let transport = HTTPTransport(timeout: 90)  // a loaded machine may schedule the waiter late
        let limit = InFlightLimit(window: ConcurrencyWindow(fixed: 3))
        let answers = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<9 {
                group.addTask {
                    let request = HTTPClientRequest(url: URL(string: "http://127.0.0.1:\(server.port)/\(index)")!)
                    let result = try await transport.send(request, slot: InFlightSlot(limit, order: index))
                    return String(decoding: result.body, as: UTF8.self)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.sorted() == (0..<9).map { "/\($0)\n" }.sorted())
        #expect(seen.most == 3)
        #expect(limit.state == (active: 0, waiting: 0, limit: 3))

        // The transport hands each answer's status to the window.
        let adaptive = InFlightLimit(window: ConcurrencyWindow())
        _ = try await transport.send(
            HTTPClientRequest(url: URL(string: "http://127.0.0.1:\(server.port)/ok")!),
            slot: InFlightSlot(adaptive, order: 0))
        #expect(adaptive.state.limit == 8, "a clean answer doubled it")
        let busy = try await transport.send(
            HTTPClientRequest(url: URL(string: "http://127.0.0.1:\(server.port)/busy")!),
            slot: InFlightSlot(adaptive, order: 1))
        #expect(busy.status == 429)
        #expect(adaptive.state.limit == 4, "a 429 halved it as it arrived")

        // With a pause rule, the transport hands the limit the 429's Retry-After before the place
        // it frees is handed on: the run pauses (the wake-up here is never due), the window holds.
        let clock = ManualPauseClock()
        let pausing = InFlightLimit(
            window: ConcurrencyWindow(fixed: 2),
            pauseRule: clock.rule { SpotifyWebAPI.retryAfterSeconds($0.header("Retry-After")) })
        let refused = try await transport.send(
            HTTPClientRequest(url: URL(string: "http://127.0.0.1:\(server.port)/busy")!),
            slot: InFlightSlot(pausing, order: 0))
        #expect(refused.status == 429)
        #expect(pausing.isPaused && pausing.state.limit == 2 && clock.pendingWakes == 1)

        let one = InFlightLimit(window: ConcurrencyWindow(fixed: 1))
        let blocker = Task {
            try await transport.send(
                HTTPClientRequest(url: URL(string: "http://127.0.0.1:\(server.port)/blocker")!),
                slot: InFlightSlot(one, order: 0))
        }
        let deadline = Date().addingTimeInterval(60)  // bounded waits
        while one.state.active == 0 && Date() < deadline { try await Task.sleep(nanoseconds: 1_000_000) }
        let waiter = Task {
            try await transport.send(
                HTTPClientRequest(url: URL(string: "http://127.0.0.1:\(server.port)/never")!),
                slot: InFlightSlot(one, order: 1))
        }
        while one.state.waiting == 0 && Date() < deadline { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(one.state.waiting == 1, "the waiter queued behind the blocker")
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        release.signal()
        #expect(try await blocker.value.status == 200)
        #expect(!seen.paths.contains("/never"))
    }
}

/// How many requests a test server is handling at once, at most, and which paths it saw.
final class ConcurrencyProbe: @unchecked Sendable {  // all behind `lock`
    private let lock = NSLock()
    private var now = 0
    private var highest = 0
    private var seenPaths: [String] = []
    func enter(_ path: String) {
        lock.withLock {
            now += 1
            highest = max(highest, now)
            seenPaths.append(path)
        }
    }
    func leave() { lock.withLock { now -= 1 } }
    var most: Int { lock.withLock { highest } }
    var paths: [String] { lock.withLock { seenPaths } }
}
