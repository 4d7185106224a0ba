import SpotifyClient
import ToolkitCLI

extension ToolContext {
    /// The Web API client for the logged-in user (or `SPOTIFY_ACCESS_TOKEN`): the one way a tool
    /// makes one. `store` is the token store when the caller already holds it (spotify-auth).
    /// On a terminal, a wait before a retry is said on stderr; in a pipe or a log it stays quiet.
    func webAPI(store: TokenStore? = nil) throws -> SpotifyWebAPI {
        let ledger = requestLedger
        var api = try SpotifyWebAPI(
            environment: environment, developer: developer,
            tokens: try TokenProvider(
                environment: environment, developer: developer, store: store, clock: clock, ledger: ledger)
        )
        .validated()
        api.ledger = ledger
        if let limit = requestLimit.withLock({ $0 }) { api.budget = RequestBudget(limit: limit, sent: requestsSent) }
        if terminal.stderrIsTerminal { api.note = warn }
        return api
    }

    /// The request ledger of this app, written down as this tool; it counts this run's requests,
    /// and a run that sent more than `RequestLedger.costlyRun` ends on a terminal saying so.
    var requestLedger: RequestLedger {
        var ledger = RequestLedger(environment: environment, tool: toolName, clock: clock)
        ledger.tally = requestsSent
        endOfRunNote.withLock { note in
            guard note == nil else { return }
            note = { [requestsSent, ledger] in
                let sent = requestsSent.withLock { $0 }
                guard sent > RequestLedger.costlyRun else { return nil }
                return ledger.costNote(sent: sent)
            }
        }
        return ledger
    }

    /// Playlist writes, through the same client.
    func playlistWriter() throws -> PlaylistWriter {
        PlaylistWriter(api: try webAPI(), settlePause: developer.settlePause)
    }

    /// The watch's clock: the run's, sped up by `SPOTIFY_TOOLKIT_TIME_SCALE` in tests and benchmarks.
    var watchClock: WatchClock {
        WatchClock(scale: developer.timeScale, wall: clock)
    }

    /// The player, through the same client.
    func player() throws -> SpotifyPlayer {
        SpotifyPlayer(api: try webAPI())
    }
}
