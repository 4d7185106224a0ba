import SpotifyClient
import ToolkitCLI
import ToolkitCore

/// `spotify-auth usage`: what the toolkit sent to Spotify for this app in the last day, from the
/// request ledger, and whether a spent quota holds every tool back.
extension SpotifyAuth {
    static let usageSpec = CommandSpec(
        name: "usage",
        abstract: "show how many requests the toolkit sent to Spotify lately, and whether the app's quota is spent",
        discussion: [
            """
            Every tool writes each request it sends to Spotify (the Web API and the accounts service) into a \
            ledger of the app's, so you can see how much of Spotify's daily quota the toolkit has used: requests in \
            the last 30 seconds, hour and 24 hours, by tool, and the latest 429 answers. Spotify does not publish \
            the quota of a Development Mode app; users report about 1,100 to 2,500 requests a day, after which \
            Spotify answers 429 QUOTA_EXCEEDED and locks the app out for 13 to 15 hours.
            """,
            """
            When that happens, the answer's Retry-After is kept, and until it has passed every tool exits 69 \
            saying when the quota is expected back, without sending a request (which would only count against \
            the next day). Commands that need no Web API (songcount, local playlists, spotify-tracks --offline) \
            keep working. --clear-pause forgets the pause, for when you know better.
            """,
        ],
        options: [Option.clearPause],
        output: [
            """
            A usage record: type ("usage"), client_id (the app the ledger counts for; "default" when no client id \
            is configured), requests_30s, requests_1h, requests_24h, by_tool (an object: tool name to requests in \
            the last 24 hours), latest_429s (up to five, newest first: at, tool, reason, retry_after), and \
            quota_exceeded_until (an ISO time, or null when no quota pause is in force). On a terminal, the same \
            as a short table.
            """
        ],
        examples: [
            ExampleSpec(
                "spotify-auth usage --json | jq .requests_24h", "How many requests the toolkit sent in the last day."),
            ExampleSpec("spotify-auth usage --clear-pause", "Forget a quota pause, so the tools ask Spotify again."),
        ]
    ).running(usage).offering(.jsonRecords)

    struct UsageOptions: CommandOptions {
        var json: Bool
        var clearPause: Bool

        init(_ command: ParsedCommand) throws {
            json = try command.flag(.jsonRecords)
            clearPause = try command.flag(Option.clearPause)
        }
    }

    static func usage(_ options: UsageOptions, _ context: ToolContext) throws -> ExitCode {
        let ledger = context.requestLedger
        if options.clearPause {
            let had = try ledger.clearPause()
            context.warn(
                had
                    ? "the quota pause is forgotten: the next request asks Spotify again"
                    : "no quota pause was in force")
        }
        let record = UsageRecord(
            app: ledger.app, entries: try ledger.entries(), pausedUntil: ledger.pause()?.until, now: context.now)
        if context.outputMode(forcedJSON: options.json) == .human {
            try context.stdout.writeText(record.humanText(zone: context.timeZone))
        } else {
            try context.stdout.write(record)
        }
        return .success
    }
}

/// The ledger summed up: pure, from the entries of the last day.
struct UsageRecord: JSONRecord {
    var app: String
    var last30s: Int
    var lastHour: Int
    var lastDay: Int
    /// Requests in the last day by tool, most first (ties by name).
    var byTool: [(tool: String, count: Int)]
    /// The latest 429 answers, newest first.
    var latest429s: [RequestLedger.Entry]
    var pausedUntil: Double?
    var now: Double

    static let latestShown = 5

    init(app: String, entries: [RequestLedger.Entry], pausedUntil: Double?, now: Double) {
        self.app = app
        self.now = now
        self.pausedUntil = pausedUntil
        let day = entries.filter { now - $0.at <= RequestLedger.window }
        lastDay = day.count
        lastHour = day.count(where: { now - $0.at <= 3600 })
        last30s = day.count(where: { now - $0.at <= 30 })
        var counts: [String: Int] = [:]
        for entry in day { counts[entry.tool, default: 0] += 1 }
        byTool = counts.map { ($0.key, $0.value) }.sorted {
            $0.count != $1.count ? $0.count > $1.count : $0.tool < $1.tool
        }
        latest429s = Array(day.filter { $0.status == 429 }.suffix(Self.latestShown).reversed())
    }

    var json: JSONValue {
        [
            "type": "usage", "client_id": .string(app), "requests_30s": .int(last30s), "requests_1h": .int(lastHour),
            "requests_24h": .int(lastDay),
            "by_tool": .object(JSONObject(byTool.map { ($0.tool, JSONValue.int($0.count)) })),
            "latest_429s": .array(
                latest429s.map { entry in
                    [
                        "at": .string(isoSecondsTimestamp(entry.at)), "tool": .string(entry.tool),
                        "reason": entry.reason.map(JSONValue.string) ?? .null,
                        "retry_after": entry.retryAfter.map(JSONValue.double) ?? .null,
                    ]
                }),
            "quota_exceeded_until": pausedUntil.map { .string(isoSecondsTimestamp($0)) } ?? .null,
        ]
    }

    /// The same, for a person.
    func humanText(zone: LocalZone) -> String {
        var rows: [(String, String)] = [
            ("app", TerminalText.clean(app)),
            ("last 30 s", "\(last30s) requests"), ("last hour", "\(lastHour) requests"),
            ("last 24 h", "\(lastDay) requests"),
        ]
        if !byTool.isEmpty {
            rows.append(("by tool", byTool.map { "\($0.tool) \($0.count)" }.joined(separator: ", ")))
        }
        for entry in latest429s {
            let when = LocalTime.text(isoSecondsTimestamp(entry.at), "yyyy-MM-dd HH:mm", in: zone)
            var text = "\(when) \(entry.tool)"
            if let reason = entry.reason { text += " \(TerminalText.clean(reason))" }
            if let wait = entry.retryAfter { text += " (asked to wait \(RequestLedger.durationText(wait)))" }
            rows.append(("429", text))
        }
        if let pausedUntil {
            let back = LocalTime.text(isoSecondsTimestamp(pausedUntil), "yyyy-MM-dd HH:mm", in: zone)
            let wait = RequestLedger.durationText(pausedUntil - now)
            rows.append(("quota", "used up; expected back at \(back) (in \(wait))"))
        } else {
            rows.append(("quota", "no pause in force"))
        }
        let width = rows.map { $0.0.count }.max() ?? 0
        return rows.map { $0.0 + String(repeating: " ", count: width - $0.0.count + 2) + $0.1 + "\n" }.joined()
    }
}
