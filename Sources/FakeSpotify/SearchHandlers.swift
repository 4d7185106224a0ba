import Foundation
import LoopbackHTTP
import ToolkitCore

/// `GET /v1/search`, as Spotify's Web API reference describes it for 2026
/// (developer.spotify.com/documentation/web-api/reference/search): `q` and `type` required (400
/// otherwise), `limit` 1–10 (default 5), `offset` 0–1000, an answer
/// `{tracks: {href, items, limit, next, offset, previous, total}}` (one page per requested type;
/// only tracks are ever found). Tracks come from `SearchCatalogue`, deterministically.
///
/// Matching, like Spotify's and without its ranking: case and accents are ignored, and every
/// word must appear. Free words may be in the track's name, its artists or its album;
/// `track:` words in the name, `artist:` words in an artist's name, `album:` in the album's,
/// `year:` is the release year, `isrc:` the ISRC. A filter's value is one word or a "quoted
/// phrase". Results keep the catalogue's order.
extension FakeSpotifyService {
    static let searchTypes: Set<String> = ["album", "artist", "playlist", "track", "show", "episode", "audiobook"]

    static let maxQueryLength = 100

    func search(_ request: RouteRequest) -> HTTPResponse {
        let http = request.http
        guard let q = http.queryValue("q"), !q.trimmingCharacters(in: .whitespaces).isEmpty else {
            return WebAPI.error(400, "No search query")
        }
        // Spotify answers a q past 100 characters 404, though its description names no limit (spotipy#845).
        guard q.utf16.count <= Self.maxQueryLength else { return WebAPI.error(404, "Not found.") }
        guard let typeText = http.queryValue("type"), !typeText.isEmpty else {
            return WebAPI.error(400, "Missing parameter type")
        }
        let types = typeText.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard types.allSatisfy(Self.searchTypes.contains) else { return WebAPI.error(400, "Bad search type field") }
        let limitText = http.queryValue("limit")
        guard let limit = limitText.map({ Int($0) }) ?? 5, (1...10).contains(limit) else {
            return WebAPI.error(400, "Invalid limit")
        }
        guard let offset = http.queryValue("offset").map({ Int($0) }) ?? 0, (0...1000).contains(offset) else {
            return WebAPI.error(400, "Invalid offset")
        }
        let search = SearchCatalogue.Query(q)
        var answer: JSONObject = [:]
        for type in ["track", "album", "artist", "playlist", "show", "episode", "audiobook"] where types.contains(type)
        {
            let found = type == "track" ? SearchCatalogue.tracks.filter(search.matches) + search.twins : []
            let range = min(offset, found.count)..<min(offset + limit, found.count)
            let base = "http://\(http.header("Host") ?? "127.0.0.1")/v1/search"
            func link(_ offset: Int) -> JSONValue {
                .string(
                    base + "?"
                        + URLForm.encode([
                            ("offset", String(offset)), ("limit", String(limit)), ("query", q), ("type", type),
                        ]))
            }
            answer[type + "s"] = [
                "href": link(offset),
                "items": .array(Array(found[range])),
                "limit": .int(limit),
                "next": offset + limit < found.count ? link(offset + limit) : .null,
                "offset": .int(offset),
                "previous": offset > 0 ? link(max(0, offset - limit)) : .null,
                "total": .int(found.count),
            ]
        }
        return WebAPI.json(.object(answer))
    }
}

/// The tracks `GET /v1/search` finds: names with accents, "feat." artists, remastered and live
/// versions of one song, and one title by different artists, so that matching is exercised.
enum SearchCatalogue {
    struct Entry {
        var name: String
        var artists: [String]
        var album: String
        var durationMs: Int
        var year: Int
    }

