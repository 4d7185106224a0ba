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
        var handlers: [SignalHandlers] = []
    }

    private let state = Locked(State())

    package init() {}

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
    /// let them go before this signal is dropped.
    @discardableResult
    package func stopOnSignals(_ signals: [Int32] = StopSignal.signals) -> SignalHandlers {
        let handlers = SignalHandlers(signals) { [self] _ in stop() }
        state.withLock { $0.handlers.append(handlers) }
        return handlers
    }
}

/// Signals handled on a queue instead of by their default action: each is ignored by the process
/// and `handler` runs (on a global queue) for every one that arrives, until `cancel()`.
///
/// `@unchecked Sendable` is sound because the sources are only created, resumed and cancelled,
/// which libdispatch allows from any thread.
package struct SignalHandlers: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]

    package init(_ signals: [Int32] = StopSignal.signals, handler: @escaping @Sendable (Int32) -> Void) {
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    package func cancel() {
        for source in sources { source.cancel() }
    }
}
