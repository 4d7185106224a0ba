import Foundation
import LoopbackHTTP
import ToolkitCore

/// The catalogue: albums, artists, shows, tracks and episodes, generated from their ids as the
/// playlists are (deterministic, nothing stored), in the 2026 Development Mode shapes (no
/// `available_markets`, `popularity`, `label`, `album_group`, `followers`, `publisher`).
///
/// Ids (22 base62 characters, digits after a prefix):
/// - artist `art` + KKK + 12 zeros + CCCC: artist K with C releases, newest first; release k is
///   an album (k % 5 = 0 or 2), a single (1: two or three tracks named as the album after it),
///   a compilation (3) or an album it appears on (4); release 2 of 60 tracks spans two pages;
///   Band of Horses of the fixtures (`0OdUWJ0sBjDrqHygGUXeCF`) is artist 1 with 12 releases;
/// - album `alb` + KKK CCCC RRRR + 8 digits N: release R of that artist, N tracks (at most 9,999),
///   e.g. `alb0000000000000000060`, a lone album of 60 tracks on two discs;
/// - track `trk` + KKK CCCC RRRR NNNN IIII: track I of that album (and any track the fixtures,
///   the search catalogue or a read playlist hold);
/// - show `shw` + 19 digits N: N episodes (at most 10,000), newest first;
/// - episode `epi` + 9 digits N + 10 digits I: episode I of that show (and the fixtures' ones).
/// A malformed id answers 400 `Invalid base62 id`, an unknown one 404.
enum FakeCatalogue {
    static let maxTracks = 9_999
    static let maxEpisodes = 10_000
    /// Release k's group is `groups[k % 5]`.
    static let groups = ["album", "single", "album", "compilation", "appears_on"]
    /// The album groups Spotify names in `include_groups`.
    static let albumGroups = ["album", "single", "appears_on", "compilation"]

    struct Album: Equatable {
        var artist: Int
        var releases: Int
        var release: Int
        var tracks: Int

        var id: String { "alb" + digits(artist, 3) + digits(releases, 4) + digits(release, 4) + digits(tracks, 8) }
        var artistID: String { FakeCatalogue.artistID(artist, releases: releases) }
        /// album, single, compilation or appears_on: what `include_groups` filters by.
        var group: String { releases == 0 ? "album" : FakeCatalogue.groups[release % 5] }
        /// Singles carry songs of the album after them; others their own.
        var songGroup: Int { group == "single" ? release + 1 : release }

        init(artist: Int, releases: Int, release: Int, tracks: Int) {
            self.artist = artist
            self.releases = releases
            self.release = release
            self.tracks = tracks
        }

        init?(id: String) {
            guard id.utf8.count == 22, id.hasPrefix("alb"), let numbers = split(id.dropFirst(3), [3, 4, 4, 8]),
                numbers[3] <= FakeCatalogue.maxTracks
            else { return nil }
            self.init(artist: numbers[0], releases: numbers[1], release: numbers[2], tracks: numbers[3])
        }

        /// Release `k` of artist `artist` with `releases` releases.
        static func release(_ k: Int, artist: Int, releases: Int) -> Album {
            let tracks: Int
            switch FakeCatalogue.groups[k % 5] {
            case "single": tracks = 2 + k % 2
            case "compilation": tracks = 15
            case "appears_on": tracks = 10
            default: tracks = k == 2 ? 60 : 8 + k % 7
            }
            return Album(artist: artist, releases: releases, release: k, tracks: tracks)
        }

        var releaseDate: String {
            // Release 0 is the newest; each one before it 45 days earlier.
            releases == 0
                ? "2019-05-17"
                : String(GeneratedLibrary.timestamp(secondsSince1970: 1_780_272_000 - release * 45 * 86_400).prefix(10))
        }

        var name: String {
            releases == 0
                ? "Album of \(tracks)" : "Release \(release) of \(FakeCatalogue.artistName(artist, releases: releases))"
        }
    }

