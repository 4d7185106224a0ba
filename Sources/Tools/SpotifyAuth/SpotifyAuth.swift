import SpotifyClient
import ToolkitCLI
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `spotify-auth`: log in with OAuth PKCE, look after the tokens every other tool uses.
package enum SpotifyAuth {
    static let authEnvironment = [
        EnvironmentSpec("SPOTIFY_CLIENT_ID", "The app's client id (beats the config file; --client-id beats it)."),
        EnvironmentSpec(
            "SPOTIFY_REDIRECT_URI",
            """
            The redirect URI registered for the app. Default: \(LoopbackRedirect.defaultURI). Only http://127.0.0.1 \
            and http://[::1] work; Spotify refuses localhost.
            """
        ),
        EnvironmentSpec(
            "SPOTIFY_ACCESS_TOKEN", "Use this access token as is, for every tool; it is never stored or refreshed."),
        EnvironmentSpec(
            "SPOTIFY_ACCOUNTS_BASE",
            """
            The accounts service: https, or http only to a loopback address (127.0.0.1, [::1]); a login is kept with \
            the services it was made against and sent nowhere else. Default: \(AccountsClient.defaultBase).
            """
        ),
        SpotifyEnvironment.apiBase,
        EnvironmentSpec(
            "SPOTIFY_TOOLKIT_TOKEN_STORE",
            "Set to 'file' on macOS to keep tokens in the file store instead of the Keychain."),
        EnvironmentSpec(
            "BROWSER",
            """
            The command that opens the login page (the first of a colon-separated list; %s marks the URL). Default: \
            xdg-open, or open on macOS.
            """
        ),
        EnvironmentSpec(
            "XDG_CONFIG_HOME", "Where the config and token files live (under spotify-toolkit/). Default: ~/.config."),
        EnvironmentSpec.forcedTerminal(),
    ]

    package static let spec = CommandSpec(
        name: "spotify-auth",
        abstract: "log in to Spotify (OAuth PKCE) and look after the tokens the toolkit uses",
        discussion: [
            """
            spotify-auth logs you in to Spotify once, for every spotify-toolkit tool: spotify-auth login opens \
            Spotify's consent page in your browser (or, over SSH, lets you paste the address it lands on), and from \
            then on the tools use that login, renewing it as needed, for about six months. status says whether you \
            are logged in, as whom and with which scopes; login --scope edit, playback or history adds what the \
            read-only default lacks; token prints an access token for your own curl calls; logout forgets it all.
            """,
            """
            Before the first login, create an app at https://developer.spotify.com/dashboard, add the redirect URI \
            \(LoopbackRedirect.defaultURI) in its settings, and add your Spotify account under User Management \
            (Development Mode allows 5 users). Then pass its client id once with --client-id or SPOTIFY_CLIENT_ID; it \
            is saved in the config file.
            """,
        ],
        notes: [
            """
            login uses the Authorization Code flow with PKCE (no client secret) and listens on the app's loopback \
            redirect URI for the answer. The tokens are kept in a file only you can read (the Keychain on macOS); \
            every tool refreshes the access token when less than a minute remains, or once after Spotify rejects it. \
            Refreshes are serialised across processes, so a pipeline of tools never burns a rotating refresh token.
            """
        ],
        options: [
            .jsonRecords
        ],
        subcommands: [
            CommandSpec(
                name: "login",
                abstract: "log in through the browser and store the tokens",
                discussion: [
                    "Prints the authorize URL on stderr in any case. On success prints an auth_status record.",
                    """
                    While it waits for the browser, the address the browser was sent to can also be pasted on \
                    standard input (a terminal or a pipe), whichever comes first: over SSH the browser runs on \
                    another machine and its redirect never reaches this one. A BROWSER command that fails (not found, \
                    a non-zero exit within a few seconds) is reported at once. A pasted line that is not this login's \
                    redirect is explained and another is read, until --timeout; with --no-browser, the end of input \
                    (Ctrl-D) cancels.
                    """,
                    """
                    The default scopes only read: playlist-read-private, playlist-read-collaborative, \
                    user-read-currently-playing, user-read-playback-state, user-library-read. Writes need more, asked \
                    for with --scope and a set name: edit (playlist-modify-private, playlist-modify-public, \
                    user-library-modify) to create and change playlists (spotify-playlists create, add, remove, \
                    replace, edit, delete; routine-link fit) and to save and remove liked songs (spotify-playlists \
                    add --liked, remove --liked; spotify-nowplaying like, unlike); playback \
                    (user-modify-playback-state, and Spotify Premium) to control playback (spotify-nowplaying play, \
                    pause, next, previous, queue, shuffle, repeat, volume, seek, transfer); history \
                    (user-read-recently-played, user-top-read, user-follow-read) for what Spotify knows of your \
                    listening (spotify-nowplaying recent; spotify-tracks --top, --top-artists, --followed); all for \
                    all of these. A scope's own name works too, and so does a comma list (--scope playback,history). \
                    A command that lacks its scope exits 77 and names the one login command that adds it.
                    """,
                    """
                    Scopes accumulate, as gh auth refresh -s does: a login asks again for every scope the last login \
                    was granted, even when Spotify has ended that session, so spotify-auth login --scope history \
                    after --scope playback keeps playback, and a plain spotify-auth login keeps both. --reset-scopes \
                    asks for the defaults (and this login's --scope values) only; spotify-auth logout forgets the \
                    scopes too.
                    """,
                ],
                options: [
                    Option.clientId,
                    Option.redirectUri,
                    Option.scope,
                    Option.resetScopes,
                    Option.noBrowser,
                    Option.timeout,
                    Option.showDialog,
                ],
                examples: [
                    ExampleSpec(
                        "spotify-auth login --client-id 0123456789abcdef0123456789abcdef",
                        "The first login: opens the browser and remembers the client id."),
                    ExampleSpec(
                        "spotify-auth login --no-browser --scope playback",
                        "Log in on a machine without a browser, asking for playback control too."),
                    ExampleSpec(
                        "spotify-auth login --scope edit",
                        "Also allow changing playlists and liked songs, keeping the scopes you have."),
                    ExampleSpec(
                        "spotify-auth login --reset-scopes", "Log in again with the read-only defaults only."),
                ]
            ).running(login).offering(.jsonRecords),
            CommandSpec(
                name: "status",
                abstract: "show whether you are logged in, as whom, with which scopes, until when (exit 77 when not)"
            ).running(status).offering(.jsonRecords),
            CommandSpec(name: "whoami", abstract: "print your Spotify user, as Spotify describes it").running(whoami)
                .offering(.jsonRecords),
            CommandSpec(
                name: "token",
                abstract: "print a valid access token and nothing else, refreshing it if needed",
                discussion: [
                    """
                    The token alone, on one line, whether standard output is a terminal or a pipe. With --json, an \
                    access_token record instead: type ("access_token"), access_token, token_type ("Bearer"), \
                    expires_at and expires_in (null for a token from SPOTIFY_ACCESS_TOKEN, with source naming it), \
                    scopes. This is the one command that prints a token: keep its output out of logs.
                    """
                ],
                examples: [
                    ExampleSpec(
                        """
                        spotify-auth token | sed 's/^/Authorization: Bearer /' | curl -H @- \
                        https://api.spotify.com/v1/me
                        """,
                        """
                        Call the Web API yourself; the header goes through a pipe, so the token never shows in the \
                        process list.
                        """
                    ),
                    ExampleSpec(
                        "spotify-auth token --json | jq -r .expires_at",
                        "When the token it hands out stops working (it is refreshed on the next use after that)."),
                ]
            ).running(token).offering(.jsonRecords),
            CommandSpec(name: "refresh", abstract: "refresh the access token now and print the new auth_status")
                .running(refresh).offering(.jsonRecords),
            CommandSpec(
                name: "logout",
                abstract: "remove the stored tokens and the snapshot cache, and forget the login's scopes (idempotent)",
                options: [
                    Option.forgetLinks
                ]
            ).running(logout),
            usageSpec,
        ],
        output: [
            """
            status, login and refresh write an auth_status record with the fields type ("auth_status"), logged_in, \
            user (id, display_name), scopes (granted, as a list), expires_at and expires_in (the access token), \
            refresh_token_expires_at (six months after login, when you must log in again), client_id and token_store \
            (where the tokens live). With SPOTIFY_ACCESS_TOKEN set, status says source: SPOTIFY_ACCESS_TOKEN instead. \
            Tokens themselves never appear in records, errors or logs; only spotify-auth token prints one (with \
            --json, in an access_token record). whoami writes Spotify's user object as it comes.
            """
        ],
        environment: authEnvironment + NetworkEnvironment.all,
        files: [
            FileSpec(
                "$XDG_CONFIG_HOME/spotify-toolkit/tokens.json",
                """
                The tokens (mode 0600, in a 0700 directory), written atomically. Used only when the file and its \
                directory belong to you and nobody else can write them (nor read the file), as ssh's StrictModes; \
                otherwise exit 78 with the chmod or chown that fixes it. A refresh holds SIGINT, SIGTERM and SIGHUP \
                back from the moment it is sent until the new tokens are saved, then ends as asked; SIGKILL (kill -9) \
                cannot be held back, so killing a refresh that way can lose a rotated refresh token (then log in \
                again). Not used on macOS unless SPOTIFY_TOOLKIT_TOKEN_STORE=file.
                """
            ),
            QuotaFiles.ledger,
            QuotaFiles.pause,
            FileSpec(
                "$XDG_CONFIG_HOME/spotify-toolkit/tokens.lock",
                """
                Serialises token refreshes across processes. Like every file the toolkit opens in its directories, \
                never through a symbolic link.
                """
            ),
            FileSpec(
                "$XDG_CONFIG_HOME/spotify-toolkit/config.json",
                """
                Saved settings: client_id, and scopes (what the last login was granted, asked for again by the next; \
                logout removes them).
                """
            ),
        ],
        exitCodes: [
            ExitCodeSpec(
                .unavailable,
                """
                Spotify could not be reached or failed, or answered with a redirect (never followed: the token goes \
                only to the API and accounts hosts); or the redirect URI's port is taken
                """
            ),
            ExitCodeSpec(
                .ioError, "the token store cannot be written (e.g. the disk is full); a refresh is not even sent then"),
            ExitCodeSpec(.tempFail, "login timed out, or Spotify is rate limiting; try again"),
            ExitCodeSpec(
                .noPermission, "not logged in, the session ended, or Spotify refused (the message says how to fix it)"),
            ExitCodeSpec(
                .config,
                """
                no client id or one that cannot be, a bad redirect URI, or a token store that cannot be read or that \
                another user could change (the message names the chmod or chown that fixes it)
                """
            ),
        ],
        examples: [
            ExampleSpec("spotify-auth status", "Are you logged in, and until when?")
        ],
        seeAlso: ["spotify-playlists", "spotify-tracks", "spotify-nowplaying", "songcount", "routine-link"]
    )

    /// The token store every subcommand uses.
    static func tokenStore(_ context: ToolContext) -> TokenStore {
        TokenStores.make(environment: context.environment)
    }

    static func token(_ options: Options, _ context: ToolContext) async throws -> ExitCode {
        let store = tokenStore(context)
        let provider = try TokenProvider(
            environment: context.environment, developer: context.developer, store: store, clock: context.clock,
            ledger: context.requestLedger)
        // Bare unless --json is asked for: `| sed` and `$(...)` want the token alone, piped or not.
        if options.json {
            try context.stdout.write(try await provider.accessTokenRecord())
        } else {
            try context.stdout.writeText(try await provider.accessToken() + "\n")
        }
        return .success
    }

    static func refresh(_ options: Options, _ context: ToolContext) async throws -> ExitCode {
        let mode = context.outputMode(forcedJSON: options.json)
        let store = tokenStore(context)
        let provider = try TokenProvider(
            environment: context.environment, developer: context.developer, store: store, clock: context.clock,
            ledger: context.requestLedger)
        if await provider.usesEnvironmentToken {
            throw ToolError.usage(
                "SPOTIFY_ACCESS_TOKEN is set: that token cannot be refreshed; unset it to use the stored login")
        }
        let tokens = try await provider.forceRefresh()
        try write(AuthStatus(tokens: tokens, store: store, now: context.now), context, mode)
        return .success
    }

    static func logout(_ options: LogoutOptions, _ context: ToolContext) async throws -> ExitCode {
        let store = tokenStore(context)
        // Under the refresh lock, so a refresh running in another process cannot write the
        // tokens back after they are gone. A damaged store counts as present: logout clears it.
        let existed = try await TokenStores.refreshLock(environment: context.environment).withLock {
            let existed: Bool
            do { existed = try store.load() != nil } catch { existed = true }
            try store.remove()
            return existed
        }
        context.warn(
            existed
                ? "logged out; removed the tokens from \(store.location)"
                : "not logged in; no tokens in \(store.location)")
        // What the login fetched goes with it: the snapshot cache may hold private playlists.
        // The next login starts from the default scopes again. A config file that cannot be read
        // has no scopes to forget, and must not stop the logout.
        let config = ConfigFile(environment: context.environment)
        if var settings = try? config.load(), settings.scopes != nil {
            settings.scopes = nil
            try config.save(settings)
        }
        let removed = try PlaylistCache.removeAll(environment: context.environment)
        if removed > 0 { context.warn("removed the snapshot cache (\(plural(removed, "playlist")))") }
        if options.forgetLinks {
            try RoutineStore.forgetLinks(context)
        }
        return .success
    }

    static func login(_ options: LoginOptions, _ context: ToolContext) async throws -> ExitCode {
        let mode = context.outputMode(forcedJSON: options.json)
        let store = tokenStore(context)
        let config = ConfigFile(environment: context.environment)
        var settings = try config.load()
        let request = try LoginRequest(
            clientID: options.clientID, redirectURI: options.redirectURI, environment: context.environment,
            saved: settings)
        let clientID = request.clientID
        let redirect = try LoopbackRedirect.parse(request.redirectURI)
        // An unreadable store is an error before anything happens, never silently overwritten.
        let previous = try store.load()
        let kept = options.resetScopes ? [] : (previous?.scopes ?? []) + (settings.scopes ?? [])
        let (scopes, keptExtras) = LoginRequest.scopes(kept: kept, asked: options.askedScopes)
        if !keptExtras.isEmpty {
            context.stderr.write(
                """
                Keeping the scopes of your last login: \(keptExtras.joined(separator: ", ")) (--reset-scopes asks for \
                the defaults only).\n
                """
            )
        }
        var accounts = try AccountsClient(environment: context.environment, developer: context.developer)
        accounts.ledger = context.requestLedger
        let flow = LoginFlow(
            clientID: clientID, redirect: redirect, scopes: scopes, pasteMode: options.noBrowser,
            timeoutSeconds: Double(options.timeoutMs) / 1000, showDialog: options.showDialog,
            accounts: accounts, environment: context.environment, input: context.stdin.fileDescriptor,
            inputIsTerminal: context.terminal.stdinIsTerminal,
            say: { [stderr = context.stderr] in stderr.write($0 + "\n") }
        )
        let result = try await flow.run()
        let authorizedAt = context.now
        var tokens = StoredTokens(
            accessToken: result.tokens.accessToken, tokenType: result.tokens.tokenType ?? "Bearer",
            scope: result.tokens.scope ?? scopes.joined(separator: " "),
            expiresAt: authorizedAt + result.tokens.lifetimeSeconds,
            refreshToken: result.tokens.refreshToken, clientID: clientID, authorizedAt: authorizedAt
        )
        // Who logged in; this also proves the token works (a Development Mode allowlist problem
        // shows here) before anything is stored, so a failed login never replaces a working one.
        let probe = try TokenProvider(
            environment: context.environment.setting(TokenProvider.accessTokenVariable, to: tokens.accessToken),
            developer: context.developer, clock: context.clock)
        var meAPI = SpotifyWebAPI(environment: context.environment, developer: context.developer, tokens: probe)
        meAPI.ledger = context.requestLedger
        let me = try JSONValue.parse(try await meAPI.get("/me").body)
        tokens.userID = me["id"]?.stringValue
        tokens.displayName = me["display_name"]?.stringValue
        // The services this login belongs to: its tokens are sent nowhere else.
        tokens.accountsBase = ServiceBase.normalized(accounts.baseURL.absoluteString)
        tokens.apiBase = try SpotifyWebAPI(environment: context.environment, tokens: probe).validated().baseURL
        // Under the refresh lock: a refresh of the old session in another process cannot overwrite it.
        try await TokenStores.refreshLock(environment: context.environment).withLock { try store.save(tokens) }
        if settings.clientID != clientID || settings.scopes != tokens.scopes {
            settings.clientID = clientID
            settings.scopes = tokens.scopes
            try config.save(settings)
        }
        try write(AuthStatus(tokens: tokens, store: store, now: context.now), context, mode)
        return .success
    }

    static func status(_ options: Options, _ context: ToolContext) throws -> ExitCode {
        let mode = context.outputMode(forcedJSON: options.json)
        let store = tokenStore(context)
        if context.environment[TokenProvider.accessTokenVariable] != nil {
            try write(AuthStatus(environmentTokenWith: store), context, mode)
            return .success
        }
        guard let tokens = try store.load() else {
            try write(AuthStatus(loggedOutWith: store), context, mode)
            return .noPermission
        }
        try write(AuthStatus(tokens: tokens, store: store, now: context.now), context, mode)
        return .success
    }

    static func whoami(_ options: Options, _ context: ToolContext) async throws -> ExitCode {
        let mode = context.outputMode(forcedJSON: options.json)
        let store = tokenStore(context)
        let api = try context.webAPI(store: store)
        let me = SpotifyUser(try JSONValue.parse(try await api.get("/me").body))
        if mode == .human {
            try context.stdout.writeText(me.humanLine + "\n")
        } else {
            try context.stdout.write(me)
        }
        return .success
    }

    static func write(_ status: AuthStatus, _ context: ToolContext, _ mode: OutputMode) throws {
        if mode == .human {
            try context.stdout.writeText(status.humanText)
        } else {
            try context.stdout.write(status)
        }
    }
}

