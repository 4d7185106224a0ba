import HTTPClient
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One search query of `spotify-tracks --search`: what the user asked for, as text and as parts.
/// Pure: parsing and the requests it makes are values in, values out.
package struct SearchQuery: Sendable, Equatable {
    /// The text the answer is for (`query` in the record): the line or argument, trimmed, or
    /// "Artist, Artist - Name" for a JSON record.
    package var text: String
    package var title: String
    /// The artists named, main artist first; empty when the query named none.
    package var artists: [String]
    package var durationMs: Int?

    package init(text: String, title: String, artists: [String] = [], durationMs: Int? = nil) {
        self.text = text
        self.title = title
        self.artists = artists
        self.durationMs = durationMs
    }

    /// Why a line is not a query (the caller names the line).
    package struct Invalid: Error, Sendable, Equatable {
        package var reason: String
    }

    /// The longest `q` Spotify's search takes, in UTF-16 units (it answers 404 past 100 characters,
    /// though its description names no limit: spotipy#845). Longer queries lose words: the title's
    /// last ones first, then the artist's; the matcher still scores the whole title.
    static let maxQueryLength = 100

    /// `Artist - Title`, `Title`, or a JSON record `{name, artists, duration_ms}` (artists as
    /// strings or `{name}` objects; other fields ignored).
    package static func parse(_ line: String) throws(Invalid) -> SearchQuery {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("{") { return try record(trimmed) }
        guard !trimmed.isEmpty else { throw Invalid(reason: "an empty query") }
        for separator in [" - ", " – ", " — "] {
            guard let range = trimmed.range(of: separator) else { continue }
            let artist = trimmed[..<range.lowerBound].trimmingCharacters(in: .whitespaces)
            let title = trimmed[range.upperBound...].trimmingCharacters(in: .whitespaces)
            // "Title - Remastered 2011" names no artist.
            if TrackMatch.isVersionSuffix(title) { break }
            guard !artist.isEmpty, !title.isEmpty else { break }
            return SearchQuery(text: trimmed, title: title, artists: splitArtists(artist))
        }
        return SearchQuery(text: trimmed, title: trimmed)
    }

    static func record(_ text: String) throws(Invalid) -> SearchQuery {
        guard let value = try? JSONValue.parse(text), value.objectValue != nil else {
            throw Invalid(reason: "not JSON: a query is 'Artist - Title', 'Title' or a JSON record with name")
        }
        guard let name = value["name"]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty
        else { throw Invalid(reason: "a query record needs a name (the title)") }
        var artists: [String] = []
        switch value["artists"] {
        case .array(let list)?:
            for entry in list {
                let artist = (entry.stringValue ?? entry["name"]?.stringValue)?.trimmingCharacters(in: .whitespaces)
                if let artist, !artist.isEmpty { artists.append(artist) }
            }
        case .string(let artist)?:
            artists = splitArtists(artist)
        case nil, .null?:
            break
        default:
            throw Invalid(reason: "artists must be a list of names or of {name} objects")
        }
        var duration: Int?
        switch value["duration_ms"] {
        case nil, .null?: break
        case let number?:
            guard let milliseconds = number.intValue, milliseconds >= 0 else {
                throw Invalid(reason: "duration_ms must be a whole number of milliseconds")
            }
            duration = milliseconds
        }
        let shown = artists.isEmpty ? name : artists.joined(separator: ", ") + " - " + name
        return SearchQuery(text: shown, title: name, artists: artists, durationMs: duration)
    }

    /// "A feat. B", "A, B", "A & B": the named artists, plus the whole when it was split (a duo
    /// such as "Simon & Garfunkel" is one artist).
    package static func splitArtists(_ text: String) -> [String] {
        var parts: [String] = []
        var rest = text
        for marker in [
            " feat. ", " feat ", " ft. ", " ft ", " featuring ", " Feat. ", " Ft. ", " FEAT. ", " Featuring ",
        ] {
            rest = rest.replacingOccurrences(of: marker, with: ",")
        }
        for piece in rest.split(separator: ",") {
            let name = piece.trimmingCharacters(in: .whitespaces)
            if !name.isEmpty { parts.append(name) }
        }
        return parts.isEmpty ? [text] : parts
    }

    /// The `q` values to try, in order: with field filters when artist and title are known,
    /// then plain words. Case, accents, feat. parts and version suffixes are left out (Spotify's
    /// search ignores case and accents; the rest narrows it wrongly).
    var searchTexts: [String] {
        let title = Self.cut(TrackMatch.normalizedTitle(self.title).text)
        let fallbackTitle = title.isEmpty ? Self.cut(TrackMatch.fold(self.title)) : title
        let plainArtist = artists.first.map {
            TrackMatch.words(TrackMatch.plain(TrackMatch.fold($0))).joined(separator: " ")
        }
        guard let artist = plainArtist.map(Self.cut), !artist.isEmpty else {
            return [Self.fitted(title: fallbackTitle, artist: "") { title, _ in title }]
        }
        return [
            Self.fitted(title: fallbackTitle, artist: artist) { "track:\"\($0)\" artist:\"\($1)\"" },
            Self.fitted(title: fallbackTitle, artist: artist) { "\($1) \($0)" },
        ]
    }

    /// Quotes become spaces (they would end a field filter).
    static func cut(_ text: String) -> String {
        text.replacingOccurrences(of: "\"", with: " ").split(separator: " ").joined(separator: " ")
    }

    /// `make(title, artist)` within `maxQueryLength`: the title's last words dropped first, then
    /// the artist's, and a last word cut by characters (one 300-letter word). Linear in the input
    /// (a 3 MB line): words past the first 100 characters never fit, so they go first; then each
    /// round drops a word or shortens one.
    static func fitted(title: String, artist: String, _ make: (String, String) -> String) -> String {
        func leading(_ text: String) -> [String] {
            var words: [String] = []
            var length = 0
            for word in text.split(separator: " ") {
                if !words.isEmpty && length + word.utf16.count > maxQueryLength { break }
                words.append(String(word.prefix(maxQueryLength)))
                length += word.utf16.count + 1
            }
            return words
        }
        var titleWords = leading(title)
        var artistWords = leading(artist)
        func text() -> String { make(titleWords.joined(separator: " "), artistWords.joined(separator: " ")) }
        var query = text()
        while query.utf16.count > maxQueryLength {
            if titleWords.count > 1 {
                titleWords.removeLast()
            } else if artistWords.count > 1 {
                artistWords.removeLast()
            } else if let longer = [titleWords.first, artistWords.first].compactMap({ $0 }).max(by: {
                $0.count < $1.count
            }), longer.count > 1 {
                // One word each is left, and still too long: shorten the longer word.
                let over = query.utf16.count - maxQueryLength
                let keep = max(1, longer.count - over)
                if titleWords.first == longer {
                    titleWords = [String(longer.prefix(keep))]
                } else {
                    artistWords = [String(longer.prefix(keep))]
                }
            } else {
                return String(query.prefix(maxQueryLength))
            }
            query = text()
        }
        return query
    }
}