    /// Artists of the fixtures, served as generated ones under their own ids and names (so the
    /// README's recipes can name an artist of the fixture playlist).
    static let aliases: [(id: String, name: String, artist: Int, releases: Int)] = [
        ("0OdUWJ0sBjDrqHygGUXeCF", "Band of Horses", 1, 12)
    ]

    static func artistID(_ artist: Int, releases: Int) -> String {
        if let alias = aliases.first(where: { $0.artist == artist && $0.releases == releases }) { return alias.id }
        return "art" + digits(artist, 3) + String(repeating: "0", count: 12) + digits(releases, 4)
    }

    static func artistName(_ artist: Int, releases: Int) -> String {
        aliases.first { $0.artist == artist && $0.releases == releases }?.name ?? "Artist \(artist)"
    }

    /// The artist number and its releases of an `art` id (or an alias).
    static func artist(_ id: String) -> (artist: Int, releases: Int)? {
        if let alias = aliases.first(where: { $0.id == id }) { return (alias.artist, alias.releases) }
        guard id.utf8.count == 22, id.hasPrefix("art"), let numbers = split(id.dropFirst(3), [3, 12, 4]),
            numbers[1] == 0
        else { return nil }
        return (numbers[0], numbers[2])
    }

    static func showEpisodes(_ id: String) -> Int? {
        guard id.utf8.count == 22, id.hasPrefix("shw"), let numbers = split(id.dropFirst(3), [19]),
            numbers[0] <= maxEpisodes
        else { return nil }
        return numbers[0]
    }

    // MARK: Objects

    static func artistObject(_ artist: Int, releases: Int) -> JSONValue {
        let id = artistID(artist, releases: releases)
        return [
            "external_urls": ["spotify": .string("https://open.spotify.com/artist/\(id)")],
            "href": .string("https://api.spotify.com/v1/artists/\(id)"), "id": .string(id),
            "name": .string(artistName(artist, releases: releases)), "type": "artist",
            "uri": .string("spotify:artist:\(id)"),
        ]
    }

    static let variousArtists: JSONValue = [
        "external_urls": ["spotify": "https://open.spotify.com/artist/0LyfQWJT6nXafLPZqxe9Of"],
        "href": "https://api.spotify.com/v1/artists/0LyfQWJT6nXafLPZqxe9Of", "id": "0LyfQWJT6nXafLPZqxe9Of",
        "name": "Various Artists", "type": "artist", "uri": "spotify:artist:0LyfQWJT6nXafLPZqxe9Of",
    ]

    /// The full artist object (`GET /artists/{id}`): 2026 has no followers or popularity.
    static func fullArtist(_ artist: Int, releases: Int) -> JSONValue {
        guard var object = artistObject(artist, releases: releases).objectValue else { return .null }
        object["genres"] = []
        object["images"] = GeneratedLibrary.images(artistID(artist, releases: releases))
        return .object(object)
    }

    /// The simplified album (`/artists/{id}/albums` items, a track's `album`).
    static func simplifiedAlbum(_ album: Album) -> JSONValue {
        let id = album.id
        return [
            "album_type": .string(album.group == "appears_on" ? "album" : album.group),
            "total_tracks": .int(album.tracks),
            "external_urls": ["spotify": .string("https://open.spotify.com/album/\(id)")],
            "href": .string("https://api.spotify.com/v1/albums/\(id)"), "id": .string(id),
            "images": GeneratedLibrary.images(id), "is_playable": true, "name": .string(album.name),
            "release_date": .string(album.releaseDate), "release_date_precision": "day", "type": "album",
            "uri": .string("spotify:album:\(id)"),
            "artists": [
                album.group == "appears_on" ? variousArtists : artistObject(album.artist, releases: album.releases)
            ],
        ]
    }

    static func trackID(_ album: Album, index: Int) -> String {
        "trk" + digits(album.artist, 3) + digits(album.releases, 4) + digits(album.release, 4) + digits(album.tracks, 4)
            + digits(index, 4)
    }

