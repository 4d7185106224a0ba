import SpotifyClient
import ToolkitCLI
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The playback settings (shuffle, repeat, volume, seek), transfer, and like/unlike of the
/// track that plays now.
extension SpotifyNowPlaying {
    /// What every playback setting needs, for its help.
    static let needsPremium =
        "Needs Spotify Premium and the user-modify-playback-state scope (spotify-auth login --scope playback adds it)."
    /// How a playback setting is sent, for the help's later section.
    static func sends(_ request: String) -> String {
        """
        Sends \(request), again if the answer is lost: the command sets an absolute state, so a second try cannot \
        change the outcome.
        """
    }

    static let settingCommands: [CommandSpec] = [
        CommandSpec(
            name: "like", abstract: "save the track that plays now to your Liked Songs",
            discussion: [
                """
                Needs the user-library-modify scope (spotify-auth login --scope edit adds it), not Premium. Saving a \
                song that is already liked changes nothing. Nothing playing, a podcast episode, an ad or a local file \
                is exit 1 with a message saying so.
                """
            ],
            notes: [
                "Reads what plays now (GET /me/player/currently-playing), then saves that track with PUT /me/library."
            ],
            examples: [ExampleSpec("spotify-nowplaying like", "Like the song you are hearing.")]
        ).running({ (_: NoOptions, context) in try await like(context, save: true) }),
        CommandSpec(
            name: "unlike", abstract: "remove the track that plays now from your Liked Songs",
            discussion: [
                """
                Needs the user-library-modify scope (spotify-auth login --scope edit adds it). Removing a song that \
                is not liked changes nothing.
                """
            ],
            notes: ["Reads what plays now, then removes that track with DELETE /me/library."]
        ).running({ (_: NoOptions, context) in try await like(context, save: false) }),
        playbackCommand(
            "shuffle", "turn shuffle on or off",
            arguments: [ArgumentSpec("on|off", help: "on or off.", completion: .choices(["on", "off"]))],
            discussion: [needsPremium], notes: [sends("PUT /me/player/shuffle")],
            examples: [ExampleSpec("spotify-nowplaying shuffle on", "Shuffle what plays on the active device.")]
        ).running(shuffle),
        playbackCommand(
            "repeat", "repeat nothing, the track, or the whole playlist or album (context)",
            arguments: [
                ArgumentSpec(
                    "off|track|context", help: "off, track (this track) or context (the playlist, album...).",
                    completion: .choices(["off", "track", "context"]))
            ],
            discussion: [needsPremium], notes: [sends("PUT /me/player/repeat")],
            examples: [ExampleSpec("spotify-nowplaying repeat track", "Play this song on a loop.")]
        ).running(setRepeat),
        playbackCommand(
            "volume", "set the volume of the device, 0 to 100",
            arguments: [ArgumentSpec("PERCENT", help: "A whole percentage from 0 to 100 (a % sign may follow).")],
            discussion: [
                """
                \(needsPremium) Some devices have a fixed volume (supports_volume false in spotify-nowplaying \
                devices); Spotify refuses the command for them.
                """
            ],
            notes: [sends("PUT /me/player/volume")],
            examples: [ExampleSpec("spotify-nowplaying volume 30 --device Kitchen", "Turn the kitchen speaker down.")]
        ).running(volume),
        playbackCommand(
            "seek", "jump to a position in the track that plays",
            arguments: [
                ArgumentSpec(
                    "POSITION",
                    help:
                        "From the start of the track: 1:30, 90s, 90 (seconds), 1m30s or 1:02:03; at most 24 hours.")
            ],
            discussion: [
                needsPremium + " A position past the end of the track skips to the next one, as Spotify does."
            ],
            notes: [sends("PUT /me/player/seek")],
            examples: [ExampleSpec("spotify-nowplaying seek 1:30", "Jump to a minute and a half in.")]
        ).running(seek),
        CommandSpec(
            name: "transfer", abstract: "move playback to another device, keeping it playing or paused",
            discussion: [
                """
                DEVICE is found as --device finds it: an id, or a name from spotify-nowplaying devices \
                (case-insensitive; a unique prefix will do). Playing stays playing and paused stays paused. Needs \
                Premium and the user-modify-playback-state scope; a restricted device is refused.
                """
            ],
            notes: [
                "Reads whether something plays now, then sends PUT /me/player with that device and play set to match."
            ],
            arguments: [
                ArgumentSpec(
                    "DEVICE", help: "The device to play on: an id, a name, or a unique name prefix.",
                    completion: deviceOption.completion)
            ],
            examples: [
                ExampleSpec("spotify-nowplaying transfer kitchen", "Carry on listening on the kitchen speaker.")
            ]
        ).running(transfer),
    ]

