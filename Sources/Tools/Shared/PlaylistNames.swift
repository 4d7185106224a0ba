import SpotifyClient
import ToolkitCLI
import ToolkitCore

/// Playlists named by their names: `spotify-tracks Morning`, `spotify-playlists get Morning`,
/// `routine-link link morning Morning`, `spotify-nowplaying play Morning`. An argument that is
/// not an id, URI, URL or record is a name, looked up among your playlists (`/me/playlists`,
/// fetched once, only when a name is given): the exact name first, then the same name in any
/// case. A name that fits several playlists is an error listing them; a 22-character base62
/// text is always an id.
enum PlaylistNames {
    struct Listed: Sendable, Equatable {
        var id: String
        var name: String
    }

    /// `arguments` with every playlist name replaced by its playlist's URI. `isReference` tells
    /// what the command takes as it is (ids, URIs, URLs, records of the kinds it accepts).
    static func resolve(
        _ arguments: [String], _ context: ToolContext, offline: Bool = false, isReference: (String) -> Bool
    ) async throws -> [String] {
        let names = arguments.map { !isReference($0) && Self.mayBeAName($0) }
        guard names.contains(true) else { return arguments }
        let library = try await offline ? cachedLibrary(context) : library(context)
        return try zip(arguments, names).map { text, isName in
            isName ? "spotify:playlist:" + (try match(text, among: library)) : text
        }
    }

    /// The playlist `text` names: an id, URI, URL or record as it is, else a name of one of yours.
    static func reference(_ text: String, _ context: ToolContext, exact: Bool) async throws -> SpotifyReference {
        if let reference = try? SpotifyReference.argument(text, expecting: .playlist) { return reference }
        guard mayBeAName(text) else { return try SpotifyReference.argument(text, expecting: .playlist) }
        return SpotifyReference(kind: .playlist, id: try await resolveOne(text, context, exact: exact))
    }

    /// Names on standard input as it arrives, looked up on the feed's own thread: your playlists
    /// are listed once, at the first line that is a name (none: no request).
    final class Arriving: Sendable {
        let environment: ToolEnvironment
        /// nil with --offline; a client that could not be made fails only at the first name.
        let api: Result<SpotifyWebAPI, any Error>?
        let listed = Locked<[Listed]?>(nil)

        init(_ context: ToolContext, offline: Bool) {
            environment = context.environment
            api = offline ? nil : Result { try context.webAPI() }
        }

        func id(of name: String) throws -> String {
            if let library = listed.withLock({ $0 }) { return try match(name, among: library) }
            let library: [Listed]
            if let api {
                let (api, environment) = (try api.get(), environment)
                library = try waitForTask { try await PlaylistNames.library(api: api, environment: environment) }
            } else {
                library = try cachedLibrary(environment: environment)
            }
            listed.withLock { $0 = library }
            return try match(name, among: library)
        }
    }

    /// The id of the one playlist of yours called `name`; `exact`: a destructive write insists on
    /// the exact name, so a name that differs in case is an error naming the one it meant.
    static func resolveOne(_ name: String, _ context: ToolContext, exact: Bool) async throws -> String {
        let library = try await library(context)
        if exact, !library.contains(where: { $0.name == name }),
            let near = library.first(where: { $0.name.lowercased() == name.lowercased() })
        {
            throw ToolError.usage(
                """
                none of your playlists is called exactly '\(TerminalText.clean(String(name.prefix(200))))'; this \
                write changes a playlist only by its exact name or id: did you mean \
                '\(TerminalText.clean(near.name))' (\(near.id))?
                """
            )
        }
        return try match(name, among: library)
    }

    /// Your playlists' ids and names (`/me/playlists`, every page).
    static func library(_ context: ToolContext) async throws -> [Listed] {
        try await library(api: try context.webAPI(), environment: context.environment)
    }

    static func library(api: SpotifyWebAPI, environment: ToolEnvironment) async throws -> [Listed] {
        var library: [Listed] = []
        _ = try await Pager(api: api).fetchAll(
            path: "/me/playlists",
            body: { page in
                for playlist in page.items {
                    // An id becomes a file name (the undo journal) and a word in printed commands:
                    // one that is not Spotify's 22 base-62 characters is not a playlist of yours.
                    if let id = playlist["id"]?.stringValue, let name = playlist["name"]?.stringValue,
                        SpotifyReference.isValidID(id)
                    {
                        library.append(Listed(id: id, name: name))
                    }
                }
            })
        keepForOffline(library, environment)
        return library
    }

