import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The user's library, written through the 2026 endpoints: `PUT`/`DELETE /me/library?uris=a,b`
/// save and remove Spotify URIs (tracks and episodes to Liked Songs and Your Episodes, a playlist
/// URI follows or unfollows the playlist), and `GET /me/library/contains?uris=a,b` asks which are
/// there. At most 40 URIs a request: longer lists go in batches of 40, in order, one after the
/// other. Both writes are idempotent (saving a saved item or removing a missing one changes
/// nothing), so a batch whose answer was lost is sent again like a GET.
///
/// The caller says what the URIs need (`SpotifyScope.Need`): `user-library-modify` for tracks
/// and episodes, `playlist-modify-public` for playlists; a 403 for a missing scope becomes
/// exit 77 naming it and the login that adds it.
package struct SavedItems: Sendable {
    package var api: SpotifyWebAPI

    package init(api: SpotifyWebAPI) {
        self.api = api
    }

    /// Spotify's limit of URIs per request.
    package static let batchSize = 40

    /// `uris` cut into batches of at most `size`, in order (none for an empty list). Pure.
    package static func batches(_ uris: [String], size: Int = batchSize) -> [[String]] {
        let size = max(size, 1)
        return stride(from: 0, to: uris.count, by: size).map { Array(uris[$0..<min($0 + size, uris.count)]) }
    }

    /// `PUT /me/library` for every batch, in order.
    package func save(
        _ uris: [String], scope: SpotifyScope.Need, interruption: @Sendable () -> Int32 = { 0 }
    ) async throws {
        try await write("PUT", uris, scope: scope, verb: "saved", interruption: interruption)
    }

    /// `DELETE /me/library` for every batch, in order.
    package func remove(
        _ uris: [String], scope: SpotifyScope.Need, interruption: @Sendable () -> Int32 = { 0 }
    ) async throws {
        try await write("DELETE", uris, scope: scope, verb: "removed", interruption: interruption)
    }

    /// `GET /me/library/contains` for every batch: one answer per URI, in order.
    package func contains(_ uris: [String], scope: SpotifyScope.Need) async throws -> [Bool] {
        var answers: [Bool] = []
        answers.reserveCapacity(uris.count)
        for batch in Self.batches(uris) {
            let outcome = try await api.perform(
                method: "GET", path: "/me/library/contains", query: [("uris", batch.joined(separator: ","))],
                scope: scope
            ) { result -> [Bool] in
                guard let values = (try? JSONValue.parse(result.body))?.arrayValue,
                    values.count == batch.count
                else {
                    throw SpotifyWebAPI.UnreadableBody("expected a list of \(batch.count) true or false")
                }
                return try values.map { value in
                    guard let flag = value.boolValue else {
                        throw SpotifyWebAPI.UnreadableBody(
                            "expected true or false, got \(value.serialized().prefix(40))")
                    }
                    return flag
                }
            }
            answers += outcome.value
        }
        return answers
    }

    /// One write, batch by batch. A failure after some batches says how many URIs went through,
    /// so the caller knows what state the library was left in. A signal (`interruption`, checked
    /// between batches) stops it there and says so, as every playlist write does.
    func write(
        _ method: String, _ uris: [String], scope: SpotifyScope.Need, verb: String,
        interruption: @Sendable () -> Int32 = { 0 }
    ) async throws {
        var done = 0
        for batch in Self.batches(uris) {
            let signal = interruption()
            if signal != 0 {
                throw ToolError(
                    .answering(signal: signal),
                    """
                    interrupted: the first \(done) of \(uris.count) were \(verb); the last \(uris.count - done) were \
                    not sent (running it again does no harm)
                    """
                )
            }
            do {
                _ = try await api.send(
                    method: method, path: "/me/library", query: [("uris", batch.joined(separator: ","))], body: nil,
                    scope: scope, idempotent: true)
            } catch var error as ToolError where done > 0 || error.requestOutcome?.mayHaveLanded == true {
                // A batch whose answer was lost may have been carried out: said, never counted as not.
                let rest = uris.count - done - batch.count
                let unknown =
                    error.requestOutcome?.mayHaveLanded == true
                    ? "whether the next \(batch.count) were is unknown" : "the next \(batch.count) were not"
                error.message +=
                    """
                     (the first \(done) of \(uris.count) were \(verb); \
                    \(unknown)\(rest > 0 ? "; the last \(rest) were not sent" : ""))
                    """
                throw error
            }
            done += batch.count
        }
    }
}
