import SpotifyClient
import ToolkitCLI
import ToolkitCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SpotifyNowPlaying {
    static let pauseAfterOption = OptionSpec(
        "after", value: "N",
        help:
            """
            Pause at the end of the Nth song instead of now (the one playing is the first; 1 to 1000); waits, \
            looking at the player only near each song's end.
            """
    )
    static let pauseAtEndOption = OptionSpec(
        "at-end", help: "Pause at the end of the song playing now (--after 1).")

    static let pauseCommand = CommandSpec(
        name: "pause", abstract: "pause playback, now or at the end of this song or the Nth",
        discussion: [
            """
            With --at-end or --after N, pause waits and pauses at the end of that song: its end is predicted from \
            the progress Spotify reports and looked at again a few seconds before it (a seek, a skip or a pause by \
            hand moves it), so the wait costs a request or two a song, not one a second. Songs skipped count as \
            songs. It says on stderr what it waits for; Ctrl-C (or SIGTERM, SIGHUP) cancels, says so, pauses nothing \
            and exits 130 (129, 143). Nothing playing: exit 1.
            """
        ],
        options: [deviceOption, pauseAfterOption, pauseAtEndOption],
        examples: [
            ExampleSpec("spotify-nowplaying pause --at-end", "Stop when this song is over."),
            ExampleSpec("spotify-nowplaying pause --after 3 &", "A sleep timer counted in songs."),
        ]
    ).running(pause)

    /// `pause`: where, and when (nil: now).
    struct PauseOptions: CommandOptions {
        var device: String?
        /// Songs to wait for, the one playing included; nil: pause now.
        var songs: Int?

        init(_ command: ParsedCommand) throws {
            device = try command.value(deviceOption)
            let atEnd = try command.flag(pauseAtEndOption)
            if let text = try command.value(pauseAfterOption) {
                if atEnd { throw ToolError.usage("--at-end is --after 1: give one of them") }
                // Digits only, range-checked before conversion.
                guard !text.isEmpty, text.count <= 4, text.allSatisfy({ ("0"..."9").contains($0) }),
                    let count = Int(text),
                    (1...1000).contains(count)
                else {
                    throw ToolError.usage("--after needs a number of songs, 1 to 1000, not '\(text.prefix(40))'")
                }
                songs = count
            } else {
                songs = atEnd ? 1 : nil
            }
        }
    }

    static func pause(_ options: PauseOptions, _ context: ToolContext) async throws -> ExitCode {
        if let songs = options.songs {
            return try await SongStop.pauseAfterSongs(songs, device: options.device, context)
        }
        return try await send(to: options.device, context) { player, deviceID in
            try await player.pause(deviceID: deviceID)
            return "pause"
        }
    }
}
