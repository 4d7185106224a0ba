import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a user typed to name a Spotify object, reduced to its kind and id. The one parser every
/// tool uses for id-taking arguments and stdin lines. Accepted forms:
///
/// - a bare id (22 base62 characters, as Spotify's ids are),
/// - a URI: `spotify:playlist:ID` (also the old `spotify:user:NAME:playlist:ID`),
/// - a URL: `https://open.spotify.com/playlist/ID?si=...`, with or without a scheme, with an
///   `/intl-xx/` locale segment or an `/embed/` prefix,
/// - a JSON record with `uri` or `id` (a record another tool printed); its `type`, when present,
///   must be the expected kind.
///
/// Pure: no I/O. Callers turn `ParseError` into exit 64 (arguments) or 65 (a line of stdin).
package struct SpotifyReference: Sendable, Equatable, Hashable, CustomStringConvertible {
    package enum Kind: String, Sendable, CaseIterable {
        case playlist, track, album, artist, episode, show

        /// "a playlist", "an album", "an artist", "an episode": the article messages need.
        package var withArticle: String {
            switch self {
            case .album, .artist, .episode: "an \(rawValue)"
            case .playlist, .track, .show: "a \(rawValue)"
            }
        }
    }

    package var kind: Kind
    package var id: String

    package init(kind: Kind, id: String) {
        self.kind = kind
        self.id = id
    }

    package var uri: String { "spotify:\(kind.rawValue):\(id)" }
    /// The link that opens in a browser or hands over to the Spotify app.
    package var webURL: String { "https://open.spotify.com/\(kind.rawValue)/\(id)" }
    package var description: String { uri }

    /// Why a text is not a reference; `description` is the message without the argument itself.
    package struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        package var description: String
    }

    /// Spotify ids are 22 base62 characters.
    package static func isValidID(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 22
            && text.utf8.allSatisfy { byte in
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            }
    }

    /// Parses any accepted form. `expecting` is the kind the caller wants; a URI, URL or record of
    /// another kind is an error that says what it is.
    package static func parse(_ input: String, expecting kind: Kind) throws(ParseError) -> SpotifyReference {
        let text = input.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty { throw ParseError(description: "empty, not \(kind.withArticle) id, URI or URL") }
        if text.hasPrefix("{") { return try parseRecord(text, expecting: kind) }
        if text.hasPrefix("spotify:") { return try parseURI(text, expecting: kind) }
        if let reference = try parseURL(text, expecting: kind) { return reference }
        if isValidID(text) { return SpotifyReference(kind: kind, id: text) }
        throw ParseError(description: "not \(kind.withArticle) id, spotify:\(kind): URI or open.spotify.com URL")
    }

    /// Parses a reference that may be any of `kinds` (e.g. what `play` accepts). A bare id is
    /// taken as the first kind.
    package static func parse(_ input: String, expectingOneOf kinds: [Kind]) throws(ParseError) -> SpotifyReference {
        for kind in kinds {
            if let reference = try? parse(input, expecting: kind) { return reference }
        }
        // A URI or URL of a kind taken here, but broken (a malformed id): that kind's own words.
        let text = input.trimmingCharacters(in: .whitespacesAndNewlines)
        if !text.hasPrefix("{"),
            let named = kinds.first(where: {
                text.hasPrefix("spotify:\($0.rawValue):") || text.contains("/\($0.rawValue)/")
            })
        {
            _ = try parse(input, expecting: named)
        }
        let names = kinds.map(\.rawValue)
        let list = names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + names.last! : names.joined()
        // A record of another type says what it is ("an artist record, not a playlist, album or track").
        if text.hasPrefix("{"), let type = (try? JSONValue.parse(text))?["type"]?.stringValue,
            !names.contains(type), !["now_playing", "played"].contains(type)
        {
            throw ParseError(description: "\(article(type)) \(type) record, not \(article(names[0])) \(list)")
        }
        throw ParseError(description: "not \(Self.article(names[0])) \(list) id, URI or URL")
    }

    /// "an" before a word that starts with a vowel ("an album", "an episode"), else "a".
    static func article(_ word: String) -> String {
        word.first.map { "aeiou".contains($0.lowercased()) } == true ? "an" : "a"
    }

    static func parseURI(_ text: String, expecting kind: Kind) throws(ParseError) -> SpotifyReference {
        var parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        // spotify:user:NAME:playlist:ID, the form Spotify used before 2018.
        if parts.count == 5 && parts[1] == "user" { parts = [parts[0], parts[3], parts[4]] }
        guard parts.count == 3 else { throw ParseError(description: "not a Spotify \(kind) URI") }
        return try checked(kindName: parts[1], id: parts[2], expecting: kind, form: "URI")
    }

    static func parseURL(_ text: String, expecting kind: Kind) throws(ParseError) -> SpotifyReference? {
        var rest = Substring(text)
        for scheme in ["https://", "http://"] where rest.lowercased().hasPrefix(scheme) {
            rest = rest.dropFirst(scheme.count)
        }
        let hostEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        let host = rest[..<hostEnd].lowercased()
        guard host == "open.spotify.com" || host == "play.spotify.com" else { return nil }
        let pathAndQuery = rest[hostEnd...]
        let path = pathAndQuery.prefix { $0 != "?" && $0 != "#" }
        var segments = path.split(separator: "/").map(String.init)
        if let first = segments.first, first.hasPrefix("intl-") { segments.removeFirst() }
        if segments.first == "embed" { segments.removeFirst() }
        if segments.count == 4 && segments[0] == "user" { segments = Array(segments[2...]) }
        guard segments.count == 2 else {
            throw ParseError(description: "a Spotify URL that does not name \(kind.withArticle)")
        }
        return try checked(kindName: segments[0], id: segments[1], expecting: kind, form: "URL")
    }

    static func parseRecord(_ text: String, expecting kind: Kind) throws(ParseError) -> SpotifyReference {
        guard let record = try? JSONValue.parse(text), record.objectValue != nil else {
            throw ParseError(description: "starts with '{' but is not a JSON object")
        }
        // Records that wrap a track (spotify-nowplaying's now_playing and played) name it by its uri.
        if let type = record["type"]?.stringValue, type != kind.rawValue,
            !(["now_playing", "played"].contains(type) && record["uri"] != nil)
        {
            throw ParseError(description: "\(article(type)) \(type) record, not \(kind.withArticle)")
        }
        if let uri = record["uri"]?.stringValue, uri.hasPrefix("spotify:") {
            return try parseURI(uri, expecting: kind)
        }
        if let id = record["id"]?.stringValue, isValidID(id) {
            return SpotifyReference(kind: kind, id: id)
        }
        throw ParseError(description: "a record without \(kind.withArticle) uri or id")
    }

    static func checked(kindName: String, id: String, expecting kind: Kind, form: String) throws(ParseError)
        -> SpotifyReference
    {
        guard kindName == kind.rawValue else {
            throw ParseError(description: "\(article(kindName)) \(kindName) \(form), not \(kind.withArticle)")
        }
        guard isValidID(id) else { throw ParseError(description: "\(kind.withArticle) \(form) with a malformed id") }
        return SpotifyReference(kind: kind, id: id)
    }
}

extension SpotifyReference {
    /// A command-line argument: a bad one is a usage error (64) that quotes it.
    package static func argument(_ text: String, expecting kind: Kind) throws -> SpotifyReference {
        try argument(text, expectingOneOf: [kind])
    }

    /// A command-line argument that may name any of `kinds` (a bare id is the first kind).
    package static func argument(_ text: String, expectingOneOf kinds: [Kind]) throws -> SpotifyReference {
        do {
            return kinds.count == 1 ? try parse(text, expecting: kinds[0]) : try parse(text, expectingOneOf: kinds)
        } catch {
            throw ToolError.usage("'\(text.prefix(200))': \(error.description)")
        }
    }
}