    // MARK: Settings

    static func shuffle(_ options: SettingOptions<Shuffle>, _ context: ToolContext) async throws -> ExitCode {
        try await send(to: options.device, context) { player, deviceID in
            try await player.setShuffle(options.setting.on, deviceID: deviceID)
            return "shuffle \(options.setting.on ? "on" : "off")"
        }
    }

    static func setRepeat(_ options: SettingOptions<SpotifyPlayer.RepeatState>, _ context: ToolContext) async throws
        -> ExitCode
    {
        try await send(to: options.device, context) { player, deviceID in
            try await player.setRepeat(options.setting, deviceID: deviceID)
            return "repeat \(options.setting.rawValue)"
        }
    }

    static func volume(_ options: SettingOptions<Volume>, _ context: ToolContext) async throws -> ExitCode {
        try await send(to: options.device, context) { player, deviceID in
            try await player.setVolume(options.setting.percent, deviceID: deviceID)
            return "volume \(options.setting.percent)%"
        }
    }

    static func seek(_ options: SettingOptions<SeekPosition>, _ context: ToolContext) async throws -> ExitCode {
        try await send(to: options.device, context) { player, deviceID in
            try await player.seek(toMs: options.setting.milliseconds, deviceID: deviceID)
            return "seek to \(formatClock(milliseconds: options.setting.milliseconds))"
        }
    }

    // MARK: Transfer

    static func transfer(_ options: TransferOptions, _ context: ToolContext) async throws -> ExitCode {
        let player = try context.player()
        let device = try await player.device(named: options.device)
        guard let id = device["id"]?.stringValue else {
            throw PlayerCommandError.restricted(nil).toolError
        }
        let name = TerminalText.clean(device["name"]?.stringValue ?? id)
        // Keep the state: a paused session stays paused on the new device.
        let playing = try await player.current(withDevice: true)?["is_playing"]?.boolValue ?? false
        try await player.transfer(toDeviceID: id, play: playing)
        context.warn(
            """
            sent to '\(name)': take over playback\(playing ? " and keep playing" : "") (Spotify carries it out on the \
            device)
            """
        )
        return .success
    }

    // MARK: Like and unlike

    static let likeScope = SpotifyScope.Need([SpotifyScope.modifyLibrary], for: "liking songs")

    /// The track that plays now, saved to (or removed from) Liked Songs.
    static func like(_ context: ToolContext, save: Bool) async throws -> ExitCode {
        let player = try context.player()
        let track = try LikeTarget.from(try await player.current())
        let library = SavedItems(api: player.api)
        if save {
            try await library.save([track.uri], scope: likeScope)
        } else {
            try await library.remove([track.uri], scope: likeScope)
        }
        context.warn("\(save ? "liked" : "unliked") \(track.description)")
        return .success
    }
}

/// The track `like` acts on, read from `GET /me/player/currently-playing`. Pure.
struct LikeTarget: Sendable, Equatable, CustomStringConvertible {
    var uri: String
    var name: String
    var artists: [String]

    /// `'Name' by A, B (spotify:track:ID)`, safe for a terminal.
    var description: String {
        let by = artists.isEmpty ? "" : " by \(artists.joined(separator: ", "))"
        return TerminalText.clean("'\(name)'\(by) (\(uri))")
    }

    /// The playing track, or exit 1 saying why there is none to like.
    static func from(_ playing: JSONValue?) throws -> LikeTarget {
        let why = "; like and unlike act on the Spotify track that plays now"
        guard let playing else { throw ToolError(.notFound, "nothing is playing" + why) }
        let item = playing["item"]
        let type = playing["currently_playing_type"]?.stringValue
        switch type {
        case "episode": throw ToolError(.notFound, "a podcast episode is playing, not a track" + why)
        case "ad": throw ToolError(.notFound, "an ad is playing" + why)
        default: break
        }
        guard let item, item.objectValue != nil else { throw ToolError(.notFound, "nothing is playing" + why) }
        let uri = item["uri"]?.stringValue ?? ""
        if item["is_local"]?.boolValue == true || uri.hasPrefix("spotify:local:") {
            throw ToolError(.notFound, "a local file is playing; Spotify cannot save local files to Liked Songs")
        }
        guard uri.hasPrefix("spotify:track:"), SpotifyReference.isValidID(uri.dropFirst("spotify:track:".count))
        else {
            if item["type"]?.stringValue == "episode" {
                throw ToolError(.notFound, "a podcast episode is playing, not a track" + why)
            }
            throw ToolError(.notFound, "what plays now is not a Spotify track" + why)
        }
        return LikeTarget(
            uri: uri, name: item["name"]?.stringValue ?? "?",
            artists: (item["artists"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue })
    }
}
