import Dispatch
import Foundation
import LoopbackHTTP
import ToolkitCLI
import ToolkitCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `fake-spotify`: the command line around `FakeSpotifyServer`. A development tool: no man page,
/// not in `ToolCatalog`, never installed.
package enum FakeSpotifyCommand {
    package static let spec = CommandSpec(
        name: "fake-spotify",
        abstract: "a local stand-in for Spotify's accounts service and Web API (for tests, benchmarks and demos)",
        discussion: [
            """
            fake-spotify listens on 127.0.0.1 only. Once it is listening it prints one line, http://127.0.0.1:PORT, \
            on standard output, then serves until SIGTERM or SIGINT (exit 0) or until --exit-after.
            """,
            """
            Point the tools at it with SPOTIFY_ACCOUNTS_BASE=http://127.0.0.1:PORT and \
            SPOTIFY_API_BASE=http://127.0.0.1:PORT/v1. It serves GET /authorize (consent is automatic: a 302 to the \
            redirect URI with a code, or error=access_denied with --deny), POST /api/token (authorization_code with \
            PKCE S256, refresh_token) and the Web API under /v1 with a Bearer token.
            """,
            """
            The library: GET /v1/me/playlists, /v1/me/tracks, /v1/playlists/{id} and /v1/playlists/{id}/items (with \
            the fields filter and offset/limit paging, 50 at most; the legacy /tracks answers 403 unless --legacy). \
            Playlist ids gen0000000000000000N (19 digits) hold N generated tracks, mix… the same mixed with local \
            files, episodes and null items; 5MlKAGFZNoN2d0Up8sQc0N is not the user's (403 on its items), \
            37i9dQZF1DXcBWIGoYBM5M is Spotify's editorial playlist (404).
            """,
            """
            Generated tracks carry explicit (every 13th), an ISRC (QZFAK and 1000000 plus the index), album release \
            dates given to the year, the month or the day, and who added them (every 11th a collaborator, every \
            37th nobody: null); every 29th from the 8th does not play in the user's country (is_playable false, \
            restrictions {reason: market}). As Spotify does, is_playable and restrictions are sent only when the \
            request names a market. GET /v1/search?q=isrc:CODE finds that recording on a release that plays.
            """,
            """
            The catalogue, generated from its ids as the playlists are (no scope needed beyond a token): GET \
            /v1/albums/{id} (the album with its first 50 tracks embedded) and /v1/albums/{id}/tracks (50 at most a \
            page), /v1/artists/{id} and /v1/artists/{id}/albums (include_groups of album, single, appears_on, \
            compilation; newest first; 10 at most a page, as Spotify allows since 2026), /v1/shows/{id} (its first 50 \
            episodes embedded) and /v1/shows/{id}/episodes (50 at most, newest first), /v1/tracks/{id} and \
            /v1/episodes/{id}. Ids: alb0000000000000000N (19 digits, N up to 9,999): an album of N tracks, two discs \
            above 30; art + 3 digits K + 12 zeros + 4 digits C: artist K with C releases (release k is an album for k \
            % 5 = 0 or 2, a single of songs from the album after it for 1, a compilation for 3, an album it appears \
            on for 4; release 2 holds 60 tracks; the fixtures' Band of Horses, 0OdUWJ0sBjDrqHygGUXeCF, is artist 1 \
            with 12 releases); shw0000000000000000N: a show of N episodes; the tracks and episodes those hold (and \
            the fixtures' and a read playlist's). A malformed id answers 400 Invalid base62 id, an unknown one 404.
            """,
            """
            Library writes: PUT and DELETE /v1/me/library?uris=a,b (at most 40 URIs; user-library-modify, or \
            playlist-modify-public for playlist URIs, which unfollow a playlist and follow it again) and GET \
            /v1/me/library/contains (user-library-read). Saved tracks come first in /v1/me/tracks (the latest request \
            first, each in its order), removed ones leave it, and unfollowed playlists leave /v1/me/playlists; GET \
            /_fake/saved-items reports the writes. The player's settings, PUT /v1/me/player/shuffle, /repeat, \
            /volume, /seek and PUT /v1/me/player (transfer), are answered like the other player commands and change \
            what GET /v1/me/player and /devices report.
            """,
            """
            Faults (POST /_fake/faults or --fault): \
            kind=rate_limit|quota|server_error|reset|lost_answer|truncate|garbage|delay|stale_read with rate=P, \
            every=N or at=N+M (request numbers among those matching path_prefix, default /v1/, and offset=N and \
            method=M when given: one page of a list, one kind of request), and status, retry_after, delay_ms, carry, \
            late_ms, count (at most this many), seed. carry says whether a broken request is carried out: yes (the \
            default for server_error, reset, lost_answer, truncate and garbage: carried out, then its answer broken), \
            no (not carried out; the breakage of a status error, default 503, comes instead; the two 429s are always \
            no), late with late_ms=N (0-600000: carried out N ms after it arrived, against the playlist as it is then; \
            lost_answer holds the connection until then and closes without an answer, the other kinds answer their \
            breakage at once). stale_read serves a GET of a written playlist (/v1/playlists/{id}, /items) as it was \
            before its most recent write; its request numbers count only such reads. GET /_fake/faults lists them, \
            POST /_fake/clear-faults removes them. GET /_fake/counters reports requests by route (counted as they \
            arrive, refused ones included), max_in_flight, faults_fired, faults_fired_by_kind, not_carried_out, \
            carried_out_late, late_pending, stale_reads, rate_limited and sent_during_retry_after (Web API requests \
            that arrived while the Retry-After of a 429 this fake answered was still running). GET and POST \
            /_fake/library: legacy, latency_ms, saved_tracks, extra_playlists, library_shape, rate_window.
            """,
            """
            --rate-window N/DURATION (rate_window=N/DURATION in POST /_fake/library; off removes it) is Spotify's \
            rate limit as documented: a rolling window over a sliding log of admitted /v1/ requests. Beyond N \
            admitted in the last DURATION a request is refused as it arrives (answered after the added latency, as \
            every answer is; no fault or route sees it) with 429 {"error":{"status":429,"message":"API rate \
            limit exceeded"}} and Retry-After: the whole seconds until the oldest admitted request leaves the window \
            (at least 1). Refused requests do not count against the window; GET /_fake/counters reports them as \
            rate_limited. Setting it starts the window empty. A scaled window (e.g. 180/3s) keeps tests and \
            benchmarks short.
            """,
            """
            --library-shape real (library_shape=real) lists a library shaped like a real one instead of the fixture \
            playlists: 150 playlists of 20,531 items (125 of 0-60 items, 22 of 100-500, 3 of 2,000-5,000), shuffled, \
            the same every run, all the user's. Their ids are lib + 3 digits (the playlist's number) + 16 digits (its \
            size). make bench-library pages it.
            """,
            """
            Test controls, without a token: GET /_fake/counters, POST /_fake/reset-counters, POST /_fake/tokens \
            (expires_in, scope, client_id), GET and POST /_fake/settings (deny, rotation, omit_refresh_token, \
            access_token_lifetime, refresh_token_lifetime, token_delay_ms), POST /_fake/expire-access-tokens, POST \
            /_fake/fail (path, method, status, count, retry_after, body, content_type), POST /_fake/advance-clock \
            (seconds), POST /_fake/edit-playlist (id, position: a new snapshot_id and a changed item), POST \
            /_fake/other-client (id, and remove_positions, range_start with insert_before and range_length, or add \
            with position: one write by another user, a new snapshot_id). The player: \
            POST /_fake/playback starts a session (durations (seconds, comma-separated), index, position_ms, speed, \
            playing, context, mode tracks|nothing|ad|episode, page_size for recently-played pages); POST \
            /_fake/playback/ACTION with pause, resume, next, previous, nothing, ad, episode, tracks; answer \
            (answer=ok|premium_required|no_active_device|restricted: how player commands are answered); history \
            (count=N finished plays ending now); GET /_fake/playback reports the session, its changes and polls in \
            virtual milliseconds. Fields go in a form body or the query string.
            """,
        ],
        options: [
            Option.port,
            Option.portFile,
            Option.clientId,
            Option.redirectUri,
            Option.accessTokenLifetime,
            Option.refreshTokenLifetime,
            Option.noRotation,
            Option.omitRefreshToken,
            Option.deny,
            Option.tokenDelayMs,
            Option.exitAfter,
            Option.verbose,
            Option.legacy,
            Option.latencyMs,
            Option.savedTracks,
            Option.extraPlaylists,
            Option.libraryShape,
            Option.rateWindow,
            Option.fault,
        ],
        output: ["One line, http://127.0.0.1:PORT, once listening."],
        exitCodes: [
            ExitCodeSpec(.unavailable, "cannot listen on the port (e.g. it is in use)"),
            ExitCodeSpec(.ioError, "cannot write the --port-file"),
        ],
        examples: [
            ExampleSpec("fake-spotify --port-file /tmp/fake.port &", "Start it in the background on a free port."),
            ExampleSpec(
                "curl -s -d expires_in=0 http://127.0.0.1:PORT/_fake/tokens", "Mint an already-expired token pair."),
        ],
        // Never installed: its help is the whole text, and says so instead of naming a man page.
        developmentOnly: true
    )

    package static func main() async -> Never {
        await ToolRunner.main(spec.running(run))
    }

    /// What the command line asks for.
    struct Launch: CommandOptions {
        var settings = FakeSpotifySettings()
        var port: UInt16 = 0
        var portFile: String?
        /// Seconds; 0 never.
        var exitAfter = 3600
        var verbose = false
        var faults: [FaultRule] = []

        init(_ command: ParsedCommand) throws {
            if let text = try command.value(Option.port) {
                guard let port = UInt16(text) else { throw ToolError.usage("--port must be 0...65535, not '\(text)'") }
                self.port = port
            }
            self.portFile = try command.value(Option.portFile)
            let clientIDs = try command.values(Option.clientId)
            if clientIDs.contains("") { throw ToolError.usage("--client-id must not be empty") }
            self.settings.clientIDs = clientIDs
            let redirectURIs = try command.values(Option.redirectUri)
            if redirectURIs.contains("") { throw ToolError.usage("--redirect-uri must not be empty") }
            if !redirectURIs.isEmpty { self.settings.redirectURIs = redirectURIs }
            func seconds(_ option: OptionSpec) throws -> Int? {
                guard let text = try command.value(option) else { return nil }
                guard let value = Int(text), value >= 0 else {
                    throw ToolError.usage("--\(option.long) must be a whole number of seconds, not '\(text)'")
                }
                return value
            }
            if let lifetime = try seconds(Option.accessTokenLifetime) { self.settings.accessTokenLifetime = lifetime }
            self.settings.refreshTokenLifetime = try seconds(Option.refreshTokenLifetime)
            self.settings.rotation = try !command.flag(Option.noRotation)
            self.settings.omitRefreshToken = try command.flag(Option.omitRefreshToken)
            self.settings.deny = try command.flag(Option.deny)
            if let text = try command.value(Option.tokenDelayMs) {
                guard let ms = Int(text), ms >= 0 else {
                    throw ToolError.usage("--token-delay-ms must be a whole number of milliseconds, not '\(text)'")
                }
                self.settings.tokenDelayMs = ms
            }
            if let text = try command.value(Option.exitAfter) { self.exitAfter = try parseDuration(text) / 1000 }
            self.verbose = try command.flag(Option.verbose)
            var library: [(name: String, value: String)] = []
            if try command.flag(Option.legacy) { library.append(("legacy", "true")) }
            for (option, field) in [
                (Option.latencyMs, "latency_ms"), (Option.savedTracks, "saved_tracks"),
                (Option.extraPlaylists, "extra_playlists"), (Option.libraryShape, "library_shape"),
                (Option.rateWindow, "rate_window"),
            ] {
                if let value = try command.value(option) { library.append((field, value)) }
            }
            do {
                try self.settings.library.apply(library)
                self.faults = try command.values(Option.fault).map(FaultRule.init(launchSpec:))
            } catch let error as ControlError {
                throw ToolError.usage(error.message)
            }
        }
    }

    static func run(_ launch: Launch, _ context: ToolContext) async throws -> ExitCode {
        let name = context.toolName
        var log: (@Sendable (HTTPRequest, HTTPResponse) -> Void)?
        if launch.verbose {
            log = { [stderr = context.stderr] request, response in
                stderr.report(name, "\(request.method) \(request.target) -> \(response.status)")
            }
        }
        let server = try FakeSpotifyServer(settings: launch.settings, port: launch.port, log: log)
        let stop = StopSignal()
        // SIGTERM/SIGINT stop the server instead of killing the process, so we exit 0.
        let signals = stop.stopOnSignals([SIGTERM, SIGINT])
        defer { signals.cancel() }
        if launch.exitAfter > 0 {
            let warn = context.warn
            DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(launch.exitAfter)) {
                warn("exiting after \(launch.exitAfter) s (--exit-after)")
                stop.stop()
            }
        }

        server.service.addFaults(launch.faults)
        server.start()
        defer { server.stop() }
        if let path = launch.portFile { try writeAtomically("\(server.port)\n", to: path) }
        try context.stdout.writeText(server.baseURL + "\n")
        try context.stdout.flush()
        await stop.wait()
        return .success
    }

    /// Writes `text` to a temporary file beside `path`, then renames it over `path`.
    static func writeAtomically(_ text: String, to path: String) throws {
        try AtomicFileWrite.write(Data(text.utf8), to: path)
    }
}

