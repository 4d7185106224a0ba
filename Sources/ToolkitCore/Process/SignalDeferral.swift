import Foundation

#if canImport(Glibc)
import Glibc

private typealias SignalHandler = sighandler_t
#elseif canImport(Darwin)
import Darwin

private typealias SignalHandler = sig_t
#endif

/// Holds SIGINT, SIGTERM and SIGHUP back while something must not be cut in half (a refresh that
/// rotates the refresh token, until the new one is saved), then acts on the first that came, as
/// it would have acted: by default the process ends by that signal. A signal that was ignored
/// before stays ignored. SIGKILL cannot be deferred by anyone.
///
///     let deferral = SignalDeferral.begin()
///     defer { deferral.end() }       // a signal that arrived meanwhile takes effect here
///     let tokens = try await refresh()
///     try save(tokens)
///
/// Nesting is fine: only the outermost `end` restores the handlers and raises.
package struct SignalDeferral: Sendable {
    package static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    private struct State {
        var depth = 0
        var previousHandlers: [Int32: SignalHandler?] = [:]
    }

    private static let state = Locked(State())

    /// Starts deferring; call `end()` on the result exactly once.
    package static func begin() -> SignalDeferral {
        state.withLock {
            $0.depth += 1
            if $0.depth == 1 {
                pendingSignal = 0
                for number in signals {
                    let previous = signal(number, recordPendingSignal)
                    if isIgnored(previous) {
                        signal(number, SIG_IGN)  // ignored before: stays ignored, nothing to defer
                    }
                    $0.previousHandlers[number] = previous
                }
            }
        }
        return SignalDeferral()
    }

    private static func isIgnored(_ handler: SignalHandler?) -> Bool {
        guard let handler, let ignore = Optional(SIG_IGN) else { return false }
        return unsafeBitCast(handler, to: UnsafeRawPointer.self) == unsafeBitCast(ignore, to: UnsafeRawPointer.self)
    }

    /// Stops deferring: restores the previous handlers, then raises the signal that arrived, if any.
    package func end() {
        let pending: Int32 = Self.state.withLock {
            $0.depth -= 1
            guard $0.depth == 0 else { return 0 }
            for number in Self.signals {
                if let previous = $0.previousHandlers[number] { signal(number, previous) }
            }
            $0.previousHandlers = [:]
            let pending = pendingSignal
            pendingSignal = 0
            return pending
        }
        // kill, not raise: raise targets this thread, and a Dispatch worker thread blocks these signals.
        if pending != 0 { kill(getpid(), pending) }
    }
}

/// The first deferred signal that arrived (0: none). Written only by the handler below.
nonisolated(unsafe) private var pendingSignal: Int32 = 0

/// Async-signal-safe: one store, nothing else.
private func recordPendingSignal(_ number: Int32) {
    if pendingSignal == 0 { pendingSignal = number }
}