    static let entries: [Entry] = [
        Entry(
            name: "Yesterday - Remastered 2009", artists: ["The Beatles"], album: "Help! (Remastered)",
            durationMs: 125_666, year: 1965),
        Entry(
            name: "Yesterday - Live", artists: ["The Beatles"], album: "Live At The BBC", durationMs: 161_000,
            year: 1994),
        Entry(name: "Yesterday", artists: ["Leona Lewis"], album: "Yesterday", durationMs: 210_000, year: 2007),
        Entry(
            name: "Hey Jude - Remastered 2015", artists: ["The Beatles"], album: "1 (Remastered)", durationMs: 425_653,
            year: 2000),
        Entry(
            name: "Bohemian Rhapsody - Remastered 2011", artists: ["Queen"],
            album: "A Night At The Opera (2011 Remaster)", durationMs: 354_320, year: 1975),
        Entry(
            name: "Bohemian Rhapsody - Live Aid", artists: ["Queen"], album: "Live Aid", durationMs: 333_000, year: 1985
        ),
        Entry(
            name: "Rhapsody in Blue", artists: ["George Gershwin", "Leonard Bernstein"], album: "Gershwin",
            durationMs: 1_003_000, year: 1959),
        Entry(
            name: "Déjà Vu (feat. Jay-Z)", artists: ["Beyoncé", "JAY-Z"], album: "B'Day", durationMs: 240_280,
            year: 2006),
        Entry(name: "deja vu", artists: ["Olivia Rodrigo"], album: "SOUR", durationMs: 215_506, year: 2021),
        Entry(
            name: "Señorita", artists: ["Shawn Mendes", "Camila Cabello"], album: "Señorita", durationMs: 190_800,
            year: 2019),
        Entry(
            name: "Crazy In Love (feat. Jay-Z)", artists: ["Beyoncé", "JAY-Z"], album: "Dangerously In Love",
            durationMs: 236_133, year: 2003),
        Entry(
            name: "Get Lucky (feat. Pharrell Williams & Nile Rodgers) - Radio Edit",
            artists: ["Daft Punk", "Pharrell Williams", "Nile Rodgers"], album: "Get Lucky", durationMs: 248_413,
            year: 2013),
        Entry(
            name: "Get Lucky (feat. Pharrell Williams & Nile Rodgers)",
            artists: ["Daft Punk", "Pharrell Williams", "Nile Rodgers"], album: "Random Access Memories",
            durationMs: 369_626, year: 2013),
        Entry(name: "Hallelujah", artists: ["Jeff Buckley"], album: "Grace", durationMs: 413_826, year: 1994),
        Entry(
            name: "Hallelujah", artists: ["Leonard Cohen"], album: "Various Positions",
            durationMs: 279_000, year: 1984),
        Entry(
            name: "Hallelujah - Live in London", artists: ["Leonard Cohen"], album: "Live In London",
            durationMs: 441_000, year: 2009),
        Entry(name: "Blinding Lights", artists: ["The Weeknd"], album: "After Hours", durationMs: 200_040, year: 2020),
        Entry(name: "Naïve", artists: ["The Kooks"], album: "Inside In / Inside Out", durationMs: 203_000, year: 2006),
        Entry(
            name: "Psycho Killer - 2005 Remaster", artists: ["Talking Heads"],
            album: "Talking Heads: 77 (Deluxe Version)", durationMs: 259_000, year: 1977),
        Entry(name: "Jolene", artists: ["Dolly Parton"], album: "Jolene", durationMs: 161_000, year: 1973),
        Entry(
            name: "Für Elise", artists: ["Ludwig van Beethoven", "Lang Lang"], album: "Piano Book", durationMs: 175_000,
            year: 2019),
        Entry(
            name: "Stay (with Justin Bieber)", artists: ["The Kid LAROI", "Justin Bieber"],
            album: "F*CK LOVE 3: OVER YOU", durationMs: 141_805, year: 2021),
        Entry(
            name: "Mrs. Robinson", artists: ["Simon & Garfunkel"], album: "Bookends", durationMs: 244_000, year: 1968),
        Entry(name: "Sabotage", artists: ["Beastie Boys"], album: "Ill Communication", durationMs: 178_000, year: 1994),
    ]

    static let tracks: [JSONValue] = entries.enumerated().map { index, entry in
        let id = GeneratedLibrary.objectID(seed: "search", index: index)
        let albumID = GeneratedLibrary.objectID(seed: "search-album", index: index)
        let artists: [JSONValue] = entry.artists.map { name in
            let artistID = GeneratedLibrary.objectID(seed: "search-artist " + name, index: 0)
            return [
                "external_urls": ["spotify": .string("https://open.spotify.com/artist/\(artistID)")],
                "href": .string("https://api.spotify.com/v1/artists/\(artistID)"), "id": .string(artistID),
                "name": .string(name), "type": "artist", "uri": .string("spotify:artist:\(artistID)"),
            ]
        }
        return [
            "album": [
                "album_type": "album", "artists": .array(artists),
                "external_urls": ["spotify": .string("https://open.spotify.com/album/\(albumID)")],
                "href": .string("https://api.spotify.com/v1/albums/\(albumID)"), "id": .string(albumID),
                "images": GeneratedLibrary.images(albumID), "name": .string(entry.album),
                "release_date": .string("\(entry.year)-01-01"), "release_date_precision": "day",
                "total_tracks": 12, "type": "album", "uri": .string("spotify:album:\(albumID)"),
            ],
            "artists": .array(artists),
            "disc_number": 1,
            "duration_ms": .int(entry.durationMs),
            "explicit": false,
            "external_ids": ["isrc": .string("QZSRC" + String(2_000_000 + index))],
            "external_urls": ["spotify": .string("https://open.spotify.com/track/\(id)")],
            "href": .string("https://api.spotify.com/v1/tracks/\(id)"),
            "id": .string(id),
            "is_local": false,
            "is_playable": true,
            "name": .string(entry.name),
            "popularity": .int(90 - index),
            "preview_url": .null,
            "track_number": .int(index % 12 + 1),
            "type": "track",
            "uri": .string("spotify:track:\(id)"),
        ]
    }