extension FakeSpotifyCommand {
    /// The options, each declared once: the spec lists them and the handlers look them up by them.
    enum Option {
        static let port = OptionSpec(
            "port", short: "p", value: "N", help: "Listen on 127.0.0.1:N; 0 picks a free port.", default: "0")
        static let portFile = OptionSpec(
            "port-file", value: "PATH",
            help: "Once listening, write the port number and a newline to PATH (atomically).", completion: .file)
        static let clientId = OptionSpec(
            "client-id", value: "ID",
            help: "Accept only this client id (repeatable). Without any, every non-empty client_id is accepted.",
            repeatable: true)
        static let redirectUri = OptionSpec(
            "redirect-uri", value: "URI",
            help:
                """
                A registered redirect URI (repeatable); a loopback URI without a port matches any port. Default: \
                http://127.0.0.1/callback and http://[::1]/callback.
                """,
            repeatable: true)
        static let accessTokenLifetime = OptionSpec(
            "access-token-lifetime", value: "SECONDS",
            help: "expires_in of issued access tokens; they stop working after it.", default: "3600")
        static let refreshTokenLifetime = OptionSpec(
            "refresh-token-lifetime", value: "SECONDS",
            help:
                """
                Refresh fails with invalid_grant "Refresh token revoked" this long after the original login. \
                Default: never.
                """
        )
        static let noRotation = OptionSpec(
            "no-rotation",
            help:
                """
                Refresh returns the same refresh token, which keeps working (default: a new one each time, the old \
                one dies).
                """
        )
        static let omitRefreshToken = OptionSpec(
            "omit-refresh-token", help: "Refresh responses carry no refresh_token; the old one keeps working.")
        static let deny = OptionSpec(
            "deny", help: "The user refuses consent: /authorize redirects with error=access_denied.")
        static let tokenDelayMs = OptionSpec(
            "token-delay-ms", value: "MS", help: "Wait this long in POST /api/token before answering.", default: "0"
        )
        static let exitAfter = OptionSpec(
            "exit-after", value: "DURATION",
            help: "Exit by itself after DURATION (a safety net); 0s never. Accepts \(acceptedDurationForms).",
            default: "1h")
        static let verbose = OptionSpec(
            "verbose", short: "v", help: "Log each request and its status on standard error.")
        static let legacy = OptionSpec(
            "legacy",
            help:
                """
                Serve pre-2026 shapes: playlists with tracks, entries with track; /playlists/{id}/tracks works \
                (otherwise 403).
                """
        )
        static let latencyMs = OptionSpec(
            "latency-ms", value: "MS", help: "Add MS milliseconds to every Web API request.", default: "0")
        static let savedTracks = OptionSpec(
            "saved-tracks", value: "N", help: "How many liked songs /me/tracks holds.", default: "120")
        static let extraPlaylists = OptionSpec(
            "extra-playlists", value: "N", help: "Add N generated playlists (of 0 to N-1 items) to /me/playlists.",
            default: "0")
        static let libraryShape = OptionSpec(
            "library-shape", value: "SHAPE",
            help:
                """
                fixtures (the fixture playlists), real (150 generated playlists shaped like a real library) or PxN \
                (P playlists of N generated items each, e.g. 2000x200).
                """,
            default: "fixtures")
        static let rateWindow = OptionSpec(
            "rate-window", value: "N/DURATION",
            help:
                """
                Spotify's rolling rate limit, e.g. 180/30s: at most N Web API requests admitted in any DURATION; \
                beyond that 429 with Retry-After (whole seconds until the oldest admitted request leaves the window). \
                Refused requests do not count.
                """
        )
        static let fault = OptionSpec(
            "fault", value: "SPEC",
            help:
                """
                Inject a fault, e.g. 'kind=server_error rate=0.05', 'kind=reset at=3+7 carry=no' or 'kind=lost_answer \
                at=2 carry=late late_ms=3000' (fields as for POST /_fake/faults). Repeatable.
                """,
            repeatable: true)
    }
}