/// Spotify's user object (`GET /me`), passed through as it comes; the line for people reads it once.
struct SpotifyUser: JSONRecord {
    let json: JSONValue
    let id: String?
    let displayName: String?

    init(_ user: JSONValue) {
        json = user
        id = user["id"]?.stringValue
        displayName = user["display_name"]?.stringValue
    }

    /// `Name (id)`, cleaned: a display name is anyone's choice.
    var humanLine: String { TerminalText.clean("\(displayName ?? "(no display name)") (\(id ?? "?"))") }
}

extension ToolEnvironment {
    func setting(_ name: String, to value: String) -> ToolEnvironment {
        var copy = self
        copy.variables[name] = value
        return copy
    }
}

extension SpotifyAuth {
    /// The options, each declared once: the spec lists them and the handlers look them up by them.
    enum Option {
        static let clearPause = OptionSpec(
            "clear-pause",
            help:
                """
                Forget the quota pause a QUOTA_EXCEEDED answer set, so the tools ask Spotify again (they would \
                otherwise exit 69 without sending a request until it ends).
                """
        )
        static let clientId = OptionSpec(
            "client-id", value: "ID",
            help: "The Spotify app's client id; saved to the config file for later logins.")
        static let redirectUri = OptionSpec(
            "redirect-uri", value: "URI",
            help: "The redirect URI registered for the app (loopback http only).",
            default: LoopbackRedirect.defaultURI)
        static let scope = OptionSpec(
            "scope", value: "SCOPE",
            help:
                """
                Request SCOPE as well as the read-only defaults and the scopes of the last login. A set: edit (change \
                playlists and liked songs), playback (control playback; Premium), history (listening history, top \
                tracks and artists, followed artists), all; or a scope's name. Repeatable; takes a comma list too.
                """,
            repeatable: true,
            // Suggestions, not choices: the parser would refuse a comma list.
            completion: .suggestions(SpotifyScope.sets.map(\.name) + SpotifyScope.extras))
        static let resetScopes = OptionSpec(
            "reset-scopes",
            help:
                """
                Do not ask again for the scopes earlier logins added: only the read-only defaults and this login's \
                --scope values.
                """
        )
        static let noBrowser = OptionSpec(
            "no-browser",
            help:
                """
                Headless: print the URL and do not listen on the redirect URI; only read the URL the browser was \
                redirected to from standard input.
                """
        )
        static let timeout = OptionSpec(
            "timeout", value: "DURATION",
            help:
                """
                How long to wait for the browser's redirect or a pasted URL (more than zero, at most 24h; \
                \(acceptedDurationForms)).
                """,
            default: "5m")
        static let showDialog = OptionSpec(
            "show-dialog",
            help:
                "Ask Spotify to show the consent page even if access was granted before (to switch accounts)."
        )
        static let forgetLinks = OptionSpec(
            "forget-links",
            help:
                "Also clear every routine's playlist link (routine-link forget-links), keeping routines and sessions."
        )
    }