    /// A parsed `q`: free words, and the words of each field filter.
    struct Query {
        var free: [String] = []
        var filters: [(field: String, words: [String])] = []

        init(_ q: String) {
            var rest = Substring(q)
            while !rest.isEmpty {
                rest = rest.drop { $0 == " " }
                guard !rest.isEmpty else { break }
                var field: String?
                if let colon = rest.firstIndex(of: ":"), !rest[..<colon].contains(" "),
                    ["track", "artist", "album", "year", "isrc", "genre"].contains(rest[..<colon].lowercased())
                {
                    field = rest[..<colon].lowercased()
                    rest = rest[rest.index(after: colon)...]
                }
                let value: Substring
                if rest.first == "\"" {
                    let inside = rest.dropFirst()
                    let end = inside.firstIndex(of: "\"") ?? inside.endIndex
                    value = inside[..<end]
                    rest = end == inside.endIndex ? inside[end...] : inside[inside.index(after: end)...]
                } else {
                    let end = rest.firstIndex(of: " ") ?? rest.endIndex
                    value = rest[..<end]
                    rest = rest[end...]
                }
                let words = Self.words(String(value))
                if let field { filters.append((field, words)) } else { free += words }
            }
        }

        static func words(_ text: String) -> [String] {
            let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
            return String(
                folded.unicodeScalars.map {
                    $0.properties.isAlphabetic || ("0"..."9").contains($0) ? Character($0) : " "
                }
            )
            .split(separator: " ").map(String.init)
        }

        /// For `isrc:` with the ISRC of a generated track (`QZFAK` and a number): that recording on
        /// another release, playable everywhere, which is what a user looks for to replace a
        /// track greyed out in their country.
        var twins: [JSONValue] {
            guard let isrc = filters.first(where: { $0.field == "isrc" })?.words, isrc.count == 1,
                isrc[0].hasPrefix("qzfak"), let number = Int(isrc[0].dropFirst(5)), number >= 1_000_000,
                number < 10_000_000
            else { return [] }
            guard
                var twin = GeneratedLibrary.track(seed: "twin", index: number - 1_000_000, inPlaylist: false)
                    .objectValue
            else { return [] }
            twin["is_playable"] = true
            twin["restrictions"] = nil
            twin["explicit"] = false
            return [.object(twin)].filter(matches)
        }

        func matches(_ track: JSONValue) -> Bool {
            let name = Set(Self.words(track["name"]?.stringValue ?? ""))
            let artistNames = (track["artists"]?.arrayValue ?? []).map {
                Set(Self.words($0["name"]?.stringValue ?? ""))
            }
            let album = Set(Self.words(track["album"]?["name"]?.stringValue ?? ""))
            let everything = artistNames.reduce(name.union(album)) { $0.union($1) }
            guard !free.isEmpty || !filters.isEmpty else { return false }
            guard free.allSatisfy(everything.contains) else { return false }
            for (field, words) in filters {
                switch field {
                case "track": guard words.allSatisfy(name.contains) else { return false }
                case "artist":
                    guard artistNames.contains(where: { names in words.allSatisfy(names.contains) }) else {
                        return false
                    }
                case "album": guard words.allSatisfy(album.contains) else { return false }
                case "year":
                    let year = String(track["album"]?["release_date"]?.stringValue?.prefix(4) ?? "")
                    guard words == [year] else { return false }
                case "isrc":
                    guard words == Self.words(track["external_ids"]?["isrc"]?.stringValue ?? "") else { return false }
                default: return false
                }
            }
            return true
        }
    }
}
