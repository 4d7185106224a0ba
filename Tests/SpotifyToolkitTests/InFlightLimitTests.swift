import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import SpotifyToolkit

/// What each `start`/`abandon` of an `InFlightLimit` did, in order.
final class StartLog: @unchecked Sendable {  // `entries` behind `lock`
    private let lock = NSLock()
    private var entries: [String] = []
    func add(_ entry: String) { lock.withLock { entries.append(entry) } }
    var all: [String] { lock.withLock { entries } }
}

@Suite struct InFlightLimitTests {
    /// Enters ticket `name` with `order`, logging "start NAME" or "abandon NAME".
    func enter(_ limit: InFlightLimit, _ log: StartLog, order: Int, name: String) -> Int {
        let ticket = limit.ticket()
        limit.enter(ticket: ticket, order: order, start: { log.add("start \(name)") }, abandon: { log.add("abandon \(name)") })
        return ticket
    }

    @Test func startsAtMostTheLimitAndHandsAFreedPlaceToTheLowestOrder() {
        let limit = InFlightLimit(limit: 2)
        let log = StartLog()
        let a = enter(limit, log, order: 0, name: "a")
        _ = enter(limit, log, order: 1, name: "b")
        _ = enter(limit, log, order: 5, name: "f")
        _ = enter(limit, log, order: 3, name: "d")
        #expect(log.all == ["start a", "start b"])
        #expect(limit.state == (active: 2, waiting: 2, limit: 2))
        limit.finished(ticket: a)
        #expect(log.all == ["start a", "start b", "start d"], "order 3 before order 5, whatever came first")
        #expect(limit.state.active == 2)
    }

    @Test func raisingTheLimitStartsWaitersAndLoweringItStartsNoneUntilBelow() {
        let limit = InFlightLimit(limit: 1)
        let log = StartLog()
        let tickets = (0..<5).map { enter(limit, log, order: $0, name: "\($0)") }
        #expect(log.all == ["start 0"])
        limit.setLimit(3)
        #expect(log.all == ["start 0", "start 1", "start 2"])
        limit.setLimit(1)
        limit.finished(ticket: tickets[0])
        limit.finished(ticket: tickets[1])
        #expect(log.all.count == 3, "still one on the wire, the limit is 1: nothing new")
        limit.finished(ticket: tickets[2])
        #expect(log.all.last == "start 3")
        #expect(limit.state == (active: 1, waiting: 1, limit: 1))
        limit.setLimit(0)
        #expect(limit.state.limit == 1, "never below one, or nothing could ever be sent")
    }

    @Test func aWithdrawnTicketIsAbandonedNeverStartedAndFreesNothing() {
        let limit = InFlightLimit(limit: 1)
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

        limit.finished(ticket: running)
        #expect(limit.state == (active: 0, waiting: 0, limit: 1))
        _ = enter(limit, log, order: 3, name: "next")
        #expect(log.all.last == "start next")
    }

    /// Through the transport against a real server: the server never sees more than the limit at
    /// once, every request is answered, and a cancelled caller whose request still waited for a
    /// place gets a CancellationError and its request is never sent.
    @Test func overRealSocketsTheServerSeesAtMostTheLimit() async throws {
        let seen = ConcurrencyProbe()
        let server = try LoopbackHTTPServer { request in
            seen.enter(request.path)
            defer { seen.leave() }
            Thread.sleep(forTimeInterval: 0.05)
            return .text("\(request.path)\n")
        }
        server.start()
        defer { server.stop() }
        let transport = HTTPTransport(timeout: 10)
        let limit = InFlightLimit(limit: 3)
        let answers = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<9 {
                group.addTask {
                    let request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/\(index)")!)
                    let result = try await transport.send(request, slot: InFlightSlot(limit, order: index))
                    return String(decoding: result.body, as: UTF8.self)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.sorted() == (0..<9).map { "/\($0)\n" }.sorted())
        #expect(seen.most == 3)
        #expect(limit.state == (active: 0, waiting: 0, limit: 3))

        let one = InFlightLimit(limit: 1)
        let blocker = Task {
            try await transport.send(URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/blocker")!), slot: InFlightSlot(one, order: 0))
        }
        while one.state.active == 0 { try await Task.sleep(nanoseconds: 1_000_000) }
        let waiter = Task {
            try await transport.send(URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/never")!), slot: InFlightSlot(one, order: 1))
        }
        while one.state.waiting == 0 { try await Task.sleep(nanoseconds: 1_000_000) }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
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
