import Foundation
import ToolkitCore

/// Carries out a `PlaylistEditPlan` on a playlist whose whole contents are known, one request
/// after another, keeping `model` (what the playlist holds) true at every step, so that whatever
/// stops it (a refusal, an answer that cannot be settled, another client, a signal) can say
/// exactly what landed.
///
/// The send-then-settle loop, written once: a request whose outcome is unknown (a time-out, a lost
/// or cut answer, a 5xx) is settled by what only it could have done, the whole playlist read and
/// compared with the model before and after the step. A read that shows the step landed settles
/// it. One that shows it did not is trusted only when a second read, after a longer pause, agrees:
/// the request may still be carried out late, or the read may come from a replica that lags.
/// Only then is the step sent again. A playlist that matches neither was changed by someone else:
/// the run stops (75) and says what it holds.
package struct PlaylistApply {
    package let writer: PlaylistWriter
    package let id: String
    /// What the playlist holds now, as the last answer or read proved it.
    package private(set) var model: [String?]
    package private(set) var snapshot: String?
    package private(set) var stepsDone = 0
    /// The first signal that asked the run to stop (0: none); checked between requests.
    let interruption: @Sendable () -> Int32
    /// Seconds to wait before a settling read (the second waits twice as long).
    let settlePause: Double

    package init(
        writer: PlaylistWriter, contents: PlaylistContents, interruption: @escaping @Sendable () -> Int32 = { 0 }
    ) {
        self.writer = writer
        self.id = contents.id
        self.model = contents.writableURIs
        self.snapshot = contents.snapshot
        self.interruption = interruption
        self.settlePause = writer.settlePause
    }

    /// Why a run stopped before its last step.
    package struct Stopped: Error, Sendable, ToolErrorConvertible {
        package enum Cause: Sendable {
            /// SIGINT, SIGTERM or SIGHUP (its number) came; nothing more was sent.
            case signal(Int32)
            /// A request failed and nothing shows it landed (a refusal, or a step that kept failing).
            case failed(ToolError)
            /// The playlist holds neither what it held before a step nor what the step would leave.
            case changedMeanwhile(count: Int)
        }
        package var cause: Cause
        package var stepsDone: Int
        /// What the playlist holds, proven by the last answer or read.
        package var model: [String?]

        /// The words when nothing above has better ones.
        package var toolError: ToolError {
            let holds = "the playlist holds \(model.count) items after \(stepsDone) requests"
            switch cause {
            case .signal(let number): return ToolError(.answering(signal: number), "interrupted: \(holds)")
            case .failed(let error): return ToolError(error.exitCode, "\(error.message); \(holds)")
            case .changedMeanwhile(let count):
                return .tempFail("the playlist changed meanwhile (someone else edited it): it holds \(count) items")
            }
        }
    }

    /// Sends every step in order, then reads the playlist once more to prove it holds `plan.result`.
    package mutating func run(_ plan: PlaylistEditPlan, progress: (Int) -> Void = { _ in }) async throws {
        for step in plan.steps {
            let signal = interruption()
            if signal != 0 { throw Stopped(cause: .signal(signal), stepsDone: stepsDone, model: model) }
            try await perform(step)
            stepsDone += 1
            progress(stepsDone)
        }
        let now = try await read()
        guard now.writableURIs == plan.result else {
            model = now.writableURIs
            throw Stopped(cause: .changedMeanwhile(count: now.count), stepsDone: stepsDone, model: model)
        }
        model = now.writableURIs
        snapshot = now.snapshot
    }

    /// One step, sent and settled.
    mutating func perform(_ step: PlaylistEditPlan.Step) async throws {
        let expected = PlaylistEditPlan.applying(step, to: model)
        for send in 1...PlaylistWriter.maxSends {
            do {
                let answer = try await writer.send(step, to: id, snapshot: snapshot)
                model = expected
                snapshot = answer?["snapshot_id"]?.stringValue
                return
            } catch  where PlaylistWriter.outcomeUnknown(error) {
                // Removing every occurrence of URIs twice removes them once: simply sent again.
                if case .remove = step, send < PlaylistWriter.maxSends { continue }
                switch try await settle(expected: expected, after: error) {
                case .landed(let now):
                    model = expected
                    snapshot = now
                    return
                case .notLanded:
                    if send == PlaylistWriter.maxSends {
                        throw Stopped(cause: .failed(Self.toolError(error)), stepsDone: stepsDone, model: model)
                    }
                case .neither(let count, let uris):
                    model = uris
                    throw Stopped(cause: .changedMeanwhile(count: count), stepsDone: stepsDone, model: model)
                }
            } catch {
                throw Stopped(cause: .failed(Self.toolError(error)), stepsDone: stepsDone, model: model)
            }
        }
    }

    enum Settlement {
        case landed(snapshot: String?)
        case notLanded
        case neither(count: Int, uris: [String?])
    }

    /// Whether the step landed, from the playlist itself (see the type's comment).
    func settle(expected: [String?], after error: any Error) async throws -> Settlement {
        var pause = settlePause
        for _ in 1...2 {
            try? await Task.sleep(nanoseconds: UInt64(clamped(pause, to: 0...60) * 1e9))
            let now: PlaylistContents
            do {
                now = try await read()
            } catch {
                throw Stopped(
                    cause: .failed(
                        Self.toolError(error).with(
                            prefix:
                                "a request's answer was lost and the playlist could not be read to see whether it landed"
                        )),
                    stepsDone: stepsDone, model: model)
            }
            let uris = now.writableURIs
            if uris == expected { return .landed(snapshot: now.snapshot) }
            guard uris == model else { return .neither(count: now.count, uris: uris) }
            pause = writer.secondPause(after: error, first: pause)
        }
        return .notLanded
    }

    func read() async throws -> PlaylistContents {
        try await PlaylistContents.read(id, writer: writer, fields: PlaylistContents.uriFields)
    }

    static func toolError(_ error: any Error) -> ToolError {
        if let error = error as? any ToolErrorConvertible { return error.toolError }
        return ToolError.unavailable("\(error)")
    }
}

extension ToolError {
    /// The same error, its message after `prefix`.
    package func with(prefix: String) -> ToolError {
        var error = self
        error.message = "\(prefix): \(message)"
        return error
    }
}

extension PlaylistWriter {
    /// Sends one step of a plan. Every request that takes one carries the snapshot_id the step was
    /// planned against, so Spotify applies it to that version.
    func send(_ step: PlaylistEditPlan.Step, to id: String, snapshot: String?) async throws -> JSONValue? {
        let path = "/playlists/\(id)/items"
        switch step {
        case .remove(let uris):
            var body: JSONObject = ["items": .array(uris.map { ["uri": .string($0)] })]
            if let snapshot { body["snapshot_id"] = .string(snapshot) }
            return try await write("DELETE", path, body: .object(body))
        case .move(let start, let insertBefore, let length):
            var body: JSONObject = [
                "range_start": .int(start), "insert_before": .int(insertBefore), "range_length": .int(length),
            ]
            if let snapshot { body["snapshot_id"] = .string(snapshot) }
            return try await write("PUT", path, body: .object(body))
        case .insert(let uris, let position):
            return try await write(
                "POST", path, body: ["uris": .array(uris.map(JSONValue.string)), "position": .int(position)])
        case .replace(let uris):
            return try await write("PUT", path, body: ["uris": .array(uris.map(JSONValue.string))])
        }
    }
}
