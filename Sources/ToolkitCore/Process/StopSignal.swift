import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A stop request that wakes every sleeper at once: set by SIGINT/SIGTERM/SIGHUP (or a test), checked
/// by a loop between its steps (the watch between polls, fake-spotify until it may exit), and
/// raced against work in flight.
package final class StopSignal: Sendable {
    private struct State {
        var stopped = false
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextID = 0
        /// Waiters cancelled before they got to wait.
        var cancelled: Set<Int> = []
    }

    private let state = Locked(State())

    package init() {}

    /// For tests: a stop that a run in this task obeys besides the stop signals, so a test ends an
    /// in-process watch once it has seen what it waits for, however slowly a loaded machine runs it.
    @TaskLocal package static var requested: StopSignal?

    package var isStopped: Bool { state.withLock { $0.stopped } }

    package func stop() {
        let woken: [CheckedContinuation<Void, Never>] = state.withLock {
            $0.stopped = true
            let waiting = Array($0.waiters.values)
            $0.waiters.removeAll()
            return waiting
        }
        for waiter in woken { waiter.resume() }
    }

    /// Sleeps `seconds` of real time, or until stopped (at once if already stopped).
    package func sleep(_ seconds: Double) async {
        guard seconds > 0, seconds.isFinite else { return }
        await wait(timeout: min(seconds, 86_400 * 365))
    }

    /// Waits until stopped.
    package func wait() async {
        await wait(timeout: nil)
    }

    private func wait(timeout: Double?) async {
        let id = state.withLock {
            $0.nextID += 1
            return $0.nextID
        }
        // Cancellable, so a waiter that lost a race (see PlaybackWatcher.race) ends too.
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow: Bool = state.withLock {
                    if $0.stopped || $0.cancelled.remove(id) != nil { return true }
                    $0.waiters[id] = continuation
                    return false
                }
                if resumeNow { return continuation.resume() }
                if let timeout {
                    DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [state] in
                        state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
                    }
                }
            }
        } onCancel: {
            state.withLock { (state: inout State) -> CheckedContinuation<Void, Never>? in
                guard let waiter = state.waiters.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return waiter
            }?.resume()
        }
    }

    /// The signals that ask a tool to stop: Ctrl-C, `kill`, and SIGHUP, a closed terminal or
    /// SSH session, which must not lose a watch's final record or leave a session unlogged.
    package static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// The stop signals stop instead of killing the process, so a watch ends with its final
    /// record and exit status 0, and a server shuts down before it exits. Cancel the result to
    /// give the signals back (the relay holds the handler until then).
    @discardableResult
    package func stopOnSignals(_ signals: [Int32] = StopSignal.signals) -> SignalHandlers {
        SignalHandlers(signals) { [self] _ in stop() }
    }
}

/// Signals handled on a queue instead of by their default action: while any `SignalHandlers` holds
/// a signal, its own handler catches it and `handler` runs (on a global queue) for every one that
/// arrives, until `cancel()`; when the last holder of a signal cancels, the signal's disposition is
/// put back as it was. So a run in a test process leaves the runner's signals as it found them.
///
/// Not a Dispatch signal source: libdispatch installs its handler once per process and never
/// again, so a disposition put back under it would leave the next source deaf. The handler here
/// writes the signal's number to a pipe (async-signal-safe); a Dispatch read source on the other
/// end calls the holders.
package struct SignalHandlers: Sendable {
    private let id: Int

    package init(_ signals: [Int32] = StopSignal.signals, handler: @escaping @Sendable (Int32) -> Void) {
        id = SignalRelay.shared.hold(signals, handler)
        _ = Self.ledger?.withLock { $0.insert(id) }
    }

    package func cancel() {
        SignalRelay.shared.release(id)
        Self.ledger?.withLock { _ = $0.remove(id) }
    }

    /// For tests: the handlers a piece of work (and its child tasks) took and has not let go of
    /// yet, so a test can prove a run gives back what it held while other tests in the same
    /// process hold signals of their own.
    @TaskLocal static var ledger: Locked<Set<Int>>?
}

/// The process's one relay from signal handlers to `SignalHandlers`: who holds which signals, and
/// the dispositions to put back. `@unchecked Sendable`: `reader` is only created and resumed, in
/// `init`; everything else is behind the lock.
private final class SignalRelay: @unchecked Sendable {
    static let shared = SignalRelay()

    private struct Holder {
        var signals: [Int32]
        var handler: @Sendable (Int32) -> Void
    }

    private struct State {
        var holders: [Int: Holder] = [:]
        var nextID = 0
        var previous: [Int32: sigaction] = [:]
    }

    private let state = Locked(State())
    private let reader: any DispatchSourceRead

    private init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        }
        signalPipeWriteEnd = ends[1]
        let readEnd = ends[0]
        reader = DispatchSource.makeReadSource(fileDescriptor: readEnd, queue: .global())
        reader.setEventHandler { [state] in
            var numbers = [UInt8](repeating: 0, count: 64)
            let count = read(readEnd, &numbers, numbers.count)
            guard count > 0 else { return }
            for number in numbers.prefix(count).map(Int32.init) {
                let handlers = state.withLock { $0.holders.values.filter { $0.signals.contains(number) } }
                for holder in handlers { holder.handler(number) }
            }
        }
        reader.resume()
    }

    func hold(_ signals: [Int32], _ handler: @escaping @Sendable (Int32) -> Void) -> Int {
        state.withLock {
            $0.nextID += 1
            for number in signals where $0.previous[number] == nil {
                var action = sigaction()
                #if canImport(Glibc)
                action.__sigaction_handler.sa_handler = relaySignal
                #else
                action.__sigaction_u.__sa_handler = relaySignal
                #endif
                action.sa_flags = SA_RESTART
                sigemptyset(&action.sa_mask)
                var previous = sigaction()
                sigaction(number, &action, &previous)
                $0.previous[number] = previous
            }
            $0.holders[$0.nextID] = Holder(signals: signals, handler: handler)
            return $0.nextID
        }
    }

    func release(_ id: Int) {
        state.withLock {
            guard $0.holders.removeValue(forKey: id) != nil else { return }
            let stillHeld = Set($0.holders.values.flatMap(\.signals))
            for (number, previous) in $0.previous where !stillHeld.contains(number) {
                var restored = previous
                sigaction(number, &restored, nil)
                $0.previous[number] = nil
            }
        }
    }
}

/// Written once, before any handler that reads it is installed.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// Async-signal-safe: one write to a non-blocking pipe (a full pipe drops the signal, which
/// only happens when hundreds are already waiting), errno kept.
private func relaySignal(_ number: Int32) {
    let savedErrno = errno
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(signalPipeWriteEnd, &byte, 1)
    errno = savedErrno
}
