import Foundation
import ToolkitCore

/// fake-spotify's music library: the fixture user's playlists, plus deterministic generated ones
/// of any size, built item by item on demand (a page of a 10,000-item playlist costs 50 items).
///
/// Playlist ids (22 base62 characters, like Spotify's):
/// - `gen` + 19 digits: N generated tracks, e.g. `gen0000000000000010000` holds 10,000;
/// - `mix` + 19 digits: N entries mixing tracks with local files (every 10th from index 3),
///   episodes (from 6) and null items (from 8);
/// - `chg` + 19 digits: N generated tracks on the first page, then N-1 (as if one were removed
///   while a client paged through it: its `total` changes);
/// - `lib` + 3 digits K + 16 digits N: N generated tracks, the K-th playlist of the real-shaped
///   library (`RealLibrary`); K keeps two playlists of the same size apart;
/// - `uni` + 7 digits K + 12 digits N: N generated tracks, the K-th playlist of a uniform library
///   (`--library-shape PxN`);
/// - the fixture playlists: `3cEYpjA9oz9GiPac4AsH4n` (the fixture entries: a track, a local file,
///   an episode, a null item, a restricted track, an entry without added_at), `7d2D2S200NyUE5KYs80PwO`
///   (143 generated, collaborative), `1Cp6VQCKf2VL4sP09jN9oX` (empty);
/// - `5MlKAGFZNoN2d0Up8sQc0N`: not the user's: metadata without items, 403 on its items;
/// - anything else, such as the editorial `37i9dQZF1DXcBWIGoYBM5M`: 404.
enum GeneratedLibrary {
    static let userID = "31kx7ufdeznvfbgxsw2ocqc2ql4e"
    static let fixturePlaylistID = "3cEYpjA9oz9GiPac4AsH4n"
    static let collaborativeID = "7d2D2S200NyUE5KYs80PwO"
    static let emptyID = "1Cp6VQCKf2VL4sP09jN9oX"
    static let notOwnedID = "5MlKAGFZNoN2d0Up8sQc0N"
    /// At most this many items in a generated playlist (Spotify's own limit is 10,000; more is for stress).
    static let maxGenerated = 1_000_000

    enum Playlist: Equatable {
        /// Entries from the fixture files.
        case fixture
        case generated(count: Int, mixed: Bool)
        /// Loses its last item after the first page.
        case shrinking(count: Int)
        case notOwned
    }

    static func playlist(_ id: String) -> Playlist? {
        switch id {
        case fixturePlaylistID: return .fixture
        case collaborativeID: return .generated(count: 143, mixed: false)
        case emptyID: return .generated(count: 0, mixed: false)
        case notOwnedID: return .notOwned
        default:
            guard id.utf8.count == 22, var count = Int(id.dropFirst(3)) else { return nil }
            if id.hasPrefix("lib") { count %= libraryCountModulus }
            if id.hasPrefix("uni") { count %= uniformCountModulus }
            guard count <= maxGenerated else { return nil }
            switch id.prefix(3) {
            case "gen": return .generated(count: count, mixed: false)
            case "mix": return .generated(count: count, mixed: true)
            case "chg": return .shrinking(count: count)
            case "lib", "uni": return .generated(count: count, mixed: false)
            default: return nil
            }
        }
    }

    static func generatedID(count: Int, mixed: Bool = false) -> String {
        let digits = String(count)
        return (mixed ? "mix" : "gen") + String(repeating: "0", count: max(0, 19 - digits.count)) + digits
    }

    /// The 16 digits of a `lib` id that give its size.
    static let libraryCountModulus = 10_000_000_000_000_000

    /// `lib` + the playlist's number (3 digits) + its size (16 digits).
    static func libraryID(number: Int, count: Int) -> String {
        let digits = String(number * libraryCountModulus + count)
        return "lib" + String(repeating: "0", count: max(0, 19 - digits.count)) + digits
    }

    /// The 12 digits of a `uni` id that give its size.
    static let uniformCountModulus = 1_000_000_000_000

    /// `uni` + the playlist's number (7 digits) + its size (12 digits): a playlist of
    /// `--library-shape PxN`.
    static func uniformID(number: Int, count: Int) -> String {
        let digits = String(number * uniformCountModulus + count)
        return "uni" + String(repeating: "0", count: max(0, 19 - digits.count)) + digits
    }