/// How well a Spotify track answers a `SearchQuery`: a score from 0 to 1 and a word.
///
/// Both sides are normalised first: case and accents folded ("Beyoncé" = "beyonce"), feat.,
/// ft., featuring and "(with …)" parts left out, version suffixes left out ("- Remastered 2011",
/// "(Remastered)", "- Live", "(Radio Edit)", "- 2005 Remaster", "[Mono]"), punctuation made
/// spaces, a leading "the" dropped from artists.
/// - title: 1 when equal, else the Dice coefficient of their words; a version the other side
///   does not have costs 0.15 when it changes the recording (live, remix, acoustic,
///   instrumental, demo) and 0.03 otherwise (remastered, radio edit, mono).
/// - artists (when the query names some): 1 when a named artist is one of the track's, else
///   the best Dice coefficient of words. Score = 0.6 title + 0.4 artists, or the title alone.
/// - duration (when the query has one): within 2 s counts fully; the score is multiplied by
///   0.8 + 0.2 × closeness, closeness falling linearly to 0 at 42 s off.
/// A track is a match when its score is at least 0.65, its title at least 0.5 and its
/// artists (when named) at least 0.5. Words: "exact" from 0.95, "good" from 0.8, else "fair".
package enum TrackMatch {
    static let threshold = 0.65

    package struct Score: Sendable, Equatable {
        package var value: Double
        package var title: Double
        package var artists: Double?

        var isAcceptable: Bool {
            value >= threshold && title >= 0.5 && (artists ?? 1) >= 0.5
        }

        /// The score with two decimals (what the record carries).
        package var rounded: Double { (value * 100).rounded() / 100 }

        package var word: String {
            value >= 0.95 ? "exact" : value >= 0.8 ? "good" : "fair"
        }
    }

    /// The score of a Spotify track object for `query`.
    package static func score(_ query: SearchQuery, _ track: JSONValue) -> Score {
        let name = track["name"]?.stringValue ?? ""
        let theirs = normalizedTitle(name)
        let ours = normalizedTitle(query.title)
        var title = ours.text == theirs.text ? 1 : dice(words(ours.text), words(theirs.text))
        let changed = ours.tags.symmetricDifference(theirs.tags)
        if !changed.isDisjoint(with: significantTags) {
            title -= 0.15
        } else if !changed.isEmpty {
            title -= 0.03
        }
        title = max(0, title)

        var artistScore: Double?
        var value = title
        if !query.artists.isEmpty {
            let names = (track["artists"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }.map(
                normalizedArtist)
            let wanted = query.artists.map(normalizedArtist)
            var best = 0.0
            if wanted.contains(where: { names.contains($0) })
                || wanted.joined(separator: " ") == names.joined(separator: " ")
            {
                best = 1
            } else {
                let all = words(names.joined(separator: " "))
                for artist in wanted { best = max(best, dice(words(artist), all)) }
                best = max(best, dice(words(wanted.joined(separator: " ")), all))
            }
            artistScore = best
            value = 0.6 * title + 0.4 * best
        }
        if let wanted = query.durationMs, let actual = track["duration_ms"]?.intValue, actual >= 0 {
            let off = Double(wanted > actual ? wanted - actual : actual - wanted)
            let closeness = max(0, 1 - max(0, off - 2_000) / 40_000)
            value *= 0.8 + 0.2 * closeness
        }
        return Score(value: min(1, max(0, value)), title: title, artists: artistScore)
    }

    /// The acceptable tracks among `tracks`, best first (equal scores keep Spotify's order).
    package static func rank(_ query: SearchQuery, _ tracks: [JSONValue]) -> [(track: JSONValue, score: Score)] {
        tracks.enumerated()
            .map { (offset: $0.offset, track: $0.element, score: score(query, $0.element)) }
            .filter { $0.score.isAcceptable }
            .sorted { $0.score.value != $1.score.value ? $0.score.value > $1.score.value : $0.offset < $1.offset }
            .map { ($0.track, $0.score) }
    }

    // MARK: Normalising

    static let significantTags: Set<String> = ["live", "remix", "acoustic", "instrumental", "demo"]
    static let versionWords: Set<String> = [
        "remaster", "remastered", "live", "edit", "version", "mix", "remix", "mono", "stereo", "acoustic", "demo",
        "deluxe", "bonus", "instrumental", "single", "session", "sessions", "recorded", "anniversary", "extended",
        "explicit", "clean", "unplugged", "mixed", "reprise",
    ]

    /// Lower case, accents folded.
    package static func fold(_ text: String) -> String {
        MatchFolding.fold(text)
    }

    /// Whether `text` (a part after " - " or in brackets) names a version rather than a title.
    static func isVersionSuffix(_ text: String) -> Bool {
        normalizedTitle("t - " + text).text == "t"
    }

    static func versionTags(_ words: [String]) -> Set<String> {
        var tags: Set<String> = []
        for word in words {
            if word.hasPrefix("remaster") {
                tags.insert("remaster")
            } else if word == "mix" || word == "remix" || word == "mixed" {
                tags.insert("remix")
            } else if word == "unplugged" {
                tags.insert("acoustic")
            } else if versionWords.contains(word) {
                tags.insert(word)
            }
        }
        return tags
    }

    static func isFeature(_ text: String) -> Bool {
        let first = words(plain(text)).first ?? ""
        return ["feat", "ft", "featuring", "with", "prod"].contains(first)
    }

    /// A title without feat. parts and version suffixes, and the versions it named.
    static func normalizedTitle(_ title: String) -> (text: String, tags: Set<String>) {
        var text = fold(title)
        var tags: Set<String> = []
        // Bracketed parts: "(feat. X)", "(Remastered)", "[Live]".
        // One pass over the text per bracket kind, each search starting where the last one ended:
        // linear, however many brackets (`range(of:)` on a substring copied the rest each time).
        for (open, close): (Character, Character) in [("(", ")"), ("[", "]")] {
            var out = ""
            var rest = text[...]
            while let start = rest.firstIndex(of: open),
                let end = rest[rest.index(after: start)...].firstIndex(of: close)
            {
                let inside = String(rest[rest.index(after: start)..<end])
                let found = versionTags(words(plain(inside)))
                out += rest[..<start] + " "
                if isFeature(inside) || !found.isEmpty {
                    tags.formUnion(found)
                } else {
                    out += inside + " "
                }
                rest = rest[rest.index(after: end)...]
            }
            text = out + rest
        }
        // " - Remastered 2011", " - Live at Wembley": parts after the first " - " naming a version.
        let parts = text.components(separatedBy: " - ")
        var kept = [parts[0]]
        for part in parts.dropFirst() {
            let found = versionTags(words(plain(part)))
            if isFeature(part) || !found.isEmpty {
                tags.formUnion(found)
            } else {
                kept.append(part)
            }
        }
        text = kept.joined(separator: " ")
        // Unbracketed " feat. X" to the end.
        for marker in [" feat. ", " feat ", " ft. ", " featuring "] {
            if let range = text.range(of: marker) { text = String(text[..<range.lowerBound]) }
        }
        return (words(plain(text)).joined(separator: " "), tags)
    }

    /// An artist name: folded, punctuation made spaces, "&" and "and" alike, no leading "the".
    static func normalizedArtist(_ name: String) -> String {
        var list = words(plain(fold(name).replacingOccurrences(of: "&", with: " and ")))
        if list.count > 1 && list[0] == "the" { list.removeFirst() }
        return list.joined(separator: " ")
    }

    /// Letters and digits kept, everything else a space.
    static func plain(_ text: String) -> String {
        String(
            text.unicodeScalars.map { scalar -> Character in
                scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) ? Character(scalar) : " "
            })
    }

    static func words(_ text: String) -> [String] {
        text.split(separator: " ").map(String.init)
    }

    /// 2 |A ∩ B| / (|A| + |B|) over word multisets; 1 for two empty lists.
    static func dice(_ a: [String], _ b: [String]) -> Double {
        if a.isEmpty && b.isEmpty { return 1 }
        guard !a.isEmpty, !b.isEmpty else { return 0 }
        var counts: [String: Int] = [:]
        for word in b { counts[word, default: 0] += 1 }
        var common = 0
        for word in a where (counts[word] ?? 0) > 0 {
            counts[word]! -= 1
            common += 1
        }
        return 2 * Double(common) / Double(a.count + b.count)
    }
}

