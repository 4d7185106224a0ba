import Foundation
import LoopbackHTTP
import ToolkitCore

/// What Spotify knows about the fixture user beyond playlists and liked songs, in the 2026 shapes
/// of Spotify's OpenAPI description: top tracks and artists (`/me/top/{type}`, offset paging),
/// saved albums (`/me/albums`, each album with its first 50 tracks embedded, the rest from
/// `/albums/{id}/tracks`), followed artists (`/me/following?type=artist`, cursor paging with
/// `after`), and the queue (`/me/player/queue`, from the player's session). Each checks its scope
/// as Spotify does: 403 "Insufficient client scope" without it.
///
/// The data is generated and deterministic:
/// - top tracks: 60 for `short_term`, 80 for `medium_term` (the default), 99 for `long_term`;
/// - top artists: 30, 60 and 97 of the library's artists, each range in its own order;
/// - followed artists: 75, in the order of their ids (Spotify's cursor is the last id);
/// - saved albums: 55, newest saved first; the second holds 60 tracks, the others 8 to 14.
extension FakeSpotifyService {
    enum MeLibrary {
        static let ranges = ["short_term": 60, "medium_term": 80, "long_term": 99]
        static let artistRanges = ["short_term": 30, "medium_term": 60, "long_term": 97]
        static let followedCount = 75
        static let savedAlbumCount = 55
        /// The saved album whose tracks do not fit in the page embedded in its object.
        static let longAlbumIndex = 1
        static let longAlbumTracks = 60

        /// A full ArtistObject as Development Mode apps get it (no followers, no popularity).
        static func artist(_ index: Int) -> JSONValue {
            guard var object = GeneratedLibrary.artists[index % GeneratedLibrary.artists.count].objectValue else {
                return .null
            }
            object["genres"] = .array(index % 4 == 3 ? [] : [.string("genre \(index % 11)"), "fixture pop"])
            object["images"] = GeneratedLibrary.images(object["id"]?.stringValue ?? "")
            return .object(object)
        }

        /// The `rank`-th artist (from 0) of a range: each range has its own order.
        static func topArtist(rank: Int, range: String) -> JSONValue {
            let step = range == "short_term" ? 7 : (range == "medium_term" ? 11 : 1)
            return artist(rank * step % GeneratedLibrary.artists.count)
        }

        /// The followed artists, ordered by id as Spotify's cursor (the last id) pages them.
        static let followed: [JSONValue] = (0..<followedCount).map { artist($0) }.sorted {
            ($0["id"]?.stringValue ?? "") < ($1["id"]?.stringValue ?? "")
        }

        static func trackCount(ofSavedAlbum index: Int) -> Int {
            index == longAlbumIndex ? longAlbumTracks : 8 + index % 7
        }

        static func savedAlbumIndex(ofID id: String) -> Int? {
            (0..<savedAlbumCount).first { albumID($0) == id }
        }

        static func albumID(_ index: Int) -> String { GeneratedLibrary.objectID(seed: "savedalbum", index: index) }

        /// A SimplifiedTrackObject of saved album `album` (no `album` key, as Spotify sends them).
        static func albumTrack(album: Int, number: Int) -> JSONValue {
            let seed = "savedalbum\(album)"
            let id = GeneratedLibrary.objectID(seed: seed, index: number)
            return [
                "artists": [GeneratedLibrary.artists[album % GeneratedLibrary.artists.count]],
                "disc_number": .int(number < 40 ? 1 : 2),
                "duration_ms": .int(GeneratedLibrary.duration(seed: seed, index: number)),
                "explicit": false,
                "external_urls": ["spotify": .string("https://open.spotify.com/track/\(id)")],
                "href": .string("https://api.spotify.com/v1/tracks/\(id)"),
                "id": .string(id),
                "is_local": false,
                "is_playable": true,
                "name": .string("Album \(album) Song \(number + 1)"),
                "preview_url": .null,
                "track_number": .int(number < 40 ? number + 1 : number - 39),
                "type": "track",
                "uri": .string("spotify:track:\(id)"),
            ]
        }

        /// The AlbumObject of saved album `index`, without its tracks page.
        static func album(_ index: Int) -> JSONObject {
            let id = albumID(index)
            return [
                "album_type": "album", "total_tracks": .int(trackCount(ofSavedAlbum: index)),
                "external_urls": ["spotify": .string("https://open.spotify.com/album/\(id)")],
                "href": .string("https://api.spotify.com/v1/albums/\(id)"), "id": .string(id),
                "images": GeneratedLibrary.images(id), "name": .string("Saved Album \(index)"),
                "release_date": .string("20\(10 + index % 16)"), "release_date_precision": "year",
                "type": "album", "uri": .string("spotify:album:\(id)"),
                "artists": [GeneratedLibrary.artists[index % GeneratedLibrary.artists.count]],
                "copyrights": [["text": "(P) Fixture Records", "type": "P"]], "genres": [],
            ]
        }
    }

    /// `GET /me/top/{type}`: `tracks` or `artists`, `time_range` (default medium_term), offset paging.
    func topItems(_ request: RouteRequest) -> HTTPResponse {
        if let refused = requires(["user-top-read"], request) { return refused }
        let type = request[parameter: "type"]
        guard type == "tracks" || type == "artists" else { return WebAPI.error(400, "Unsupported type: \(type)") }
        let timeRange = request.http.queryValue("time_range") ?? "medium_term"
        guard let total = (type == "tracks" ? MeLibrary.ranges : MeLibrary.artistRanges)[timeRange] else {
            return WebAPI.error(400, "Invalid time range: \(timeRange)")
        }
        let path = "/me/top/\(type)"
        return page(request, maxLimit: 50, total: total, path: path, extraQuery: [("time_range", timeRange)]) { ranks in
            ranks.map { rank in
                type == "tracks"
                    ? GeneratedLibrary.track(seed: "top" + timeRange, index: rank, inPlaylist: false)
                    : MeLibrary.topArtist(rank: rank, range: timeRange)
            }
        }
    }

