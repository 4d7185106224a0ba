import ToolkitCore

/// What a settling read found out about a write whose outcome was unknown.
enum Settling<Value: Sendable>: Sendable {
    /// The write landed; its result, as read.
    case landed(Value)
    /// The playlist (or library) is as it was before the write.
    case notLanded
    /// Neither: someone else changed it, or it could not be read. The run stops with this error.
    case stop(any Error)
}

extension PlaylistWriter {
    /// The send-then-settle loop, written once for every write: create, an add's batch, and each
    /// step of a plan. A write whose outcome is unknown (the request carried up `.unknown` or
    /// `.timedOut`) is settled by `settle`, which reads what only this write could have done. A
    /// read that shows it landed settles it. One that shows it did not is trusted only when a
    /// second read, after a longer pause (after a time-out, the time-out again), agrees: the
    /// request may still be carried out late, or the read come from a replica that lags. Only then
    /// is it sent again, at most `maxSends` times in all. An `idempotent` write (removing URIs) is
    /// simply sent again, and settled only after its last send. Errors of `send` that leave
    /// nothing unknown (a refusal, a 429 past the cap) come out as they are.
    func sendSettled<Value: Sendable>(
        idempotent: Bool = false, _ send: () async throws -> Value, settle: () async throws -> Settling<Value>
    ) async throws -> Value {
        for attempt in 1...Self.maxSends {
            do {
                return try await send()
            } catch  where Self.outcomeUnknown(error) {
                if idempotent && attempt < Self.maxSends { continue }
                var pause = settlePause
                for _ in 1...2 {
                    await api.sleep(pause)
                    switch try await settle() {
                    case .landed(let value): return value
                    case .notLanded: break
                    case .stop(let reason): throw reason
                    }
                    pause = secondPause(after: error, first: pause)
                }
                if attempt == Self.maxSends { throw error }  // it did not land, and kept failing
            }
        }
        throw ToolError.software("no send left")
    }
}
