import HTTPClient
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes to playlists: create, add, replace, remove, change details. Items go in batches of at
/// most 100 (Spotify's limit), in order.
///
/// A write whose answer is lost (the connection dropped after the request went out, a timeout, a
/// cut or unreadable answer, a 5xx) may or may not have been carried out, and adding items is not
/// idempotent, so it is never sent again blindly: the playlist is read again (its snapshot_id, its
/// total, and where needed the items the batch would have put there) to see whether the batch
/// landed, and only a batch that provably did not is sent again. A 429 means Spotify did not carry
/// it out: it is waited out as reads are. What cannot be settled ends the run with a message that
/// says what the playlist holds and which items landed.
package struct PlaylistWriter: Sendable {
    package let api: SpotifyWebAPI
    package static let batchSize = 100
    /// The most items a playlist holds.
    package static let maxItems = 10_000
    /// Sends of one batch, the first included, when its answers keep getting lost.
    static let maxSends = 3

    package static let scope = SpotifyScope.Need(
        [SpotifyScope.modifyPrivatePlaylists, SpotifyScope.modifyPublicPlaylists], for: "changing playlists")

    /// Seconds to wait before a read that settles a lost answer (the second waits twice as long);
    /// tests shorten it (`DeveloperSettings.settlePause`).
    package var settlePause: Double

    package init(api: SpotifyWebAPI, settlePause: Double = 1) {
        self.api = api
        self.settlePause = settlePause
    }

    /// What a playlist holds: enough to plan a write and to tell whether one landed.
    package struct State: Sendable, Equatable {
        package var snapshot: String?
        package var total: Int

        package init(snapshot: String?, total: Int) {
            self.snapshot = snapshot
            self.total = total
        }
    }

    /// A write Spotify refused outright (400, 403, 404): nothing of that request was carried out.
    package struct Refusal: Error, Sendable, ToolErrorConvertible {
        package var result: HTTPResult
        package var message: String { SpotifyErrorBody(result).message }

        package var toolError: ToolError {
            switch result.status {
            case 403:
                .noPermission(
                    """
                    Spotify refused the change (403: \(message)); you can change only playlists you own or \
                    collaborate on
                    """
                )
            case 404: ToolError(.notFound, "no such playlist (404: \(message))")
            default: .dataError("Spotify refused the change (\(result.status): \(message))")
            }
        }
    }

    /// The playlist's snapshot_id and total. A playlist Spotify shows no items of (one you neither
    /// own nor collaborate on) cannot be changed either: that is said at once (77).
    package func state(of id: String) async throws -> State {
        let answer = try await api.perform(
            method: "GET", path: "/playlists/\(id)", query: [("fields", "snapshot_id,items.total,tracks.total")],
            passing: [404]
        ) { result -> State? in
            if result.status == 404 { throw ToolError(.notFound, "playlist \(id): not found (404)") }
            let json = try SpotifyWebAPI.UnreadableBody.jsonObject(result.body)
            let page = json["items"]?.objectValue != nil ? json["items"] : json["tracks"]
            guard let total = page?["total"]?.intValue else { return nil }
            guard PagePlan(total: total) != nil else {
                throw SpotifyWebAPI.UnreadableBody("the playlist's total \(total) is out of range")
            }
            return State(snapshot: json["snapshot_id"]?.stringValue, total: total)
        }
        guard let state = answer.value else {
            throw ToolError.noPermission(
                """
                playlist \(id): Spotify shows its items, and lets you change it, only if you own or collaborate on \
                it; you can change only playlists you own or collaborate on
                """
            )
        }
        return state
    }

    /// The URIs at `range` of the playlist (nil for an entry without one), read by pages of 50.
    package func uris(of id: String, in range: Range<Int>) async throws -> [String?] {
        var uris: [String?] = []
        var offset = range.lowerBound
        while offset < range.upperBound {
            let limit = min(PagePlan.pageSize, range.upperBound - offset)
            let page = try await api.perform(
                method: "GET", path: "/playlists/\(id)/items",
                query: [
                    ("offset", String(offset)), ("limit", String(limit)),
                    ("fields", "items(item(uri),track(uri))"), PlaylistEntry.additionalTypes,
                ]
            ) { result -> [String?] in
                guard let items = (try? JSONValue.parse(result.body))?["items"]?.arrayValue else {
                    throw SpotifyWebAPI.UnreadableBody("the page has no items list")
                }
                return items.map { PlaylistEntry.item(of: $0)?["uri"]?.stringValue }
            }.value
            guard !page.isEmpty else { break }
            uris += page
            offset += page.count
        }
        return uris
    }

    /// The playlist record (see `PlaylistRecord`) as it is now.
    package func record(of id: String) async throws -> JSONObject {
        try await api.perform(
            method: "GET", path: "/playlists/\(id)",
            query: [("fields", PlaylistRecord.metadataFields), PlaylistEntry.additionalTypes]
        ) { result -> JSONObject in
            guard let json = try? JSONValue.parse(result.body), let record = PlaylistRecord.make(from: json) else {
                throw SpotifyWebAPI.UnreadableBody("the body is not a playlist object")
            }
            return record
        }.value
    }

    // MARK: Writes

    /// Sends one write. Its answer: the body of a success, or `Refusal` for a 400/403/404 (nothing
    /// done), or an error from `perform` (the outcome may be unknown: the caller finds out).
    func write(
        _ method: String, _ path: String, query: [(String, String)] = [], body: JSONValue?,
        scope: SpotifyScope.Need = Self.scope
    ) async throws -> JSONValue? {
        let data = body.map { Data($0.serialized().utf8) }
        let result = try await api.send(
            method: method, path: path, query: query, body: data, passing: [400, 403, 404], scope: scope)
        guard result.isSuccess else {
            if result.status == 403, SpotifyErrorBody(result).isMissingScope { throw await api.missingScope(scope) }
            throw Refusal(result: result)
        }
        return result.body.isEmpty ? nil : try? JSONValue.parse(result.body)
    }

    /// Whether an error from `write` leaves the outcome unknown (rather than surely not done):
    /// decided by the cause the request carried up, never by words in the message.
    static func outcomeUnknown(_ error: any Error) -> Bool {
        if error is Refusal { return false }
        guard let error = error as? ToolError else { return !(error is CancellationError) }
        return error.requestOutcome?.mayHaveLanded == true
    }

    /// How long to wait before the second settling read: twice the first, and when the server
    /// held the request past the time-out, the time-out again, since it may still carry it out.
    func secondPause(after error: any Error, first: Double) -> Double {
        let timedOut = (error as? ToolError)?.requestOutcome == .timedOut
        return first * 2 + (timedOut ? min(api.transport.timeout, 60) : 0)
    }

    /// `POST /me/playlists`: the new playlist's object. When the answer is lost, the user's newest
    /// playlists are searched for one of this name that was not there before, twice, with a
    /// pause, since the listing may lag the creation; only then is it sent again, so a retry
    /// never makes a second one. `sameName` is told the ids of those already named `name` (from
    /// that first listing, so the warning costs no request of its own).
    package func create(
        name: String, description: String?, isPublic: Bool, collaborative: Bool,
        sameName: (Set<String>) -> Void = { _ in }
    ) async throws -> JSONValue {
        var body: JSONObject = [
            "name": .string(name), "public": .bool(isPublic), "collaborative": .bool(collaborative),
        ]
        if let description { body["description"] = .string(description) }
        let before = try await newestPlaylists(named: name)
        if !before.isEmpty { sameName(before) }
        return try await sendSettled {
            guard let created = try await write("POST", "/me/playlists", body: .object(body)),
                created["id"]?.stringValue != nil
            else {
                throw ToolError.unavailable("Spotify's answer to creating playlist '\(name)' names no playlist")
            }
            return created
        } settle: {
            // The listing may lag the creation: a new playlist of this name, or none yet.
            let now = try await newestPlaylists(named: name)
            guard let made = now.first(where: { !before.contains($0) }) else { return .notLanded }
            return .landed(["id": .string(made), "name": .string(name)])
        }
    }

    /// Ids of the user's newest playlists (the first page: a new one is listed first) named `name`.
    func newestPlaylists(named name: String) async throws -> Set<String> {
        let page = try await api.get("/me/playlists", query: [("offset", "0"), ("limit", "50")])
        let items = (try? JSONValue.parse(page.body))?["items"]?.arrayValue ?? []
        return Set(items.compactMap { $0["name"]?.stringValue == name ? $0["id"]?.stringValue : nil })
    }

    /// Why an add stopped before its last batch; `landed` items are in, proven.
    package struct AddStopped: Error, Sendable, ToolErrorConvertible {
        package enum Cause: Error, Sendable {
            /// SIGINT, SIGTERM or SIGHUP (its number) came; nothing more was sent.
            case signal(Int32)
            /// The batch at `position` failed and did not land (or was refused).
            case failed(ToolError)
            /// Whether the batch at `position` landed cannot be told: `reason` says why.
            case unsettled(ToolError)
        }
        package var cause: Cause
        package var landed: Int
        /// Where the first batch not known to have landed goes, and its size.
        package var position: Int
        package var batch: Int

        /// The words when nothing above has better ones: what landed, and what is unknown.
        package var toolError: ToolError {
            let landed = "\(landed) items landed before position \(position)"
            switch cause {
            case .signal(let number):
                return ToolError(.answering(signal: number), "interrupted: \(landed); nothing more was sent")
            case .failed(let error): return ToolError(error.exitCode, "\(error.message); \(landed)")
            case .unsettled(let error):
                return ToolError(
                    error.exitCode, "\(error.message); \(landed); whether the next \(batch) landed is unknown")
            }
        }
    }

    /// Inserts `uris` at `position` (nil: at the end), in batches of 100 that keep their order.
    /// `state` is the playlist before (a snapshot_id it may lack); the state after is returned,
    /// with the snapshot_id of the last answer. `interruption` is checked before each batch.
    package func add(
        _ uris: [String], to id: String, at position: Int?, from state: State,
        interruption: @Sendable () -> Int32 = { 0 }, landed: (Int) -> Void = { _ in }
    ) async throws -> State {
        var state = state
        var at = position ?? state.total
        var done = 0
        for batch in uris.chunked(Self.batchSize) {
            let signal = interruption()
            if signal != 0 { throw AddStopped(cause: .signal(signal), landed: done, position: at, batch: batch.count) }
            do {
                state = try await send(batch, to: id, at: at, from: state)
            } catch let cause as AddStopped.Cause {
                throw AddStopped(cause: cause, landed: done, position: at, batch: batch.count)
            }
            at += batch.count
            done += batch.count
            landed(done)
        }
        return state
    }

    /// One batch of an add: sent, and when its outcome is unknown, settled by reading the
    /// playlist: landed when it holds one batch more and the batch sits at its position; not
    /// landed when it holds what it held (the same snapshot_id, when one is known), seen twice
    /// with a pause in between, since the request may be carried out late or the read lag;
    /// anything else cannot be told. Throws an `AddStopped.Cause`.
    func send(_ batch: [String], to id: String, at position: Int, from before: State) async throws -> State {
        let body: JSONValue = ["uris": .array(batch.map(JSONValue.string)), "position": .int(position)]
        do {
            return try await sendSettled {
                let answer = try await write("POST", "/playlists/\(id)/items", body: body)
                return State(snapshot: answer?["snapshot_id"]?.stringValue, total: before.total + batch.count)
            } settle: {
                try await settle(batch, in: id, at: position, from: before)
            }
        } catch let cause as AddStopped.Cause {
            throw cause
        } catch {
            throw AddStopped.Cause.failed(ToolError.converting(error))
        }
    }

    /// Whether a batch landed: one batch more and the batch at its position; or not: the total
    /// (and the snapshot_id, when one is known) as before; or neither.
    func settle(_ batch: [String], in id: String, at position: Int, from before: State) async throws
        -> Settling<State>
    {
        let now: State
        let window: [String?]
        do {
            now = try await state(of: id)
            window =
                now.total == before.total + batch.count
                ? try await uris(of: id, in: position..<position + batch.count) : []
        } catch {
            return .stop(
                AddStopped.Cause.unsettled(
                    ToolError.converting(error).with(
                        prefix:
                            """
                            the answer to the batch at position \(position) (\(batch.count) items) was lost, and the \
                            playlist could not be read to see whether it landed
                            """
                    )))
        }
        if now.total == before.total + batch.count, window == batch.map(Optional.some) { return .landed(now) }
        guard now.total == before.total, before.snapshot == nil || now.snapshot == before.snapshot else {
            return .stop(
                AddStopped.Cause.unsettled(
                    ToolError.tempFail(
                        """
                        playlist \(id) changed while items were being added (it now holds \(now.total) items, not \
                        \(before.total) or \(before.total + batch.count)); whether the batch at position \(position) \
                        (\(batch.count) items) landed cannot be told
                        """
                    )))
        }
        return .notLanded
    }

    /// Removes the playlist from the user's library (`DELETE /me/library` with its URI): Spotify
    /// has no delete; this unfollows it.
    package func unfollow(_ id: String) async throws {
        let need = SpotifyScope.Need([SpotifyScope.modifyPublicPlaylists], for: "removing a playlist from your library")
        try await SavedItems(api: api).remove(["spotify:playlist:\(id)"], scope: need)
    }

    /// `PUT /playlists/{id}` with the given details (name, description, public, collaborative).
    /// Setting details is idempotent; a lost answer is settled by reading them back.
    package func changeDetails(_ id: String, _ details: JSONObject) async throws {
        for send in 1...Self.maxSends {
            do {
                _ = try await write("PUT", "/playlists/\(id)", body: .object(details))
                return
            } catch  where Self.outcomeUnknown(error) {
                let now = try await api.get(
                    "/playlists/\(id)", query: [("fields", "name,description,public,collaborative")])
                if let json = try? JSONValue.parse(now.body), details.allSatisfy({ json[$0.key] == $0.value }) {
                    return
                }
                if send == Self.maxSends { throw error }
            }
        }
    }
}
