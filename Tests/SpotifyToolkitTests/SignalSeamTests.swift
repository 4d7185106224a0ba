import Dispatch
import Foundation
import Testing

@testable import ToolkitCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The in-process seam owns its signals: a run that handles SIGINT, SIGTERM and SIGHUP puts
/// their dispositions back when it ends, so the test process (or any host of a command) is left
/// as it was (one in-process watch left all three routed to
/// handlers nobody removed).
@Suite(.serialized, .tags(.medium)) struct SignalSeamTests {
    /// The raw disposition of each signal (handler address, SIG_DFL 0, SIG_IGN 1).
    static func dispositions(_ signals: [Int32]) -> [Int] {
        signals.map { number in
            var action = sigaction()
            sigaction(number, nil, &action)
            #if canImport(Glibc)
            return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
            #else
            return unsafeBitCast(action.__sigaction_u.__sa_handler, to: Int.self)
            #endif
        }
    }

    /// The run gives back every signal handler it took (the ledger sees only this run's, so other
    /// tests of this process may hold signals meanwhile); a signal given back by its last holder
    /// gets its disposition back (the two tests below).
    @Test func anInProcessWatchGivesBackTheSignalsItHeld() async throws {
        let library = try await Library()
        defer { library.fake.stop() }
        try await library.fake.call("POST", "/_fake/playback", form: [("durations", "200,200"), ("playing", "1")])
        let ledger = Locked(Set<Int>())
        let taken = Locked(0)
        let run = try await SignalHandlers.$ledger.withValue(ledger) {
            // 30 s of watching at 300x: a tenth of a second of the wall clock.
            async let run = library.run(
                "spotify-nowplaying", ["--watch", "--json", "--for", "30s"],
                environment: ["SPOTIFY_TOOLKIT_TIME_SCALE": "300"])
            for _ in 0..<500 where taken.withLock({ $0 }) == 0 {
                taken.withLock { $0 = max($0, ledger.withLock { $0.count }) }
                try await Task.sleep(for: .milliseconds(2))
            }
            return try await run
        }
        #expect(run.status == 0, "\(run.stderr)")
        #expect(taken.withLock { $0 } > 0, "the watch never took the stop signals")
        #expect(ledger.withLock { $0.isEmpty }, "the run left signal handlers behind")
    }

    /// A holder released and a new one taken: the new one still hears its signal (a Dispatch
    /// signal source would not: libdispatch installs its handler once per process). SIGURG, whose
    /// default is to be ignored, so a deaf handler cannot kill the test runner.
    @Test func aSignalIsHeardAgainAfterItsHandlersWereCancelled() async throws {
        let before = Self.dispositions([SIGURG])
        for round in 1...3 {
            let heard = Locked(0)
            let handlers = SignalHandlers([SIGURG]) { _ in heard.withLock { $0 += 1 } }
            #expect(Self.dispositions([SIGURG]) != before, "round \(round): no handler installed")
            kill(getpid(), SIGURG)
            for _ in 0..<500 where heard.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(10)) }
            handlers.cancel()
            #expect(heard.withLock { $0 } == 1, "round \(round): the signal was not heard")
            #expect(Self.dispositions([SIGURG]) == before, "round \(round): disposition not put back")
        }
    }

    /// Two holders of one signal: both hear it, and it is put back only when the last lets go.
    @Test func aSignalHeldTwiceIsPutBackWhenTheLastHolderLetsGo() async throws {
        let before = Self.dispositions([SIGURG])
        let heard = Locked(0)
        let first = SignalHandlers([SIGURG]) { _ in heard.withLock { $0 += 1 } }
        let second = SignalHandlers([SIGURG]) { _ in heard.withLock { $0 += 10 } }
        kill(getpid(), SIGURG)
        for _ in 0..<500 where heard.withLock({ $0 }) < 11 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(heard.withLock { $0 } == 11)
        first.cancel()
        #expect(Self.dispositions([SIGURG]) != before, "still held by the second")
        second.cancel()
        #expect(Self.dispositions([SIGURG]) == before)
    }
}
