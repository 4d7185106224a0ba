import Foundation
import HTTPClient
import LoopbackHTTP
import ToolkitCore

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

    package init(api: SpotifyWebAPI) {
        self.api = api
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
                    "Spotify refused the change (403: \(message)); you can change only playlists you own or collaborate on"
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
            guard let json = try? JSONValue.parse(result.body), json.objectValue != nil else {
                throw SpotifyWebAPI.UnreadableBody("the body is not a JSON object")
            }
            let page = json["items"]?.objectValue != nil ? json["items"] : json["tracks"]
            guard let total = page?["total"]?.intValue else { return nil }
            guard PagePlan(total: total) != nil else {
                throw SpotifyWebAPI.UnreadableBody("the playlist's total \(total) is out of range")
            }
            return State(snapshot: json["snapshot_id"]?.stringValue, total: total)
        }
        guard let state = answer.value else {
            throw ToolError.noPermission(
                "playlist \(id): Spotify shows its items, and lets you change it, only if you own or collaborate on it; you can change only playlists you own or collaborate on"
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
            if result.status == 403, SpotifyErrorBody(result).isMissingScope { throw scope.error }
            throw Refusal(result: result)
        }
        return result.body.isEmpty ? nil : try? JSONValue.parse(result.body)
    }

    /// Whether an error from `write` leaves the outcome unknown (rather than surely not done).
    static func outcomeUnknown(_ error: any Error) -> Bool {
        if error is Refusal { return false }
        guard let error = error as? ToolError else { return true }
        // 77: the login or scope (Spotify refused before doing anything); 75: a 429 past the wait
        // cap (not done); 78, 64, 70: ours. 69 covers 5xx, timeouts, resets and cut answers.
        return error.exitCode == .unavailable && !error.message.contains("QUOTA_EXCEEDED")
    }

    /// `POST /me/playlists`: the new playlist's object. When the answer is lost, the user's newest
    /// playlists are searched for one of this name that was not there before, so a retry never
    /// makes a second one.
    package func create(name: String, description: String?, isPublic: Bool, collaborative: Bool) async throws
        -> JSONValue
    {
        var body: JSONObject = [
            "name": .string(name), "public": .bool(isPublic), "collaborative": .bool(collaborative),
        ]
        if let description { body["description"] = .string(description) }
        let before = try await newestPlaylists(named: name)
        for send in 1...Self.maxSends {
            do {
                guard let created = try await write("POST", "/me/playlists", body: .object(body)),
                    created["id"]?.stringValue != nil
                else {
                    throw ToolError.unavailable("Spotify's answer to creating playlist '\(name)' names no playlist")
                }
                return created
            } catch  where Self.outcomeUnknown(error) {
                let now = try await newestPlaylists(named: name)
                if let made = now.first(where: { !before.contains($0) }) {
                    return ["id": .string(made), "name": .string(name)]
                }
                if send == Self.maxSends { throw error }
            }
        }
        throw ToolError.software("create: no send left")
    }

    /// Ids of the user's newest playlists (the first page: a new one is listed first) named `name`.
    func newestPlaylists(named name: String) async throws -> Set<String> {
        let page = try await api.get("/me/playlists", query: [("offset", "0"), ("limit", "50")])
        let items = (try? JSONValue.parse(page.body))?["items"]?.arrayValue ?? []
        return Set(items.compactMap { $0["name"]?.stringValue == name ? $0["id"]?.stringValue : nil })
    }

    /// Inserts `uris` at `position` (nil: at the end), in batches of 100 that keep their order.
    /// `state` is the playlist before; the state after is returned. `landed` hears how many items
    /// are in so far (for the message if a later batch fails).
    package func add(
        _ uris: [String], to id: String, at position: Int?, from state: State, landed: (Int) -> Void = { _ in }
    ) async throws -> State {
        var state = state
        var at = position ?? state.total
        var done = 0
        for batch in uris.chunked(Self.batchSize) {
            state = try await send(batch, to: id, at: at, from: state) { body in
                try await write("POST", "/playlists/\(id)/items", body: body)
            }
            at += batch.count
            done += batch.count
            landed(done)
        }
        return state
    }

    /// One batch of an add (or the rest of a replace): sent, and when its answer is lost, settled
    /// by reading the playlist again.
    func send(
        _ batch: [String], to id: String, at position: Int, from before: State,
        _ post: (JSONValue) async throws -> JSONValue?
    ) async throws -> State {
        let body: JSONValue = ["uris": .array(batch.map(JSONValue.string)), "position": .int(position)]
        for send in 1...Self.maxSends {
            do {
                let answer = try await post(body)
                return State(snapshot: answer?["snapshot_id"]?.stringValue, total: before.total + batch.count)
            } catch  where Self.outcomeUnknown(error) {
                let now = try await state(of: id)
                if now.total == before.total + batch.count,
                    try await uris(of: id, in: position..<position + batch.count) == batch.map(Optional.some)
                {
                    return now  // it landed; the answer was lost
                }
                guard now == before else {
                    throw ToolError.unavailable(
                        "playlist \(id) changed while items were being added (it now holds \(now.total) items, not \(before.total) or \(before.total + batch.count)); whether the batch at position \(position) landed cannot be told"
                    )
                }
                if send == Self.maxSends { throw error }  // it did not land, and kept failing
            }
        }
        throw ToolError.software("add: no send left")
    }

    /// Makes the playlist's items exactly `uris`, in order: the first 100 with `PUT` (which
    /// replaces), the rest appended with `POST`.
    package func replace(_ id: String, with items: [String], from state: State, landed: (Int) -> Void = { _ in })
        async throws -> State
    {
        let first = Array(items.prefix(Self.batchSize))
        var after: State?
        for send in 1...Self.maxSends {
            do {
                let answer = try await write(
                    "PUT", "/playlists/\(id)/items", body: ["uris": .array(first.map(JSONValue.string))])
                after = State(snapshot: answer?["snapshot_id"]?.stringValue, total: first.count)
                break
            } catch  where Self.outcomeUnknown(error) {
                let now = try await self.state(of: id)
                if now.total == first.count, try await uris(of: id, in: 0..<first.count) == first.map(Optional.some) {
                    after = now
                    break
                }
                if send == Self.maxSends { throw error }
            }
        }
        guard var state = after else { throw ToolError.software("replace: no state") }
        landed(first.count)
        let rest = Array(items.dropFirst(Self.batchSize))
        state = try await add(rest, to: id, at: nil, from: state) { landed(first.count + $0) }
        return state
    }

    /// Removes every occurrence of each of `uris`, 100 URIs a request. Removing is idempotent; a
    /// lost answer is still settled first: a snapshot_id that moved means it was carried out.
    package func remove(_ uris: [String], from id: String, state: State) async throws -> State {
        var state = state
        for batch in uris.uniqued().chunked(Self.batchSize) {
            let body: JSONValue = ["items": .array(batch.map { ["uri": .string($0)] })]
            for send in 1...Self.maxSends {
                do {
                    let answer = try await write("DELETE", "/playlists/\(id)/items", body: body)
                    state.snapshot = answer?["snapshot_id"]?.stringValue ?? state.snapshot
                    break
                } catch  where Self.outcomeUnknown(error) {
                    let now = try await self.state(of: id)
                    if now.snapshot != state.snapshot {
                        state = now
                        break
                    }
                    if send == Self.maxSends { throw error }
                }
            }
        }
        return try await self.state(of: id)
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