/// Spotify refused one search query (400 or 404: a `q` it will not take); the other queries of a
/// batch go on.
package struct SearchRefused: Error, Sendable, Equatable {
    package var status: Int
    package var message: String
}

extension SpotifyWebAPI {
    /// `GET /search?type=track&limit=10` for `q`: the track objects of the first page.
    func searchTracks(_ q: String, slot: InFlightSlot? = nil) async throws -> [JSONValue] {
        try await perform(
            method: "GET", path: "/search", query: [("q", q), ("type", "track"), ("limit", "10"), TrackRecord.market],
            passing: [400, 404], slot: slot
        ) { result in
            guard result.isSuccess else {
                let error = SpotifyErrorBody(result)
                throw SearchRefused(status: error.status, message: error.message)
            }
            guard let body = try? JSONValue.parse(result.body), let items = body["tracks"]?["items"]?.arrayValue else {
                throw UnreadableBody("no tracks.items in the search answer")
            }
            return items.filter { $0.objectValue != nil }
        }.value
    }

    /// The track Spotify files under `isrc` (`q=isrc:CODE`): one that plays in the user's country
    /// first (the search names the market), else the first; nil when none carries that ISRC or
    /// Spotify refuses the query.
    package func isrcMatch(_ isrc: String, slot: InFlightSlot? = nil) async throws -> JSONValue? {
        let code = isrc.uppercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
        guard !code.isEmpty, code.count <= 20 else { return nil }
        let found: [JSONValue]
        do {
            found = try await searchTracks("isrc:\(code)", slot: slot)
        } catch is SearchRefused {
            return nil
        }
        let same = found.filter { ($0["external_ids"]?["isrc"]?.stringValue ?? "").uppercased() == code }
        return same.first { $0["is_playable"]?.boolValue != false } ?? same.first
    }

    /// The best matches for `query`, best first, at most `limit`: the field-filtered search,
    /// then the plain one when the first finds nothing acceptable.
    package func bestMatches(for query: SearchQuery, limit: Int, slot: InFlightSlot? = nil) async throws
        -> [(track: JSONValue, score: TrackMatch.Score)]
    {
        var refused: SearchRefused?
        for text in query.searchTexts {
            let found: [JSONValue]
            do {
                found = try await searchTracks(text, slot: slot)
            } catch let refusal as SearchRefused {
                refused = refusal  // the plain words may still be taken
                continue
            }
            let ranked = TrackMatch.rank(query, found)
            if !ranked.isEmpty { return Array(ranked.prefix(limit)) }
        }
        if let refused { throw refused }
        return []
    }
}