    /// The album's track `index` as a simplified track (an album's pages) or a full one.
    static func track(_ album: Album, index: Int, full: Bool) -> JSONValue {
        let id = trackID(album, index: index)
        // Longer albums come on two discs; track numbers start again on the second.
        let firstDisc = album.tracks > 30 ? (album.tracks + 1) / 2 : album.tracks
        var object: JSONObject = [
            "artists": [artistObject(album.artist, releases: album.releases)],
            "disc_number": .int(index < firstDisc ? 1 : 2),
            "duration_ms": .int(GeneratedLibrary.duration(seed: album.id, index: index)),
            "explicit": .bool(index % 13 == 0),
            "external_urls": ["spotify": .string("https://open.spotify.com/track/\(id)")],
            "href": .string("https://api.spotify.com/v1/tracks/\(id)"), "id": .string(id), "is_local": false,
            "is_playable": true,
            "name": .string("Song \(album.artist).\(album.songGroup).\(index + 1)"),
            "preview_url": .null,
            "track_number": .int(index < firstDisc ? index + 1 : index - firstDisc + 1), "type": "track",
            "uri": .string("spotify:track:\(id)"),
        ]
        if full {
            object["album"] = simplifiedAlbum(album)
            object["external_ids"] = ["isrc": .string("QZCAT" + digits(album.songGroup * 10_000 + index, 7))]
        }
        return .object(object)
    }

    static func track(id: String) -> JSONValue? {
        guard id.utf8.count == 22, id.hasPrefix("trk"), let numbers = split(id.dropFirst(3), [3, 4, 4, 4, 4]),
            numbers[4] < numbers[3]
        else { return nil }
        let album = Album(artist: numbers[0], releases: numbers[1], release: numbers[2], tracks: numbers[3])
        return track(album, index: numbers[4], full: true)
    }

    static func showObject(_ id: String, episodes: Int) -> JSONObject {
        [
            "copyrights": [], "description": "A generated show.", "html_description": "<p>A generated show.</p>",
            "explicit": false, "external_urls": ["spotify": .string("https://open.spotify.com/show/\(id)")],
            "href": .string("https://api.spotify.com/v1/shows/\(id)"), "id": .string(id),
            "images": GeneratedLibrary.images(id), "is_externally_hosted": false, "languages": ["en"],
            "media_type": "audio", "name": .string("Show of \(episodes)"), "type": "show",
            "uri": .string("spotify:show:\(id)"), "total_episodes": .int(episodes),
        ]
    }

    static func episodeID(episodes: Int, index: Int) -> String { "epi" + digits(episodes, 9) + digits(index, 10) }

    /// Episode `index` of a show, newest first: a simplified episode (no `show`) or a full one.
    static func episode(show id: String, episodes: Int, index: Int, full: Bool) -> JSONValue {
        let episodeID = episodeID(episodes: episodes, index: index)
        var object: JSONObject = [
            "audio_preview_url": .null, "description": "A generated episode.",
            "duration_ms": .int(GeneratedLibrary.duration(seed: id, index: index) * 6), "explicit": false,
            "external_urls": ["spotify": .string("https://open.spotify.com/episode/\(episodeID)")],
            "href": .string("https://api.spotify.com/v1/episodes/\(episodeID)"),
            "html_description": "<p>A generated episode.</p>", "id": .string(episodeID),
            "images": GeneratedLibrary.images(id), "is_externally_hosted": false, "is_playable": true,
            "languages": ["en"], "name": .string("Episode \(episodes - index)"),
            "release_date": .string(
                String(GeneratedLibrary.timestamp(secondsSince1970: 1_780_272_000 - index * 7 * 86_400).prefix(10))),
            "release_date_precision": "day", "type": "episode", "uri": .string("spotify:episode:\(episodeID)"),
        ]
        if full { object["show"] = .object(showObject(id, episodes: episodes)) }
        return .object(object)
    }

