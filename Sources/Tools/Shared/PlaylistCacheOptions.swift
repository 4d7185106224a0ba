import SpotifyClient
import ToolkitCLI
import ToolkitCore

/// The snapshot cache as spotify-tracks and `spotify-playlists get --duration` offer it: its
/// options and docs, and a `PlaylistItemsReader` made from them.
enum PlaylistCacheOptions {
    static let noCacheOption = OptionSpec(
        "no-cache", help: "Neither read nor write the snapshot cache: fetch every page from Spotify.")
    static let offlineOption = OptionSpec(
        "offline",
        help:
            """
            Make no request: print the latest cached copy of each playlist, saying on standard error how old it is; a \
            playlist's name is looked up in the listing the last online run kept. Nothing cached: exit 69.
            """
    )
    static let environment = [
        EnvironmentSpec(
            "XDG_CACHE_HOME", "Where the snapshot cache lives (under spotify-toolkit/playlists/). Default: ~/.cache."),
        EnvironmentSpec(
            CachePolicy.sizeVariable,
            """
            The most the snapshot cache may hold (e.g. 256M, 1G, or bytes; 0 turns the cache off); the least recently \
            used playlists go first, never one the run itself read or wrote. Default: 256M, room for a library of \
            400,000 items and more.
            """
        ),
    ]
    static let cacheDiscussion =
        """
        What a playlist held is kept in a cache keyed by its snapshot_id (the version Spotify gives every edit). A \
        later run's first request for the playlist (GET /playlists/{id}) names its current snapshot_id and, when that \
        is the cached one, the cache prints exactly what a fetch would print, whatever the options; an edited \
        playlist is fetched afresh at once. A piped playlist record (from spotify-playlists) carries its snapshot_id: \
        when the cache holds exactly the version the record names, it is printed without any request. The cache keeps \
        the records' fields, or Spotify's whole objects after a --raw run (which a records copy cannot serve). A copy \
        is kept only when every page provably belongs to one version: up to 100 entries come in the one answer that \
        names the snapshot_id; a longer playlist is checked again after its last page (one small request that \
        overlaps with the next playlists' pages). --no-cache bypasses it; --offline prints the latest copy without \
        any request, and when Spotify cannot be reached the error says whether --offline has a copy to print. A \
        cached file that is damaged or cut short is ignored, fetched again and replaced. Copies belong to the account \
        that fetched them: another login never sees them, spotify-auth logout removes them, and --offline needs a \
        login. The cache keeps what the records need, each album, show and list of artists once per playlist (140 to \
        340 bytes an item), and holds at most SPOTIFY_TOOLKIT_CACHE_SIZE (default 256M: a library of 400,000 items \
        fits), the least recently used playlists going first but never one the run itself read or wrote, so a \
        library larger than the bound keeps the playlists that fit and every later run hits them.
        """
    static let cacheFile = FileSpec(
        "$XDG_CACHE_HOME/spotify-toolkit/playlists/",
        """
        The snapshot cache: one file per playlist (its latest snapshot_id), private to you (0700, files 0600), and \
        beside it playlist-names.json, your playlists' names for --offline; safe to delete at any time.
        """
    )

    /// `--no-cache` and `--offline`, read once, for the options of a command that offers them
    /// (each only where it is declared: `spotify-playlists get` offers no `--offline`, and the
    /// listing's `--duration` neither).
    struct Choice: Sendable, Equatable {
        var bypass = false
        var offline = false

        init(bypass: Bool = false, offline: Bool = false) {
            (self.bypass, self.offline) = (bypass, offline)
        }

        init(_ command: ParsedCommand) throws {
            bypass = try command.declares(noCacheOption) && command.flag(noCacheOption)
            offline = try command.declares(offlineOption) && command.flag(offlineOption)
            if bypass && offline {
                throw ToolError.usage("--offline prints from the cache, which --no-cache turns off; use one of them")
            }
        }
    }

    /// The reader the choice asks for: through the logged-in account's cache, past it, or from
    /// it alone.
    static func reader(_ choice: Choice, _ context: ToolContext, concurrency: Int?) throws -> PlaylistItemsReader {
        let (bypass, offline) = (choice.bypass, choice.offline)
        // Entries belong to the account that fetched them: with no account known (not logged in),
        // nothing is read or written, and --offline has nothing to print.
        let account =
            bypass
            ? nil
            : try PlaylistCache.account(environment: context.environment)
        if offline && account == nil {
            throw ToolError.noPermission(
                """
                --offline prints the copies cached for the logged-in account, and no one is logged in; run \
                'spotify-auth login'
                """
            )
        }
        let cache =
            bypass || account == nil
            ? nil : try PlaylistCache(environment: context.environment, account: account, clock: context.clock)
        // Every version a read proves whole goes to the history too (`spotify-playlists history`),
        // whether the cache is on or not; --no-cache and --offline keep none.
        let versions =
            bypass || offline ? nil : try PlaylistVersions(environment: context.environment, clock: context.clock)
        // A bound of 0 turns the cache off, as --no-cache does (no snapshot check either, unless
        // the history keeps versions).
        let cacheOn = cache != nil && cache?.maxBytes != 0
        let mode: CachePolicy.Mode =
            offline ? .offline : bypass || !(cacheOn || versions?.isOn == true) ? .bypass : .normal
        let pager = offline ? nil : Pager(api: try context.webAPI(), concurrency: concurrency)
        var reader = PlaylistItemsReader(mode: mode, cache: cache, pager: pager, warn: context.warn)
        if mode == .normal { reader.versions = versions }
        return reader
    }

    /// The playlists named by the arguments or standard input, with what a playlist record among
    /// them tells before any request: its snapshot_id and items_total.
    static func selectors(
        _ arguments: [String], offline: Bool, _ context: ToolContext, tool: String,
        kinds: [SpotifyReference.Kind] = [.playlist]
    ) async throws -> [PlaylistItemsReader.Selector] {
        try await PlaylistCommands.references(arguments, offline: offline, context, tool: tool, kinds: kinds) {
            reference, text in
            selector(reference, record: text)
        }
    }

    /// With no SOURCE arguments, the same from standard input as it arrives (nil with arguments).
    static func arrivingSelectors(
        _ arguments: [String], offline: Bool, _ context: ToolContext, tool: String,
        kinds: [SpotifyReference.Kind] = [.playlist]
    ) throws -> LineFeed<PlaylistItemsReader.Selector>? {
        try PlaylistCommands.arrivingReferences(arguments, offline: offline, context, tool: tool, kinds: kinds) {
            reference, text in
            selector(reference, record: text)
        }
    }

    /// What a JSON playlist record says: its non-empty `snapshot_id`, its `items_total` (null:
    /// Spotify shows no items of it) and its `name`. Ids, URIs, URLs and other sources say nothing.
    static func selector(_ reference: SpotifyReference, record text: String) -> PlaylistItemsReader.Selector {
        guard reference.kind == .playlist,
            text.utf8.first(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) == UInt8(ascii: "{"),
            let record = try? JSONValue.parse(text), record.objectValue != nil
        else { return PlaylistItemsReader.Selector(reference: reference, snapshot: nil) }
        let total = record["items_total"]
        var hidden = false
        if case .null? = total, record["type"]?.stringValue == "playlist" { hidden = true }
        return PlaylistItemsReader.Selector(
            reference: reference, snapshot: record["snapshot_id"]?.stringValue,
            itemsTotal: total?.intValue.flatMap { PagePlan(total: $0)?.total }, itemsHidden: hidden,
            name: record["type"]?.stringValue == "playlist" ? record["name"]?.stringValue : nil)
    }
}
