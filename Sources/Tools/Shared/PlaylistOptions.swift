import SpotifyClient
import ToolkitCLI
import ToolkitCore

/// What spotify-playlists and spotify-tracks share: their common options, the API client, the
/// words for playlists Spotify will not show, and the loop that runs several playlists in turn.
enum PlaylistCommands {
    static let concurrencyOption = OptionSpec(
        "concurrency", short: "c", value: "N",
        help:
            """
            Keep N page requests in flight (1 to 8). Default: start at 4, double to 8 while Spotify answers cleanly; \
            a 429 pauses every request until its Retry-After (without one, halve).
            """
    )
    static let playlistArgument = ArgumentSpec(
        "PLAYLIST",
        help:
            """
            A playlist: its name (one of yours: exact, else in any case), id, spotify:playlist: URI, open.spotify.com \
            URL or playlist record; none: read them from standard input.
            """,
        optional: true, repeatable: true)
    static let jsonOption = OptionSpec.json(help: "Write JSON Lines even on a terminal.")
    static let tokensFile = FileSpec(
        "$XDG_CONFIG_HOME/spotify-toolkit/tokens.json", "The login's tokens (see spotify-auth).")

    static let environment = [
        SpotifyEnvironment.accessToken,
        SpotifyEnvironment.apiBase,
        EnvironmentSpec(
            "SPOTIFY_ACCOUNTS_BASE",
            """
            The accounts service, for token refreshes: https, or http only to a loopback address. Default: \
            \(AccountsClient.defaultBase).
            """
        ),
        EnvironmentSpec(
            SpotifyWebAPI.maxRetryWaitVariable,
            "The longest Retry-After of a 429 to wait out, in seconds (default 30); a longer one exits 75."),
        EnvironmentSpec.forcedTerminal(writes: "the table"),
        EnvironmentSpec("COLUMNS", "The table's width on a terminal."),
        EnvironmentSpec(
            "XDG_CONFIG_HOME", "Where the login's tokens live (under spotify-toolkit/). Default: ~/.config."),
    ]

    static let networkExitCodes = [
        ExitCodeSpec(
            .unavailable,
            """
            Spotify could not be reached or kept failing (the message says after how many tries), or the app's quota \
            is used up (QUOTA_EXCEEDED)
            """
        ),
        ExitCodeSpec(
            .tempFail,
            """
            Spotify is rate limiting for longer than the wait cap (the message says how long it asked for), or a list \
            was edited while it was read (items may be missing or repeated); try again later
            """
        ),
        ExitCodeSpec(
            .noPermission, "not logged in, the session ended, or Spotify refused (the message says how to fix it)"),
    ]

    /// `--concurrency N`: nil (adaptive) when not given.
    static func concurrency(_ command: ParsedCommand) throws -> Int? {
        guard let text = try command.value(concurrencyOption) else { return nil }
        guard let value = Int(text), (1...SpotifyWebAPI.concurrencyCeiling).contains(value) else {
            throw ToolError.usage(
                "--concurrency must be a whole number from 1 to \(SpotifyWebAPI.concurrencyCeiling), not '\(text)'")
        }
        return value
    }

    /// Playlist references from the arguments, or from stdin when there are none (not a terminal).
    static func references(_ arguments: [String], offline: Bool = false, _ context: ToolContext, tool: String)
        async throws -> [SpotifyReference]
    {
        try await references(arguments, offline: offline, context, tool: tool) { reference, _ in reference }
    }

    /// The same, with the text each reference came from (a record's, for its snapshot_id): the
    /// arguments, or when there are none, the non-blank lines of standard input; an argument `-`
    /// stands for those lines in its place among the others (as cat and jq read it). An argument
    /// or a line may also be a playlist's name (`PlaylistNames`), looked up for all of them with one
    /// listing, without a request when `offline`.
    static func references<T>(
        _ arguments: [String], offline: Bool = false, _ context: ToolContext, tool: String,
        kinds: [SpotifyReference.Kind] = [.playlist], make: (SpotifyReference, String) -> T
    ) async throws -> [T] {
        if arguments.isEmpty && context.terminal.stdinIsTerminal { throw nothingNamed(tool: tool) }
        try SpotifyReference.checkStandardInputOnce(arguments)
        var texts: [(text: String, line: Int?)] = []
        for argument in arguments.isEmpty ? ["-"] : arguments {
            guard argument == "-" else {
                texts.append((argument, nil))
                continue
            }
            try context.stdin.forEachNumberedLine { number, line in texts.append((line, number)) }
        }
        let resolved = try await PlaylistNames.resolve(texts.map(\.text), context, offline: offline) {
            (try? SpotifyReference.parse($0, expectingOneOf: kinds)) != nil
        }
        return try zip(texts, resolved).map { given, text in
            guard let line = given.line else {
                return make(try SpotifyReference.argument(text, expectingOneOf: kinds), text)
            }
            do {
                return make(try SpotifyReference.parseLine(text, expectingOneOf: kinds), text)
            } catch let rejection as StandardInput.Rejection {
                throw StandardInput.rejected(rejection, line: line)
            }
        }
    }

    static func nothingNamed(tool: String) -> ToolError {
        ToolError.usage(
            "name a PLAYLIST (its name, id, URI or URL), or pipe playlist records in: spotify-playlists | \(tool)")
    }