    static func episode(id: String) -> JSONValue? {
        guard id.utf8.count == 22, id.hasPrefix("epi"), let numbers = split(id.dropFirst(3), [9, 10]),
            numbers[0] <= maxEpisodes, numbers[1] < numbers[0]
        else { return nil }
        let show = "shw" + digits(numbers[0], 19)
        return episode(show: show, episodes: numbers[0], index: numbers[1], full: true)
    }

    // MARK: Digits

    static func digits(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// The numbers of `widths` digits each that make up `text`, or nil when it is not all digits.
    static func split(_ text: Substring, _ widths: [Int]) -> [Int]? {
        guard text.utf8.count == widths.reduce(0, +), text.utf8.allSatisfy({ (48...57).contains($0) }) else {
            return nil
        }
        var numbers: [Int] = []
        var rest = text
        for width in widths {
            guard let number = Int(rest.prefix(width)) else { return nil }
            numbers.append(number)
            rest = rest.dropFirst(width)
        }
        return numbers
    }
}

/// `GET /albums/{id}`, `/albums/{id}/tracks`, `/artists/{id}`, `/artists/{id}/albums`,
/// `/shows/{id}`, `/shows/{id}/episodes`, `/tracks/{id}`, `/episodes/{id}`.
extension FakeSpotifyService {
    /// 400 for an id that is not 22 base62 characters (Spotify's words), else nil.
    func malformedID(_ request: RouteRequest) -> HTTPResponse? {
        let id = request[parameter: "id"]
        guard id.utf8.count == 22, id.utf8.allSatisfy({ GeneratedLibrary.alphabet.contains($0) }) else {
            return WebAPI.error(400, "Invalid base62 id")
        }
        return nil
    }

    static let catalogueNotFound = Fixtures.response("error-404-not-found.json", status: 404)

    /// The album object, its first 50 tracks embedded (`tracks`, a paging object).
    func album(_ request: RouteRequest) -> HTTPResponse {
        if let malformed = malformedID(request) { return malformed }
        if let saved = MeLibrary.savedAlbumIndex(ofID: request[parameter: "id"]) { return savedAlbum(request, saved) }
        guard let album = FakeCatalogue.Album(id: request[parameter: "id"]) else { return Self.catalogueNotFound }
        var object = FakeCatalogue.simplifiedAlbum(album).objectValue ?? [:]
        object["tracks"] = pageObject(
            request, id: nil, path: "/albums/\(album.id)/tracks", offset: 0, limit: 50, total: album.tracks,
            items: (0..<min(50, album.tracks)).map { FakeCatalogue.track(album, index: $0, full: false) },
            extraQuery: [])
        object["copyrights"] = [["text": .string("(C) \(album.releaseDate.prefix(4)) Fake Records"), "type": "C"]]
        object["external_ids"] = ["upc": .string("0" + FakeCatalogue.digits(album.release * 10_000 + album.artist, 11))]
        object["genres"] = []
        return WebAPI.json(.object(object))
    }

    func albumTracks(_ request: RouteRequest) -> HTTPResponse {
        if let malformed = malformedID(request) { return malformed }
        // The user's saved albums (MeHandlers.swift) are albums of the catalogue too.
        if MeLibrary.savedAlbumIndex(ofID: request[parameter: "id"]) != nil { return savedAlbumTracks(request) }
        guard let album = FakeCatalogue.Album(id: request[parameter: "id"]) else { return Self.catalogueNotFound }
        return page(request, maxLimit: 50, total: album.tracks, path: "/albums/\(album.id)/tracks", extraQuery: []) {
            range in range.map { FakeCatalogue.track(album, index: $0, full: false) }
        }
    }

    func artist(_ request: RouteRequest) -> HTTPResponse {
        if let malformed = malformedID(request) { return malformed }
        guard let (artist, releases) = FakeCatalogue.artist(request[parameter: "id"]) else {
            return Self.catalogueNotFound
        }
        return WebAPI.json(FakeCatalogue.fullArtist(artist, releases: releases))
    }