    /// The number of a uniform library's playlist, from its id.
    static func uniformNumber(_ id: String) -> Int? {
        guard id.hasPrefix("uni"), id.utf8.count == 22, let value = Int(id.dropFirst(3)) else { return nil }
        return value / uniformCountModulus
    }

    // MARK: Entries

    /// The playlist's length as a page at `offset` reports it.
    static func total(of playlist: Playlist, offset: Int = 0) -> Int {
        switch playlist {
        case .fixture: fixtureEntries(legacy: false).count
        case .generated(let count, _): count
        case .shrinking(let count): offset == 0 ? count : max(count - 1, 0)
        case .notOwned: 0
        }
    }

    /// Entries `range` of a playlist, in the 2026 shape (`item`) or the legacy one (`track`).
    static func entries(of playlist: Playlist, id: String, range: Range<Int>, legacy: Bool) -> [JSONValue] {
        if !range.isEmpty { FakeCatalog.remember(playlistSeed: id) }  // its items can be added by URI
        switch playlist {
        case .fixture:
            let all = fixtureEntries(legacy: legacy)
            return Array(all[range.clamped(to: 0..<all.count)])
        case .generated(let count, let mixed):
            return range.clamped(to: 0..<count).map {
                generatedEntry(playlistID: id, index: $0, mixed: mixed, legacy: legacy)
            }
        case .shrinking:
            let total = total(of: playlist, offset: range.lowerBound)
            return range.clamped(to: 0..<total).map {
                generatedEntry(playlistID: id, index: $0, mixed: false, legacy: legacy)
            }
        case .notOwned:
            return []
        }
    }

    static func fixtureEntries(legacy: Bool) -> [JSONValue] {
        let pages =
            legacy
            ? ["playlist-tracks-page1.json", "playlist-tracks-page2.json"]
            : ["playlist-items-page1.json", "playlist-items-page2.json"]
        return pages.flatMap { Fixtures.json($0)?["items"]?.arrayValue ?? [] }
    }

    static func generatedEntry(playlistID: String, index: Int, mixed: Bool, legacy: Bool) -> JSONValue {
        let kind = mixed ? index % 10 : 0
        let item: JSONValue
        switch kind {
        case 3: item = localFile(index: index)
        case 6: item = episode(seed: playlistID, index: index)
        case 8: item = .null
        default: item = track(seed: playlistID, index: index, inPlaylist: true)
        }
        return entry(
            item: item, addedAt: timestamp(index: index), isLocal: kind == 3, legacy: legacy, addedBy: adder(index))
    }

    /// Who added the entry at `index`: mostly the user, every 11th a collaborator, every 37th
    /// nobody Spotify still knows (null, as for very old playlists).
    static func adder(_ index: Int) -> String? {
        index % 37 == 36 ? nil : index % 11 == 4 ? collaboratorID : userID
    }

    static let collaboratorID = "friendofthefixtureuser"

    static func entry(
        item: JSONValue, addedAt: String, isLocal: Bool, legacy: Bool, addedBy: String? = userID
    ) -> JSONValue {
        [
            "added_at": .string(addedAt),
            "added_by": addedBy.map(user) ?? .null,
            "is_local": .bool(isLocal),
            "primary_color": .null,
            legacy ? "track" : "item": item,
            "video_thumbnail": ["url": .null],
        ]
    }

    /// The saved tracks (`/me/tracks`): `{added_at, track}` (never renamed to `item`), newest first.
    static func savedTrack(index: Int) -> JSONValue {
        [
            "added_at": .string(timestamp(index: 1_000_000 - index)),
            "track": track(seed: "liked", index: index, inPlaylist: false),
        ]
    }

    // MARK: Objects

    // Tracks share 97 artists and 389 albums, built once: generating pages stays cheap, so
    // fake-spotify's own CPU does not blur a benchmark.
    static let artists: [JSONValue] = (0..<97).map { index in
        let id = objectID(seed: "artist", index: index)
        return [
            "external_urls": ["spotify": .string("https://open.spotify.com/artist/\(id)")],
            "href": .string("https://api.spotify.com/v1/artists/\(id)"),
            "id": .string(id), "name": .string("Artist \(index)"), "type": "artist",
            "uri": .string("spotify:artist:\(id)"),
        ]
    }

