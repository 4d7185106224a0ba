import SpotifyClient
import ToolkitCLI
import ToolkitCore

/// `spotify-nowplaying queue`: with URIs, adds them to the queue (a playback command); alone,
/// prints what plays now and what plays next.
extension SpotifyNowPlaying {
    static let queueCommand = CommandSpec(
        name: "queue", abstract: "print what plays next, or add tracks or episodes to the queue, in order",
        discussion: [
            """
            With no URI, prints the queue: what plays now first, marked current: true, then what plays next, in \
            order, as track (or episode) records; on a terminal, a table with the current one marked with a play \
            sign. It needs user-read-playback-state (a default scope) and no Premium. Spotify lists the next items of \
            the queue and then of the context that plays (about 20 in all). Nothing playing and nothing queued: \
            nothing printed, exit 1.
            """,
            """
            With URIs, adds them to the queue, in order: a playback command (Premium, the user-modify-playback-state \
            scope; --device sends it to another device than the active one).
            """,
        ],
        arguments: [
            ArgumentSpec(
                "URI",
                help:
                    """
                    Tracks or episodes to add: ids (taken as tracks), URIs, URLs or JSON records; - (alone): read \
                    them from standard input; none: print the queue.
                    """,
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
    ).running(queue).offering(.jsonRecords)

    static func queue(_ options: QueueOptions, _ context: ToolContext) async throws -> ExitCode {
        switch options.action {
        case .list:
            return try await listQueue(context, mode: context.outputMode(forcedJSON: options.json))
        case .add(let references):
            return try await send(to: options.device, context) { player, deviceID in
                try await addToQueue(references, player: player, deviceID: deviceID)
            }
        case .addFromStandardInput:
            return try await send(to: options.device, context) { player, deviceID in
                let references = try lines(of: context.stdin, expectingOneOf: [.track, .episode])
                return try await addToQueue(references, player: player, deviceID: deviceID)
            }
        }
    }

    static func addToQueue(_ references: [SpotifyReference], player: SpotifyPlayer, deviceID: String?)
        async throws -> String
    {
        for reference in references { try await player.queue(uri: reference.uri, deviceID: deviceID) }
        return "queue \(plural(references.count, "item"))"
    }

    /// The queue as records, or a table on a terminal; nothing at all is exit 1.
    static func listQueue(_ context: ToolContext, mode: OutputMode) async throws -> ExitCode {
        let player = try context.player()
        let entries = LibraryReads.queueRecords(try await LibraryReads.queue(api: player.api)).map(QueueEntry.init)
        guard !entries.isEmpty else {
            if context.terminal.stderrIsTerminal { context.warn("nothing playing and nothing queued") }
            return .notFound
        }
        var printer = RecordPrinter<QueueEntry>(context, mode: mode, columns: QueueEntry.columns)
        for entry in entries { try printer.write(entry) }
        return .success
    }
}

/// A track or episode in the queue: its track record (Spotify's fields, as spotify-tracks prints
/// them) with position and current, passed through as it is; its row is spotify-tracks' row
/// after a mark for the current one, numbered from 1 as spotify-tracks' tables are.
struct QueueEntry: TableRecord {
    let track: TrackRow
    let isCurrent: Bool

    init(_ record: TrackRecord) {
        track = TrackRow(record)
        isCurrent = record.current == true
    }

    static let columns: [TextTable.Column] = [
        .fixed(" ", width: 1), .fixed("#", width: 2, alignment: .right), .flexible("NAME", weight: 3),
        .flexible("ARTISTS", weight: 2), .fixed("DURATION", width: 8, alignment: .right),
    ]

    var json: JSONValue { track.json }

    var cells: [String] { [isCurrent ? "▶" : ""] + track.cells }
}
