import Foundation
import LoopbackHTTP
import ToolkitCore

/// What `PUT`/`DELETE /me/library` changed, over the generated library: `GET /me/tracks` lists
/// the saved tracks first (newest request first; a request's URIs in its order), then the
/// generated liked songs that were not removed; `GET /me/library/contains` agrees.
struct SavedLibrary: Sendable {
    struct Saved: Sendable, Equatable {
        var uri: String
        var addedAt: String
    }

    /// URIs saved (tracks, episodes, albums, shows...; not playlists), newest first.
    var added: [Saved] = []
    /// Generated liked songs removed, by index.
    var removedGenerated: Set<Int> = []
    /// Every write, in order: `{method, uris}` (for tests: `GET /_fake/saved-items`).
    var writes: [JSONValue] = []

    var isEmpty: Bool { added.isEmpty && removedGenerated.isEmpty }
}

extension FakeSpotifyService {
    /// The kinds of URI `/me/library` takes, and the scope a write and a read of each needs.
    static let libraryKinds: [String: (write: String, read: String)] = [
        "track": ("user-library-modify", "user-library-read"),
        "episode": ("user-library-modify", "user-library-read"),
        "album": ("user-library-modify", "user-library-read"),
        "show": ("user-library-modify", "user-library-read"),
        "audiobook": ("user-library-modify", "user-library-read"),
        "artist": ("user-follow-modify", "user-follow-read"),
        "user": ("user-follow-modify", "user-follow-read"),
        "playlist": ("playlist-modify-public", "playlist-read-private"),
    ]

    static let maxLibraryURIs = 40

    /// The request's `uris` as (kind, id, uri), or the 400 Spotify gives: none, more than 40, or
    /// one that is not a URI of a kind the library takes. Then the scopes of the kinds present.
    func libraryURIs(_ request: RouteRequest, write: Bool) -> Result<
        [(kind: String, id: String, uri: String)], ResponseError
    > {
        guard let text = request.http.queryValue("uris"), !text.isEmpty else {
            return .failure(ResponseError(Self.badRequest("Missing required parameter: uris")))
        }
        let uris = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard uris.count <= Self.maxLibraryURIs else {
            return .failure(ResponseError(Self.badRequest("Too many ids requested (at most \(Self.maxLibraryURIs))")))
        }
        var parsed: [(kind: String, id: String, uri: String)] = []
        for uri in uris {
            let parts = uri.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, parts[0] == "spotify", Self.libraryKinds[parts[1]] != nil,
                parts[1] == "user" ? !parts[2].isEmpty && parts[2].utf8.count <= 64 : Self.isBase62ID(parts[2])
            else {
                return .failure(ResponseError(Self.badRequest("Invalid URI: \(uri.prefix(80))")))
            }
            parsed.append((parts[1], parts[2], uri))
        }
        for kind in Set(parsed.map(\.kind)).sorted() {
            guard let scopes = Self.libraryKinds[kind] else { continue }
            if let refused = requires([write ? scopes.write : scopes.read], request) {
                return .failure(ResponseError(refused))
            }
        }
        return .success(parsed)
    }

    static func isBase62ID(_ text: String) -> Bool {
        text.utf8.count == 22 && text.utf8.allSatisfy { GeneratedLibrary.alphabet.contains($0) }
    }

    /// `PUT /me/library` (`save`) and `DELETE /me/library`: 200 with no body.
    func writeLibrary(_ request: RouteRequest, save: Bool) -> HTTPResponse {
        let uris: [(kind: String, id: String, uri: String)]
        switch libraryURIs(request, write: true) {
        case .failure(let error): return error.response
        case .success(let value): uris = value
        }
        let savedTracks = library.savedTracks
        state.withLock { state in
            let addedAt = isoTimestamp(state.now.timeIntervalSince1970)
            state.savedLibrary.writes.append([
                "method": .string(request.http.method), "uris": .array(uris.map { .string($0.uri) }),
            ])
            var fresh: [SavedLibrary.Saved] = []
            for (kind, id, uri) in uris {
                if kind == "playlist" {
                    if save { state.unfollowedPlaylists.remove(id) } else { state.unfollowedPlaylists.insert(id) }
                    continue
                }
                let generated = kind == "track" ? Self.likedIndex(ofTrackID: id, count: savedTracks) : nil
                if save {
                    let alreadySaved =
                        state.savedLibrary.added.contains { $0.uri == uri } || fresh.contains { $0.uri == uri }
                        || generated.map { !state.savedLibrary.removedGenerated.contains($0) } == true
                    if !alreadySaved { fresh.append(SavedLibrary.Saved(uri: uri, addedAt: addedAt)) }
                } else {
                    state.savedLibrary.added.removeAll { $0.uri == uri }
                    if let generated { state.savedLibrary.removedGenerated.insert(generated) }
                }
            }
            state.savedLibrary.added.insert(contentsOf: fresh, at: 0)
        }
        return HTTPResponse(status: 200)
    }

