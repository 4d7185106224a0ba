import HTTPClient
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What Spotify knows about the user beyond playlists and liked songs: top tracks and artists
/// (`/me/top/{type}`), saved albums (`/me/albums`), followed artists (`/me/following`), and the
/// queue (`/me/player/queue`). The records are built by pure functions; the reads are thin.
package enum LibraryReads {
    /// `--range`: Spotify's `time_range` for top items, named as a person says it.
    package enum TopRange: String, Sendable, CaseIterable {
        /// About the last 4 weeks.
        case short
        /// About the last 6 months: Spotify's default, and ours.
        case medium
        /// About a year (Spotify computes it from several years of data).
        case long

        package var timeRange: String { rawValue + "_term" }

        /// "the last 4 weeks": for table titles and notes.
        package var description: String {
            switch self {
            case .short: "the last 4 weeks"
            case .medium: "the last 6 months"
            case .long: "about the last year"
            }
        }
    }

    package static let topScope = SpotifyScope.Need([SpotifyScope.readTop], for: "reading your top tracks and artists")
    static let followScope = SpotifyScope.Need([SpotifyScope.readFollow], for: "reading the artists you follow")
    static let queueScope = SpotifyScope.Need(["user-read-playback-state"], for: "reading the queue")

    // MARK: Records (pure)

    /// A top track's record: the track record (`TrackRecord`), then added_at null, position
    /// (rank - 1), playlist null, and rank (from 1, across pages: `offset + index + 1`).
    package static func topTrackRecord(_ track: JSONValue, rank: Int) -> TrackRecord? {
        guard var record = TrackRecord(spotify: track) else { return nil }
        record.addedAt = .null
        record.position = rank - 1
        record.playlist = .null
        record.rank = rank
        return record
    }

    /// An `artist` record (see `ArtistRecord`), with `rank` for top artists.
    package static func artistRecord(_ artist: JSONValue, rank: Int? = nil) -> ArtistRecord? {
        ArtistRecord(spotify: artist, rank: rank)
    }

    /// One saved album (`{added_at, album}` of `/me/albums`) as the track records of the tracks
    /// its answer embeds, in album order: Spotify's simplified tracks carry no `album`, so it is
    /// filled from the album; then disc_number, track_number, added_at (when the album was saved),
    /// position (zero-based in the album), playlist null. `rest`: the tracks the embedded page
    /// left out (an album of more than 50), to read from `/albums/{id}/tracks`.
    package static func savedAlbumTracks(_ saved: JSONValue) -> (records: [TrackRecord], rest: AlbumRest?) {
        guard let album = saved["album"], album.objectValue != nil else { return ([], nil) }
        let page = album["tracks"]
        let items = page?["items"]?.arrayValue ?? []
        let offset = max(page?["offset"]?.intValue ?? 0, 0)
        let records = items.enumerated().compactMap { index, track in
            albumTrackRecord(track, album: album, addedAt: saved["added_at"], position: offset + index)
        }
        let total = page?["total"]?.intValue ?? items.count
        let had = offset + items.count
        guard total > had, let id = album["id"]?.stringValue else { return (records, nil) }
        return (
            records,
            AlbumRest(
                id: id, from: had, total: total, album: album, addedAt: saved["added_at"] ?? .null)
        )
    }

    /// The rest of a saved album's tracks, beyond the page its answer embedded.
    package struct AlbumRest: Sendable {
        package var id: String
        /// The first position not yet read.
        package var from: Int
        package var total: Int
        /// The album object the records take their `album` from.
        package var album: JSONValue
        package var addedAt: JSONValue
    }

    /// A simplified track of an album as a track record (see `savedAlbumTracks`).
    static func albumTrackRecord(
        _ track: JSONValue, album: JSONValue, addedAt: JSONValue?, position: Int
    ) -> TrackRecord? {
        guard var object = track.objectValue else { return nil }
        if object["album"]?.objectValue == nil { object["album"] = album }
        guard var record = TrackRecord(spotify: .object(object)) else { return nil }
        record.discNumber = .init(track["disc_number"]?.intValue)
        record.trackNumber = .init(track["track_number"]?.intValue)
        record.addedAt = .init(addedAt?.stringValue)
        record.position = position
        record.playlist = .null
        return record
    }

    /// The queue (`GET /me/player/queue`: `{currently_playing, queue}`) as track or episode
    /// records: what plays now first, with current: true, then what plays next, current: false;
    /// position counts from 0 for what plays now (from 1 when nothing does). Null items (an
    /// unavailable track, an ad) are skipped.
    package static func queueRecords(_ body: JSONValue?) -> [TrackRecord] {
        var records: [TrackRecord] = []
        if var record = TrackRecord(spotify: body?["currently_playing"]) {
            record.position = 0
            record.current = true
            records.append(record)
        }
        var position = 1
        for item in body?["queue"]?.arrayValue ?? [] {
            guard var record = TrackRecord(spotify: item) else { continue }
            record.position = position
            record.current = false
            records.append(record)
            position += 1
        }
        return records
    }

    /// Whether the user can read and change a playlist's items: theirs, or collaborative (a
    /// collaborative playlist in the library is one they collaborate on). Lenient: a playlist
    /// without an owner id is not theirs.
    package static func isOwned(_ playlist: JSONValue, byUser userID: String) -> Bool {
        playlist["owner"]?["id"]?.stringValue == userID || playlist["collaborative"]?.boolValue == true
    }

    /// The next cursor of a `/me/following` answer (`{"artists": {items, next, cursors: {after}}}`),
    /// or nil at the end: no `next`, no items, or a cursor that does not move (a broken server
    /// must not keep us asking forever).
    static func nextCursor(_ page: JSONValue?, after previous: String?) -> String? {
        guard let page, !(page["items"]?.arrayValue ?? []).isEmpty, page["next"]?.stringValue != nil,
            let cursor = page["cursors"]?["after"]?.stringValue, !cursor.isEmpty, cursor != previous
        else { return nil }
        return cursor
    }
}