    /// `GET /me/albums`: SavedAlbumObjects `{added_at, album}`, each album with its first 50 tracks.
    func savedAlbums(_ request: RouteRequest) -> HTTPResponse {
        if let refused = requires(["user-library-read"], request) { return refused }
        return page(request, maxLimit: 50, total: MeLibrary.savedAlbumCount, path: "/me/albums", extraQuery: []) {
            range in
            range.map { index in
                var album = MeLibrary.album(index)
                let count = MeLibrary.trackCount(ofSavedAlbum: index)
                album["tracks"] = pageObject(
                    request, id: nil, path: "/albums/\(MeLibrary.albumID(index))/tracks", offset: 0, limit: 50,
                    total: count, items: (0..<min(50, count)).map { MeLibrary.albumTrack(album: index, number: $0) },
                    extraQuery: [])
                return [
                    "added_at": .string(GeneratedLibrary.timestamp(index: 500_000 - index * 1_440)),
                    "album": .object(album),
                ]
            }
        }
    }

    /// `GET /albums/{id}/tracks` for the saved albums: their simplified tracks, 50 a page.
    /// (Other albums: 404. The album sources of spotify-tracks may widen this to any album.)
    /// `GET /albums/{id}` for a saved album: the album object with its first page of tracks.
    func savedAlbum(_ request: RouteRequest, _ index: Int) -> HTTPResponse {
        var object = MeLibrary.album(index)
        let total = MeLibrary.trackCount(ofSavedAlbum: index)
        object["tracks"] = pageObject(
            request, id: nil, path: "/albums/\(MeLibrary.albumID(index))/tracks", offset: 0, limit: 50, total: total,
            items: (0..<min(50, total)).map { MeLibrary.albumTrack(album: index, number: $0) }, extraQuery: [])
        return WebAPI.json(.object(object))
    }

    func savedAlbumTracks(_ request: RouteRequest) -> HTTPResponse {
        guard let index = MeLibrary.savedAlbumIndex(ofID: request[parameter: "id"]) else {
            return Fixtures.response("error-404-not-found.json", status: 404)
        }
        let path = "/albums/\(MeLibrary.albumID(index))/tracks"
        return page(request, maxLimit: 50, total: MeLibrary.trackCount(ofSavedAlbum: index), path: path, extraQuery: [])
        { range in
            range.map { MeLibrary.albumTrack(album: index, number: $0) }
        }
    }

    /// `GET /me/following?type=artist`: `{"artists": CursorPagingObject}`, the artists after the
    /// id `after` names, `limit` 1...50 (default 20); `cursors.after` is the last id of the page.
    func followedArtists(_ request: RouteRequest) -> HTTPResponse {
        if let refused = requires(["user-follow-read"], request) { return refused }
        let query = request.http
        guard query.queryValue("type") == "artist" else {
            return WebAPI.error(400, "type must be artist")
        }
        guard let limit = Int(query.queryValue("limit") ?? "20"), (1...50).contains(limit) else {
            return Fixtures.response("error-400-invalid-limit.json", status: 400)
        }
        let all = MeLibrary.followed
        var start = 0
        if let after = query.queryValue("after") {
            guard let index = all.firstIndex(where: { $0["id"]?.stringValue == after }) else {
                return WebAPI.error(400, "Invalid after cursor")
            }
            start = index + 1
        }
        let items = Array(all[start..<min(start + limit, all.count)])
        let base = "http://\(query.header("Host") ?? "127.0.0.1")/v1/me/following?type=artist"
        let last = items.last?["id"]?.stringValue
        let more = start + items.count < all.count
        return WebAPI.json([
            "artists": [
                "href": .string("\(base)&limit=\(limit)" + (query.queryValue("after").map { "&after=\($0)" } ?? "")),
                "items": .array(items),
                "limit": .int(limit),
                "next": more && last != nil ? .string("\(base)&after=\(last!)&limit=\(limit)") : .null,
                "cursors": ["after": more ? last.map(JSONValue.string) ?? .null : .null, "before": .null],
                "total": .int(all.count),
            ]
        ])
    }

    /// `GET /me/player/queue`: what the player plays now and what comes next in its session (the
    /// queued items first, as `POST /me/player/queue` put them there), at most 20.
    func playerQueue(_ request: RouteRequest) -> HTTPResponse {
        if let refused = requires(["user-read-currently-playing", "user-read-playback-state"], request) {
            return refused
        }
        let now = Date()
        let body: JSONValue = state.withLock { state in
            state.playback.settle(now)
            let clock = state.playback
            switch clock.mode {
            case .tracks:
                guard let current = clock.current else { return ["currently_playing": .null, "queue": []] }
                let next = clock.tracks.dropFirst(clock.index + 1).prefix(20)
                return [
                    "currently_playing": PlaybackClock.trackObject(current),
                    "queue": .array(next.map(PlaybackClock.trackObject)),
                ]
            case .episode:
                let item = Fixtures.files["currently-playing-episode.json"].flatMap { try? JSONValue.parse($0) }?[
                    "item"]
                return ["currently_playing": item ?? .null, "queue": []]
            case .ad, .nothing:
                return ["currently_playing": .null, "queue": []]
            }
        }
        return WebAPI.json(body)
    }
}