    /// `status`, `whoami`, `token`, `refresh`: nothing but `--json`.
    struct Options: CommandOptions {
        var json: Bool

        init(_ command: ParsedCommand) throws {
            json = try command.flag(.jsonRecords)
        }
    }

    /// `login`: the app, the scopes and how to wait for the browser.
    struct LoginOptions: CommandOptions {
        var json: Bool
        var clientID: String?
        var redirectURI: String?
        /// What `--scope` asks for, sets expanded.
        var askedScopes: [String]
        var resetScopes: Bool
        var noBrowser: Bool
        var timeoutMs: Int
        var showDialog: Bool

        init(_ command: ParsedCommand) throws {
            json = try command.flag(.jsonRecords)
            clientID = try command.value(Option.clientId)
            redirectURI = try command.value(Option.redirectUri)
            timeoutMs = try command.duration(Option.timeout) ?? 5 * 60_000
            guard timeoutMs > 0 else { throw ToolError.usage("--timeout must be longer than zero") }
            guard timeoutMs <= 24 * 3_600_000 else { throw ToolError.usage("--timeout can be at most 24h") }
            askedScopes = try SpotifyScope.expand(try command.values(Option.scope))
            resetScopes = try command.flag(Option.resetScopes)
            noBrowser = try command.flag(Option.noBrowser)
            showDialog = try command.flag(Option.showDialog)
        }
    }

    /// `logout`: it prints no record.
    struct LogoutOptions: CommandOptions {
        var forgetLinks: Bool

        init(_ command: ParsedCommand) throws {
            forgetLinks = try command.flag(Option.forgetLinks)
        }
    }
}