    /// The names the last online listing kept (`--offline`: no request). None kept: exit 69,
    /// saying how to get them.
    static func cachedLibrary(_ context: ToolContext) throws -> [Listed] {
        try cachedLibrary(environment: context.environment)
    }

    static func cachedLibrary(environment: ToolEnvironment) throws -> [Listed] {
        let account = try PlaylistCache.account(environment: environment)
        guard let account, let kept = try PlaylistNameIndex(environment: environment, account: account).load()
        else {
            throw ToolError.unavailable(
                """
                --offline: your playlists' names are not cached yet (any online run that lists them keeps them, e.g. \
                spotify-playlists); name the playlist by its id, or run without --offline
                """
            )
        }
        return kept.filter { SpotifyReference.isValidID($0.id) }.map { Listed(id: $0.id, name: $0.name) }
    }

    /// Keeps the listing's names for `--offline`, when the cache is on and someone is logged in;
    /// best effort: a cache that cannot be written never fails a read.
    static func keepForOffline(_ library: [Listed], _ environment: ToolEnvironment) {
        guard (try? CachePolicy.maxBytes(environment[CachePolicy.sizeVariable])) ?? 0 > 0,
            let account = try? PlaylistCache.account(environment: environment)
        else { return }
        try? PlaylistNameIndex(environment: environment, account: account).store(
            library.map { PlaylistNameIndex.Entry(id: $0.id, name: $0.name) })
    }

    /// Plain text only: what looks like a URI, a URL or a record (or holds control characters) but
    /// is not a valid one stays the usage error it is, without asking Spotify for anything.
    static func mayBeAName(_ text: String) -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        // "-" is standard input, never a playlist called "-".
        guard !trimmed.isEmpty, trimmed != "-", !trimmed.hasPrefix("{"), !trimmed.lowercased().hasPrefix("spotify:")
        else {
            return false
        }
        let lower = trimmed.lowercased()
        if lower.contains("://") || lower.hasPrefix("open.spotify.com") || lower.hasPrefix("play.spotify.com") {
            return false
        }
        return !trimmed.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Up to three names `name` may have meant: ones that contain it or that it contains (`mornin`,
    /// `Morning (restored)`), then ones a typo away (`Mixd Bag` for `Mixed Bag`), case ignored.
    static func similarNames(to name: String, among playlists: [Listed]) -> [String] {
        let typed = name.lowercased()
        var names = playlists.map(\.name).filter {
            $0.lowercased().contains(typed) || typed.contains($0.lowercased())
        }
        // Bounded, so a pasted paragraph never costs a distance table per playlist.
        if names.count < 3, typed.count <= 200 {
            let near = Suggestions.closest(to: typed, among: playlists.map(\.name), limit: 3 - names.count)
            names += near.filter { !names.contains($0) }
        }
        var seen = Set<String>()
        return Array(names.filter { seen.insert($0).inserted }.prefix(3))
    }

    /// The id of the one playlist called `name`: the exact name first, then the same in any case.
    static func match(_ name: String, among playlists: [Listed]) throws -> String {
        var found = playlists.filter { $0.name == name }
        if found.isEmpty { found = playlists.filter { $0.name.lowercased() == name.lowercased() } }
        let shown = TerminalText.clean(String(name.prefix(200)))
        switch found.count {
        case 1:
            return found[0].id
        case 0:
            let hint =
                Suggestions.didYouMean(similarNames(to: name, among: playlists)) ?? "spotify-playlists lists them"
            throw ToolError(
                .notFound,
                """
                '\(shown)' is not a playlist id, URI or URL, and none of your \(playlists.count) playlists is called \
                that; \(TerminalText.clean(hint))
                """
            )
        default:
            let list = found.prefix(10).map { "\($0.id) \(TerminalText.clean($0.name))" }.joined(separator: "; ")
            throw ToolError.usage(
                "\(found.count) of your playlists are called '\(shown)': \(list); name one by its id")
        }
    }
}
