#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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

    /// Starts deferring `which` (default: SIGINT, SIGTERM, SIGHUP); call `end()` on the result
    /// exactly once. A nested deferral keeps the outermost's set.
    package static func begin(_ which: [Int32] = signals) -> SignalDeferral {
        state.withLock {
            $0.depth += 1
            if $0.depth == 1 {
                pendingSignal = 0
                for number in which {
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

    /// The first deferred signal that arrived so far (0: none), for work that checks between its
    /// steps and stops cleanly (a write that then says what landed) instead of waiting for `end`.
    package static var pending: Int32 { pendingSignal }

    private static func isIgnored(_ handler: SignalHandler?) -> Bool {
        guard let handler, let ignore = Optional(SIG_IGN) else { return false }
        return unsafeBitCast(handler, to: UnsafeRawPointer.self) == unsafeBitCast(ignore, to: UnsafeRawPointer.self)
    }

    /// Stops deferring: restores the previous handlers, then raises the signal that arrived, if
    /// any, unless `discarding` says it was meant for another stage (see `ListeningShield`).
    package func end(discarding: Bool = false) {
        let pending: Int32 = Self.state.withLock {
            $0.depth -= 1
            guard $0.depth == 0 else { return 0 }
            // SIG_DFL comes back as nil: it is restored as nil, not skipped.
            for (number, previous) in $0.previousHandlers { signal(number, previous) }
            $0.previousHandlers = [:]
            let pending = pendingSignal
            pendingSignal = 0
            return pending
        }
        // kill, not raise: raise targets this thread, and a Dispatch worker thread blocks these signals.
        if pending != 0 && !discarding { kill(getpid(), pending) }
    }
}

/// A stage at the end of a listening pipeline (`spotify-nowplaying --watch | songcount |
/// routine-link log morning`) must outlive the terminal's Ctrl-C: it reaches every process of
/// the pipeline, and the watch answers it by writing its final record and closing, so what comes
/// after it has to read on to the end and report, as `tee -i` does. Only while standard input is
/// a pipe (typed input on a terminal stops at once), and only while `keep` says the input is a
/// listening stream; a stage that finds it is not releases SIGINT, and one that came meanwhile
/// takes effect then.
package struct ListeningShield: Sendable {
    let deferral: SignalDeferral?

    /// No shield (the input is not standard input).
    package static let none = ListeningShield(deferral: nil)

    /// Holds SIGINT back when `fileDescriptor` is a pipe.
    package static func begin(readingFrom fileDescriptor: Int32) -> ListeningShield {
        guard DescriptorKind(fileDescriptor) == .pipe else { return .none }
        return ListeningShield(deferral: SignalDeferral.begin([SIGINT]))
    }

    /// The input turned out not to be a listening stream: Ctrl-C stops this stage again, at once
    /// if it came already.
    package func release() { deferral?.end() }

    /// The input was read to its end: a Ctrl-C that came meanwhile was the watch's to answer.
    package func finish() { deferral?.end(discarding: true) }
}

/// The first deferred signal that arrived (0: none). Written only by the handler below.
nonisolated(unsafe) private var pendingSignal: Int32 = 0

/// Async-signal-safe: one store, nothing else.
private func recordPendingSignal(_ number: Int32) {
    if pendingSignal == 0 { pendingSignal = number }
}