    /// With no PLAYLIST arguments, the playlists of standard input as they arrive, so the run
    /// starts on the first line while the rest still comes (the stages of a pipeline overlap);
    /// nil when there are arguments.
    /// A line may be a playlist's name, as an argument may: your playlists are listed once, at the
    /// first such line.
    static func arrivingReferences<T: Sendable>(
        _ arguments: [String], offline: Bool = false, _ context: ToolContext, tool: String,
        kinds: [SpotifyReference.Kind] = [.playlist], make: @escaping @Sendable (SpotifyReference, String) -> T
    ) throws -> LineFeed<T>? {
        guard arguments.isEmpty else { return nil }
        if context.terminal.stdinIsTerminal { throw nothingNamed(tool: tool) }
        let names = PlaylistNames.Arriving(context, offline: offline)
        return context.stdin.feed { line in
            do {
                return make(try SpotifyReference.parseLine(line, expectingOneOf: kinds), line)
            } catch let rejection as StandardInput.Rejection {
                guard PlaylistNames.mayBeAName(line) else { throw rejection }
                let uri = "spotify:playlist:" + (try names.id(of: line))
                return make(try SpotifyReference.parseLine(uri, expectingOneOf: kinds), uri)
            }
        }
    }

    /// An empty standard input is a pipeline gone wrong (a filter that matched nothing), not an
    /// empty answer: said, with a status that says nothing was read.
    static func nothingRead(_ context: ToolContext, tool: String) -> ExitCode {
        context.warn(
            """
            no playlist on standard input: nothing was read (did the filter before \(tool) match anything? \
            spotify-playlists | jq -r .name lists the names)
            """
        )
        return .notFound
    }

    /// Why Spotify would not show a playlist's items (403) or the playlist (404), to report before
    /// going on with the next playlist. Throws instead when the refusal is not about this playlist
    /// (a Development Mode 403 about the app or the user): no other playlist would fare better.
    static func refusal(_ body: SpotifyErrorBody, playlist: SpotifyReference) throws -> ToolError {
        switch body.status {
        case 404:
            return ToolError(
                .notFound,
                """
                playlist \(playlist.id): not found (404: \(body.message)); Spotify no longer shows its own editorial \
                and algorithmic playlists to apps in Development Mode, or the id is wrong
                """
            )
        case 403 where body.isAboutTheApp:
            throw ToolError.noPermission(body.forbiddenExplanation)
        case 403:
            return ToolError.noPermission(
                """
                playlist \(playlist.id): Spotify returns items only for playlists you own or collaborate on, and this \
                is not one of them (403: \(body.message)); logging in again will not change that
                """
            )
        default:
            throw ToolError.unavailable(
                "playlist \(playlist.id): Spotify answered HTTP \(body.status): \(body.message)")
        }
    }

    /// Runs `body` for each playlist in turn. A playlist Spotify refuses (its `refusal`) is reported
    /// and the rest still run; the exit status is the first refusal's. Anything else stops the run.
    static func eachPlaylist(
        _ playlists: [SpotifyReference], _ context: ToolContext, progress: ProgressLine,
        _ body: (SpotifyReference) async throws -> ToolError?
    ) async throws -> ExitCode {
        var status = ExitCode.success
        for playlist in playlists {
            let refused: ToolError?
            do {
                refused = try await body(playlist)
            } catch {
                progress.clear()
                throw error
            }
            progress.clear()
            if let refused { try report(refused, context, status: &status) }
        }
        return status
    }

    /// Reports a playlist that could not be printed, after what the others printed; the run's
    /// status is the first such playlist's.
    static func report(_ refused: ToolError, _ context: ToolContext, status: inout ExitCode) throws {
        try context.stdout.flush()  // what the others printed goes out before the complaint
        context.warn(refused.message)
        if status == .success { status = refused.exitCode }
    }

    /// An edit seen only in the snapshot_id (the size held): the same note and status as a total
    /// that moved.
    static func editedNote(_ what: String, _ context: ToolContext, _ edits: EditedWhileRead) {
        edits.seen()
        context.warn(
            """
            \(what) changed while it was read (its snapshot_id moved), so items may be missing or repeated; run again \
            for a consistent copy
            """
        )
    }

    static func totalChangedNote(_ what: String, _ context: ToolContext, _ edits: EditedWhileRead) -> (Int, Int)
        -> Void
    {
        { was, now in
            edits.seen()
            context.warn(
                """
                \(what) changed while it was read (\(groupedThousands(was)) → \(groupedThousands(now)) items), so \
                items may be missing or repeated; run again for a consistent copy
                """
            )
        }
    }
}

/// Whether a list moved under the pager (its total changed between pages). Offset paging then
/// misses or repeats items, and what came has already gone downstream page by page, so it cannot
/// be re-read quietly: the run finishes printing what came, says so, and exits 75 (run again),
/// so a pipeline never takes a wrong copy for a whole one.
final class EditedWhileRead: Sendable {
    private let edited = Locked(false)

    func seen() { edited.withLock { $0 = true } }

    /// `status`, or 75 when a list was edited meanwhile: the most telling status wins, and 75 (what
    /// was printed may miss or repeat items: run again) tells more than 1 (a playlist was not
    /// found, and said so), so a retry-on-75 script retries. A worse failure (69, 77…) stays.
    func status(_ status: ExitCode) -> ExitCode {
        edited.withLock { $0 } && (status == .success || status == .notFound) ? .tempFail : status
    }
}