    static let albums: [JSONValue] = (0..<389).map { index in
        let id = objectID(seed: "album", index: index)
        return [
            "album_type": "album", "artists": [artists[index % 97]],
            "external_urls": ["spotify": .string("https://open.spotify.com/album/\(id)")],
            "href": .string("https://api.spotify.com/v1/albums/\(id)"), "id": .string(id),
            "images": images(id), "is_playable": true, "name": .string("Album \(index)"),
            "release_date": .string(releaseDate(album: index)),
            "release_date_precision": .string(releasePrecision(album: index)), "total_tracks": 12, "type": "album",
            "uri": .string("spotify:album:\(id)"),
        ]
    }

    /// Album `index`'s release: a year from 1965 to 2024, given to the year (every 5th album),
    /// the month (every 5th from 1) or the day, as Spotify's `release_date_precision` says.
    static func releaseDate(album index: Int) -> String {
        let year = String(1965 + index * 7 % 60)
        let month = index % 12 + 1
        let day = index % 28 + 1
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        switch releasePrecision(album: index) {
        case "year": return year
        case "month": return "\(year)-\(two(month))"
        default: return "\(year)-\(two(month))-\(two(day))"
        }
    }

    static func releasePrecision(album index: Int) -> String {
        switch index % 5 {
        case 0: "year"
        case 1: "month"
        default: "day"
        }
    }

    /// Whether the track at `index` of a generated list plays in the user's country: every 29th
    /// from 7 does not (restricted by market), as greyed-out tracks in a real library.
    static func isPlayable(index: Int) -> Bool { index % 29 != 7 }

    static func track(seed: String, index: Int, inPlaylist: Bool) -> JSONValue {
        let id = objectID(seed: seed, index: index)
        var object: JSONObject = [
            "album": albums[index % 389],
            "artists": [artists[index % 97]],
            "disc_number": 1,
            "duration_ms": .int(duration(seed: seed, index: index)),
        ]
        if inPlaylist { object["episode"] = false }
        object["explicit"] = .bool(index % 13 == 0)
        object["external_ids"] = ["isrc": .string("QZFAK" + String(1_000_000 + index % 9_000_000))]
        object["external_urls"] = ["spotify": .string("https://open.spotify.com/track/\(id)")]
        object["href"] = .string("https://api.spotify.com/v1/tracks/\(id)")
        object["id"] = .string(id)
        object["is_local"] = false
        object["is_playable"] = .bool(isPlayable(index: index))
        object["name"] = .string("Track \(index + 1)")
        object["preview_url"] = .null
        if !isPlayable(index: index) { object["restrictions"] = ["reason": "market"] }
        if inPlaylist { object["track"] = true }
        object["track_number"] = .int(index % 12 + 1)
        object["type"] = "track"
        object["uri"] = .string("spotify:track:\(id)")
        return .object(object)
    }

    static func episode(seed: String, index: Int) -> JSONValue {
        let id = objectID(seed: seed + "episode", index: index)
        let showID = objectID(seed: "show", index: index % 7)
        return [
            "audio_preview_url": .null, "description": "A generated episode.",
            "duration_ms": .int(duration(seed: seed, index: index) * 6),
            "explicit": false, "external_urls": ["spotify": .string("https://open.spotify.com/episode/\(id)")],
            "href": .string("https://api.spotify.com/v1/episodes/\(id)"),
            "html_description": "<p>A generated episode.</p>",
            "id": .string(id), "images": images(showID), "is_externally_hosted": false, "is_playable": true,
            "languages": ["en"], "name": .string("Episode \(index + 1)"), "release_date": "2026-01-15",
            "release_date_precision": "day",
            "show": [
                "description": "Generated talk.",
                "external_urls": ["spotify": .string("https://open.spotify.com/show/\(showID)")],
                "href": .string("https://api.spotify.com/v1/shows/\(showID)"), "id": .string(showID),
                "images": images(showID),
                "name": .string("Show \(index % 7)"), "type": "show", "uri": .string("spotify:show:\(showID)"),
            ],
            "type": "episode", "uri": .string("spotify:episode:\(id)"),
        ]
    }

