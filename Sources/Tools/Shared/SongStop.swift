import SpotifyClient
import ToolkitCLI
import ToolkitCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// When to look at the player again, and when to pause, to stop after a number of songs: the
/// end of the song that plays is predicted from its progress, looked at again a little before
/// it (a seek or a pause moves it), and the pause is sent just before it. Songs before the last
/// are looked at once, just after their predicted end, to see the next one begin. Pure: the
/// caller polls and sleeps (`SongStop.pauseAfterSongs`): `spotify-nowplaying pause --after` and
/// `routine-link run`'s pause at the end.
struct SongStop: Sendable {
    /// Songs still to end, the one playing included.
    var songsLeft: Int
    /// The song playing at the last look, and its progress then.
    var current: (uri: String, progressMs: Int, name: String)?
    /// How many songs have ended since the first look.
    var ended = 0

    /// How long before the last song's end it is looked at again.
    static let checkLead = 5.0
    /// How long before its end the pause is sent: the command takes a moment to reach the device.
    static let pauseLead = 0.4
    /// How long after a song's predicted end the next one is looked for.
    static let afterEnd = 1.5
    /// How often a paused player, an ad or an item without a duration is looked at again.
    static let idleLook = 30.0

    init(songs: Int) {
        songsLeft = songs
    }

    enum Step: Equatable {
        /// Look again after this many seconds.
        case look(after: Double)
        /// Send the pause after this many seconds (0: now; the song's end has passed).
        case pause(after: Double)
        /// Nothing plays: there is nothing to pause.
        case nothingPlays
    }

    /// What to do after seeing `observation`.
    mutating func next(_ observation: PlaybackObservation) -> Step {
        guard observation.currentlyPlayingType != nil else { return .nothingPlays }
        guard let item = observation.item, let uri = item["uri"]?.stringValue,
            let duration = observation.durationMs, duration > 0
        else {
            return .look(after: Self.idleLook)  // an ad, or an item that says too little: later
        }
        let progress = min(max(observation.progressMs ?? 0, 0), duration)
        if let current, current.uri != uri || progress < current.progressMs {
            // Another song, or this one from its start (repeat): the one before ended.
            songsLeft -= 1
            ended += 1
        }
        current = (uri, progress, item["name"]?.stringValue ?? "?")
        if songsLeft <= 0 { return .pause(after: 0) }  // its end went by while we slept (or it was skipped)
        guard observation.isPlaying else { return .look(after: Self.idleLook) }
        let remaining = Double(duration - progress) / 1000
        if songsLeft == 1 {
            if remaining <= Self.checkLead + 1 { return .pause(after: max(remaining - Self.pauseLead, 0)) }
            return .look(after: remaining - Self.checkLead)
        }
        return .look(after: remaining + Self.afterEnd)
    }
}

extension SongStop {
    /// `pause --after N` and `--at-end`: pauses at the end of the Nth song (the one playing is
    /// the first). Ctrl-C, SIGTERM or SIGHUP cancel: nothing is paused, and the exit status is the
    /// signal's (130 for Ctrl-C).
    static func pauseAfterSongs(_ songs: Int, device: String?, _ context: ToolContext) async throws -> ExitCode {
        let player = try context.player()
        let clock = context.watchClock
        // A device that is not there is an error now, not at the end of the song.
        let target = try await player.commandTarget(device)
        let stop = StopSignal()
        let caught = Locked<Int32?>(nil)
        let handlers = SignalHandlers { number in
            caught.withLock { if $0 == nil { $0 = number } }
            stop.stop()
        }
        defer { handlers.cancel() }
        func cancelled() -> ExitCode {
            context.warn("cancelled: playback was not paused")
            return ExitCode.answering(signal: caught.withLock { $0 } ?? SIGINT)
        }

        var plan = SongStop(songs: songs)
        var announced = false
        while true {
            let observation = PlaybackObservation(try await player.current())
            if stop.isStopped { return cancelled() }
            let step = plan.next(observation)
            switch step {
            case .nothingPlays:
                if !announced {
                    context.warn("nothing playing: nothing to pause")
                    return .notFound
                }
                context.warn("playback stopped on its own before the end; nothing to pause")
                return .success
            case .look(let seconds):
                if !announced, let current = plan.current {
                    announced = true
                    let which =
                        songs == 1 ? "'\(current.name)'" : "the \(ordinal(songs)) song from '\(current.name)'"
                    context.warn(TerminalText.clean("pausing at the end of \(which); Ctrl-C cancels"))
                }
                await clock.sleep(seconds, or: stop)
            case .pause(let seconds):
                await clock.sleep(seconds, or: stop)
                if stop.isStopped { return cancelled() }
                try await player.pause(deviceID: target.id)
                let name = plan.current?.name ?? "?"
                let late = plan.songsLeft <= 0
                let what = late ? "as '\(name)' began (the song before had ended)" : "at the end of '\(name)'"
                let heard = late ? plan.ended : plan.ended + 1
                context.warn(TerminalText.clean("paused \(what), after \(plural(heard, "song"))"))
                return .success
            }
            if stop.isStopped { return cancelled() }
        }
    }

    /// "2nd", "3rd", "11th".
    static func ordinal(_ number: Int) -> String {
        let suffix: String
        switch (number % 10, number % 100) {
        case (_, 11...13): suffix = "th"
        case (1, _): suffix = "st"
        case (2, _): suffix = "nd"
        case (3, _): suffix = "rd"
        default: suffix = "th"
        }
        return "\(number)\(suffix)"
    }
}
