import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    /// The playlist as the read after the last step proved it (nil until a run finished).
    package private(set) var proven: PlaylistContents?
    /// The first signal that asked the run to stop (0: none); checked between requests.
    let interruption: @Sendable () -> Int32

    package init(
        writer: PlaylistWriter, contents: PlaylistContents, interruption: @escaping @Sendable () -> Int32 = { 0 }
    ) {
        self.writer = writer
        self.id = contents.id
        self.model = contents.writableURIs
        self.snapshot = contents.snapshot
        self.interruption = interruption
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
        proven = now
    }

    /// One step, sent and settled (`PlaylistWriter.sendSettled`) against the model: landed when
    /// the playlist holds what the step leaves, not landed when it holds what it held. Once it
    /// landed the model takes the step in place: a 10,000-item sort copied its model thousands of
    /// times when each step made a new one.
    mutating func perform(_ step: PlaylistEditPlan.Step) async throws {
        let landed = try await Self.sendSettled(
            step, model: model, snapshot: snapshot, stepsDone: stepsDone, id: id, writer: writer)
        PlaylistEditPlan.apply(step, to: &model, uri: { $0 }, make: { $0 })
        snapshot = landed
    }

    /// Sends `step` and settles an unknown outcome; the snapshot_id it left. Holds `model` only
    /// while it runs, so the caller's model is not shared when it applies the step after.
    static func sendSettled(
        _ step: PlaylistEditPlan.Step, model: [String?], snapshot: String?, stepsDone: Int, id: String,
        writer: PlaylistWriter
    ) async throws -> String? {
        let reader = { try await PlaylistContents.read(id, writer: writer, fields: PlaylistContents.uriFields) }
        var idempotent = false
        if case .remove = step { idempotent = true }  // removing every occurrence twice removes it once
        do {
            return try await writer.sendSettled(idempotent: idempotent) {
                try await writer.send(step, to: id, snapshot: snapshot)?["snapshot_id"]?.stringValue
            } settle: { () -> Settling<String?> in
                let now: PlaylistContents
                do {
                    now = try await reader()
                } catch {
                    return .stop(
                        Stopped(
                            cause: .failed(
                                ToolError.converting(error).with(
                                    prefix:
                                        """
                                        a request's answer was lost and the playlist could not be read to see whether \
                                        it landed
                                        """
                                )), stepsDone: stepsDone, model: model))
                }
                let uris = now.writableURIs
                if uris == PlaylistEditPlan.applying(step, to: model) { return .landed(now.snapshot) }
                if uris == model { return .notLanded }
                return .stop(Stopped(cause: .changedMeanwhile(count: now.count), stepsDone: stepsDone, model: uris))
            }
        } catch let stopped as Stopped {
            throw stopped
        } catch {
            // Another client's edit meanwhile makes later steps' positions drift until Spotify refuses
            // one (400): read once, and say so rather than count from the model and offer a finish
            // that would revert their edit.
            if stepsDone > 0, let now = try? await reader(), now.writableURIs != model,
                now.writableURIs != PlaylistEditPlan.applying(step, to: model)
            {
                throw Stopped(cause: .changedMeanwhile(count: now.count), stepsDone: stepsDone, model: now.writableURIs)
            }
            throw Stopped(cause: .failed(ToolError.converting(error)), stepsDone: stepsDone, model: model)
        }
    }

    func read() async throws -> PlaylistContents {
        try await PlaylistContents.read(id, writer: writer, fields: PlaylistContents.uriFields)
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