    static func localFile(index: Int) -> JSONValue {
        let seconds = 120 + index % 200
        return [
            "album": [
                "album_type": .null, "external_urls": [:], "href": .null, "id": .null, "images": [],
                "name": "Home Recordings", "type": "album", "uri": .null,
            ],
            "artists": [
                [
                    "external_urls": [:], "href": .null, "id": .null, "name": "Local Artist", "type": "artist",
                    "uri": .null,
                ]
            ],
            "disc_number": 0, "duration_ms": .int(seconds * 1000), "explicit": false, "external_ids": [:],
            "external_urls": [:],
            "href": .null, "id": .null, "is_local": true, "name": .string("Demo \(index + 1)"), "preview_url": .null,
            "track_number": 0, "type": "track",
            "uri": .string("spotify:local:Local+Artist:Home+Recordings:Demo+\(index + 1):\(seconds)"),
        ]
    }

    static func images(_ id: String) -> JSONValue {
        .array(
            [640, 300, 64].map { size in
                ["height": .int(size), "url": .string("https://i.scdn.co/image/fake\(size)\(id)"), "width": .int(size)]
            })
    }

    static func user(_ id: String) -> JSONValue {
        [
            "external_urls": ["spotify": .string("https://open.spotify.com/user/\(id)")],
            "href": .string("https://api.spotify.com/v1/users/\(id)"), "id": .string(id), "type": "user",
            "uri": .string("spotify:user:\(id)"),
        ]
    }

    /// 22 base62 characters: 11 from the seed's hash, 11 from the index, so every (seed, index) differs.
    static func objectID(seed: String, index: Int) -> String {
        base62(fnv1a(seed), width: 11) + base62(UInt64(index), width: 11)
    }

    static func duration(seed: String, index: Int) -> Int {
        90_000 + Int(fnv1a(seed + String(index)) % 270_000)
    }

    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    static func base62(_ value: UInt64, width: Int) -> String {
        var digits = [UInt8](repeating: 0, count: width)
        var rest = value
        for position in stride(from: width - 1, through: 0, by: -1) {
            digits[position] = alphabet[Int(rest % 62)]
            rest /= 62
        }
        return String(decoding: digits, as: UTF8.self)
    }

    /// "2025-01-01T00:00:00Z" plus `index` minutes.
    static func timestamp(index: Int) -> String {
        timestamp(secondsSince1970: 1_735_689_600 + index * 60)  // 2025-01-01T00:00:00Z
    }

    /// "2025-01-01T00:00:00Z" (no formatter: fast and the same everywhere; from 1970 on).
    static func timestamp(secondsSince1970 seconds: Int) -> String {
        let days = seconds / 86_400
        let rest = seconds % 86_400
        // Howard Hinnant's days → civil date.
        let z = days + 719_468
        let era = z / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(rest / 3600)):\(two(rest % 3600 / 60)):\(two(rest % 60))Z"
    }
}

/// A library shaped like a real one (`--library-shape real`), for benchmarks of whole-library
/// runs: 150 playlists, 125 small (0-60 items), 22 medium (100-500), 3 of thousands (2,000-5,000),
/// in a shuffled order. Seeded, so every run (and every machine) gets the same sizes.
enum RealLibrary {
    static let seed: UInt64 = 18

    /// The playlists' sizes in `/me/playlists` order: 150 of them, 20,531 items.
    static let sizes: [Int] = {
        var random = SplitMix64(seed: seed)
        var sizes =
            (0..<125).map { _ in random.next(in: 0...60) } + (0..<22).map { _ in random.next(in: 100...500) }
            + (0..<3).map { _ in random.next(in: 2_000...5_000) }
        // Fisher-Yates, so the big ones sit among the small ones as in a real library.
        for index in stride(from: sizes.count - 1, to: 0, by: -1) {
            sizes.swapAt(index, random.next(in: 0...index))
        }
        return sizes
    }()

    static var ids: [String] {
        sizes.enumerated().map { GeneratedLibrary.libraryID(number: $0.offset, count: $0.element) }
    }
}

extension Fixtures {
    /// A fixture parsed once, for handlers that build answers from fixture parts.
    static func json(_ name: String) -> JSONValue? { parsed[name] ?? nil }

    static let parsed: [String: JSONValue?] = files.mapValues { try? JSONValue.parse($0) }
}
