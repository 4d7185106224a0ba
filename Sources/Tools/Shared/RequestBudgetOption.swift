import SpotifyClient
import ToolkitCLI
import ToolkitCore

/// `--max-requests N|auto` on every reading command: the most requests the run sends (see
/// `RequestBudget`), read once and handed to every Web API client the run makes.
enum RequestBudgetOption {
    static let option = OptionSpec(
        "max-requests", value: "N|auto",
        help:
            """
            Send at most about N requests, then stop cleanly: what is done is printed and cached, standard error \
            says how many of how many playlists are done, and the exit status is 75; the same command later goes on \
            where it stopped (cached playlists cost no request). auto: what the request ledger leaves of the day's \
            budget (SPOTIFY_TOOLKIT_DAILY_REQUESTS, default 1000; spotify-auth usage shows the ledger).
            """
    )
    static let environment = [
        EnvironmentSpec(
            RequestBudget.dailyVariable,
            """
            The requests a day --max-requests auto assumes the app may send (Spotify publishes none; users report a \
            lockout after about 1,100 to 2,500). Default: 1000.
            """
        )
    ]

    /// What the option asks for.
    enum Choice: Sendable, Equatable {
        case limit(Int)
        case automatic
    }

    /// The option's value, checked (64 for anything but a whole number from 1 or `auto`).
    static func choice(_ command: ParsedCommand) throws -> Choice? {
        guard command.declares(option), let text = try command.value(option) else { return nil }
        if text == "auto" { return .automatic }
        guard let number = Int(text), (1...100_000_000).contains(number) else {
            throw ToolError.usage("--max-requests takes a number of requests from 1, or auto, not '\(text)'")
        }
        return .limit(number)
    }

    /// Sets the run's budget: every Web API client made from `context` from now on keeps to it.
    static func apply(_ choice: Choice?, _ context: ToolContext) throws {
        guard let choice else { return }
        switch choice {
        case .limit(let number):
            context.requestLimit.withLock { $0 = number }
        case .automatic:
            let daily = try RequestBudget.daily(context.environment[RequestBudget.dailyVariable])
            let times = try context.requestLedger.entries().map(\.at)
            let left = try RequestBudget.automatic(
                daily: daily, times: times, now: context.now, zone: context.timeZone)
            context.requestLimit.withLock { $0 = left }
        }
    }
}