    /// The artist's releases of the groups asked for (all four by default), newest first, at
    /// most 10 a page (Spotify answers 400 above 10 since 2026).
    func artistAlbums(_ request: RouteRequest) -> HTTPResponse {
        if let malformed = malformedID(request) { return malformed }
        guard let (artist, releases) = FakeCatalogue.artist(request[parameter: "id"]) else {
            return Self.catalogueNotFound
        }
        let asked = request.http.queryValue("include_groups").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        if let asked, let bad = asked.first(where: { !FakeCatalogue.albumGroups.contains($0) }) {
            return WebAPI.error(400, "Invalid include_groups value: '\(bad)'")
        }
        let groups = Set(asked ?? FakeCatalogue.albumGroups)
        let albums = (0..<releases).map { FakeCatalogue.Album.release($0, artist: artist, releases: releases) }
            .filter { groups.contains($0.group) }
        let keep = request.http.queryValue("include_groups").map { [("include_groups", $0)] } ?? []
        return page(
            request, maxLimit: 10, total: albums.count, path: "/artists/\(request[parameter: "id"])/albums",
            extraQuery: keep
        ) { range in albums[range].map(FakeCatalogue.simplifiedAlbum) }
    }

    /// The show object, its first 50 episodes embedded (`episodes`), newest first.
    func show(_ request: RouteRequest) -> HTTPResponse {
        if let malformed = malformedID(request) { return malformed }
        let id = request[parameter: "id"]
        guard let episodes = FakeCatalogue.showEpisodes(id) else { return Self.catalogueNotFound }
        var object = FakeCatalogue.showObject(id, episodes: episodes)
        object["episodes"] = pageObject(
            request, id: nil, path: "/shows/\(id)/episodes", offset: 0, limit: 50, total: episodes,
            items: (0..<min(50, episodes)).map {
                FakeCatalogue.episode(show: id, episodes: episodes, index: $0, full: false)
            }, extraQuery: [])
        return WebAPI.json(.object(object))
    }

    func showEpisodes(_ request: RouteRequest) -> HTTPResponse {
        if let malformed = malformedID(request) { return malformed }
        let id = request[parameter: "id"]
        guard let episodes = FakeCatalogue.showEpisodes(id) else { return Self.catalogueNotFound }
        return page(request, maxLimit: 50, total: episodes, path: "/shows/\(id)/episodes", extraQuery: []) { range in
            range.map { FakeCatalogue.episode(show: id, episodes: episodes, index: $0, full: false) }
        }
    }

    func catalogueTrack(_ request: RouteRequest) -> HTTPResponse {
        catalogueItem(request, type: "track", generated: FakeCatalogue.track(id:))
    }

    func catalogueEpisode(_ request: RouteRequest) -> HTTPResponse {
        catalogueItem(request, type: "episode", generated: FakeCatalogue.episode(id:))
    }

    /// A generated track or episode, or one of `type` the fixtures, the search catalogue or a read
    /// playlist hold.
    func catalogueItem(_ request: RouteRequest, type: String, generated: (String) -> JSONValue?) -> HTTPResponse {
        if let malformed = malformedID(request) { return malformed }
        let id = request[parameter: "id"]
        guard let item = generated(id) ?? Self.knownItem("spotify:\(type):\(id)") else {
            return Self.catalogueNotFound
        }
        return WebAPI.json(item)
    }

    /// An item fake-spotify has served before (not one it would make up for any id), without the
    /// `episode`/`track` flags that only playlist entries carry.
    static func knownItem(_ uri: String) -> JSONValue? {
        guard let (_, id) = FakeCatalog.parse(uri) else { return nil }
        let known =
            FakeCatalog.knownItems[uri] != nil
            || FakeCatalog.seeds.withLock { $0[String(id.prefix(11))] != nil }
        guard known, var object = FakeCatalog.item(uri)?.objectValue else { return nil }
        object["episode"] = nil
        object["track"] = nil
        return .object(object)
    }
}
