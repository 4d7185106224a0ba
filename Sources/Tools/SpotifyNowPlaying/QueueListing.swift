import SpotifyClient
import ToolkitCLI
import ToolkitCore

/// `spotify-nowplaying queue`: with URIs, adds them to the queue (a playback command); alone,
/// prints what plays now and what plays next.
extension SpotifyNowPlaying {
    static let queueCommand = CommandSpec(
        name: "queue", abstract: "print what plays next, or add tracks or episodes to the queue, in order",
        discussion: [
            "With no URI, prints the queue: what plays now first, marked current: true, then what plays next, in order, as track (or episode) records; on a terminal, a table with the current one marked with a play sign. It needs user-read-playback-state (a default scope) and no Premium. Spotify lists the next items of the queue and then of the context that plays (about 20 in all). Nothing playing and nothing queued: nothing printed, exit 1.",
            "With URIs, adds them to the queue, in order: a playback command (Premium, the user-modify-playback-state scope; --device sends it to another device than the active one).",
        ],
        arguments: [
            ArgumentSpec(
                "URI",
                help:
                    "Tracks or episodes to add: ids (taken as tracks), URIs, URLs or JSON records; - (alone): read them from standard input; none: print the queue.",
                optional: true, repeatable: true)
        ],
        options: [deviceOption],
        examples: [
            ExampleSpec("spotify-nowplaying queue | jq -r .name", "The names of what plays now and next."),
            ExampleSpec(
                "spotify-nowplaying queue | jq -c 'select(.current | not)' | songcount --label",
                "How many songs are lined up after this one."),
            ExampleSpec("spotify-nowplaying queue spotify:track:4uLU6hMCjMI75M1A2tKUQC", "Add a track to the queue."),
        ]
    ).running({ (command: ParsedCommand, context) in
        guard command.positionals.isEmpty else { return try await control(command, context, send: queue) }
        if try command.value(deviceOption) != nil {
            throw ToolError.usage("--device goes with URIs to add; the queue printed is your account's")
        }
        return try await listQueue(context, player: try context.player(), mode: outputMode(command, context))
    })

    /// The queue as records, or a table on a terminal; nothing at all is exit 1.
    static func listQueue(_ context: ToolContext, player: SpotifyPlayer, mode: OutputMode) async throws -> ExitCode {
        let records = LibraryReads.queueRecords(try await LibraryReads.queue(api: player.api))
        guard !records.isEmpty else {
            if context.terminal.stderrIsTerminal { context.warn("nothing playing and nothing queued") }
            return .notFound
        }
        guard mode == .human else {
            for record in records { try context.stdout.write(.object(record)) }
            return .success
        }
        let table = TextTable(
            [
                .fixed(" ", width: 1), .fixed("#", width: 2, alignment: .right), .flexible("NAME", weight: 3),
                .flexible("ARTISTS", weight: 2), .fixed("DURATION", width: 8, alignment: .right),
            ], totalWidth: TextTable.terminalWidth(environment: context.environment))
        try context.stdout.writeText(table.header + "\n")
        for record in records {
            let artists = (record["artists"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
            let by = artists.isEmpty ? (record["show"]?["name"]?.stringValue ?? "") : artists.joined(separator: ", ")
            try context.stdout.writeText(
                table.line([
                    record["current"] == true ? "▶" : "", String(record["position"]?.intValue ?? 0),
                    record["name"]?.stringValue ?? "", by,
                    record["duration_ms"]?.intValue.map { formatClock(milliseconds: $0) } ?? "",
                ]) + "\n")
        }
        return .success
    }
}
