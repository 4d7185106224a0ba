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