extension Pager {
    /// `fetchAll` for a `/me/...` list that needs `scope`: a 403 for want of it names the login
    /// that adds it (exit 77); any other 403 says what Spotify said.
    package func fetchAll(
        path: String, query: [(String, String)] = [], scope: SpotifyScope.Need,
        onTotalChanged: @escaping (_ was: Int, _ now: Int) -> Void = { _, _ in },
        progress: @escaping (_ done: Int, _ total: Int) -> Void = { _, _ in },
        body: @escaping (Page) throws -> Void
    ) async throws -> Summary {
        let summary = try await fetchAll(
            path: path, query: query, passing: [403], onTotalChanged: onTotalChanged, progress: progress, body: body)
        if let refused = summary.refused { throw await LibraryReads.refusal(refused, scope: scope, api: api) }
        return summary
    }
}

extension LibraryReads {
    /// A 403: the missing scope and its login, or what Spotify said.
    static func refusal(_ result: HTTPResult, scope: SpotifyScope.Need, api: SpotifyWebAPI) async -> ToolError {
        let error = SpotifyErrorBody(result)
        return error.isMissingScope ? await api.missingScope(scope) : .noPermission(error.forbiddenExplanation)
    }

    /// Most cursor pages of `/me/following` to walk (50 artists each: 100,000 artists); a safety
    /// net against a server whose cursors never end.
    static let maxFollowingPages = 2_000

    /// The artists the user follows (`GET /me/following?type=artist`, cursor paging with `after`,
    /// 50 a page), handed to `body` page by page in Spotify's order.
    package static func followedArtists(
        api: SpotifyWebAPI, body: ([JSONValue]) throws -> Void
    ) async throws {
        var after: String?
        for _ in 0..<maxFollowingPages {
            var query = [("type", "artist"), ("limit", "50")]
            if let after { query.append(("after", after)) }
            let page = try await api.perform(method: "GET", path: "/me/following", query: query, passing: [403]) {
                result -> Answer<JSONValue> in
                guard result.isSuccess else { return .refused(result) }
                guard let json = try? JSONValue.parse(result.body), let page = json["artists"],
                    page["items"]?.arrayValue != nil
                else { throw SpotifyWebAPI.UnreadableBody("the body has no artists page with items") }
                return .value(page)
            }
            .value
            guard case .value(let artists) = page else {
                if case .refused(let result) = page { throw await refusal(result, scope: followScope, api: api) }
                return
            }
            try body(artists["items"]?.arrayValue ?? [])
            guard let next = nextCursor(artists, after: after) else { return }
            after = next
        }
    }

    /// The saved album's tracks beyond its embedded page, from `/albums/{id}/tracks` (50 a page,
    /// in order), as records.
    package static func rest(of album: AlbumRest, api: SpotifyWebAPI) async throws -> [TrackRecord] {
        guard let plan = PagePlan(total: album.total) else {
            throw ToolError.unavailable("Spotify's album \(album.id) says it holds \(album.total) tracks")
        }
        var records: [TrackRecord] = []
        for offset in stride(from: album.from, to: album.total, by: PagePlan.pageSize) {
            let query = [("offset", String(offset)), ("limit", String(PagePlan.pageSize)), TrackRecord.market]
            let page = try await api.perform(method: "GET", path: "/albums/\(album.id)/tracks", query: query) {
                try Pager.readPage($0.body, offset: offset, plan: plan)
            }
            .value
            for (index, track) in page.items.enumerated() {
                if let record = albumTrackRecord(
                    track, album: album.album, addedAt: album.addedAt, position: offset + index)
                {
                    records.append(record)
                }
            }
        }
        return records
    }

    /// `GET /me/player/queue`: the body, or nil when Spotify sends none (204: no player).
    package static func queue(api: SpotifyWebAPI) async throws -> JSONValue? {
        let result = try await api.get("/me/player/queue", passing: [403])
        if result.status == 403 { throw await refusal(result, scope: queueScope, api: api) }
        return try SpotifyPlayer.body(of: result)
    }

    /// The current user's id: the login's, kept when it was made, else `GET /me` (a request of
    /// the daily quota that `--owned` spent on every run).
    package static func userID(api: SpotifyWebAPI) async throws -> String {
        if let stored = await api.tokens.storedUserID() { return stored }
        let result = try await api.get("/me")
        guard let id = (try? JSONValue.parse(result.body))?["id"]?.stringValue, !id.isEmpty else {
            throw ToolError.unavailable("Spotify's answer to GET /me has no user id")
        }
        return id
    }
}