    /// `GET /me/library/contains`: `[true, false, ...]`, one per URI.
    func libraryContains(_ request: RouteRequest) -> HTTPResponse {
        let uris: [(kind: String, id: String, uri: String)]
        switch libraryURIs(request, write: false) {
        case .failure(let error): return error.response
        case .success(let value): uris = value
        }
        let library = self.library
        let (saved, unfollowed) = state.withLock { ($0.savedLibrary, $0.unfollowedPlaylists) }
        let playlistIDs = Set(Self.libraryPlaylists(library).compactMap { $0["id"]?.stringValue })
        let answers: [JSONValue] = uris.map { kind, id, uri in
            if kind == "playlist" { return .bool(playlistIDs.contains(id) && !unfollowed.contains(id)) }
            if saved.added.contains(where: { $0.uri == uri }) { return true }
            guard kind == "track", let index = Self.likedIndex(ofTrackID: id, count: library.savedTracks) else {
                return false
            }
            return .bool(!saved.removedGenerated.contains(index))
        }
        return WebAPI.json(.array(answers))
    }

    /// `GET /me/tracks` with the library writes applied; nil when there are none (the plain
    /// generated list, built without this).
    func savedTracksWithWrites(_ request: RouteRequest) -> HTTPResponse? {
        let saved = state.withLock { $0.savedLibrary }
        guard !saved.isEmpty else { return nil }
        let generatedCount = library.savedTracks
        let added = saved.added.filter { $0.uri.hasPrefix("spotify:track:") }
        let removed = saved.removedGenerated.filter { $0 < generatedCount }.sorted()
        let total = added.count + generatedCount - removed.count
        return page(request, maxLimit: 50, total: total, path: "/me/tracks", extraQuery: []) { range in
            range.map { position in
                if position < added.count {
                    let id = String(added[position].uri.dropFirst("spotify:track:".count))
                    return ["added_at": .string(added[position].addedAt), "track": Self.trackObject(id: id)]
                }
                // The position-th generated song that is still saved.
                var index = position - added.count
                for gap in removed where gap <= index { index += 1 }
                return GeneratedLibrary.savedTrack(index: index)
            }
        }
    }

    /// A track object for an id: a generated liked song's, the player's catalog's, or a made-up one.
    static func trackObject(id: String) -> JSONValue {
        if let index = likedIndex(ofTrackID: id, count: GeneratedLibrary.maxGenerated) {
            return GeneratedLibrary.track(seed: "liked", index: index, inPlaylist: false)
        }
        return PlaybackClock.trackObject(PlaybackClock().track(forURI: "spotify:track:\(id)"))
    }

    /// The index of a generated liked song (below `count`) with this id, if it is one.
    static func likedIndex(ofTrackID id: String, count: Int) -> Int? {
        let bytes = Array(id.utf8)
        guard bytes.count == 22 else { return nil }
        var value = 0
        for byte in bytes[11...] {
            guard let digit = GeneratedLibrary.alphabet.firstIndex(of: byte) else { return nil }
            value = value * 62 + digit
            if value >= count { return nil }
        }
        return GeneratedLibrary.objectID(seed: "liked", index: value) == id ? value : nil
    }

    /// `GET /_fake/saved-items`: the writes and what they changed.
    func savedItemsReport() -> HTTPResponse {
        Control.json(
            state.withLock { state in
                [
                    "added": .array(state.savedLibrary.added.map { .string($0.uri) }),
                    "removed_generated": .array(state.savedLibrary.removedGenerated.sorted().map { .int($0) }),
                    "unfollowed_playlists": .array(state.unfollowedPlaylists.sorted().map { .string($0) }),
                    "writes": .array(state.savedLibrary.writes),
                ]
            })
    }
}
