import SpotifyClient
import ToolkitCLI
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// routine-link's session subcommands: start, stop, log and history (run's orchestration is
/// `RoutineRun`'s, which begins and logs sessions through these).
extension RoutineLink {

    static func start(_ options: StartOptions, _ context: ToolContext) async throws -> ExitCode {
        let (routine, started) = try await beginSession(options.name, options.playback, context)
        let with = started.playlist.map { " with \(playlistName($0))" } ?? ""
        try Printer(context, json: options.json).write(
            routine.record(of: started),
            human: "started '\(routine.name)' at \(localTime(started.startedAt, context.timeZone))\(with)")
        return .success
    }

    static func stop(_ options: RoutineOptions, _ context: ToolContext) throws -> ExitCode {
        let (routine, closed) = try store(context).update { try $0.stop(options.name, now: isoTimestamp(context.now)) }
        guard !closed.isEmpty else {
            throw ToolError(.notFound, "'\(routine.name)' has no running session; nothing to stop")
        }
        let printer = Printer(context, json: options.json)
        for session in closed {
            let started = localTime(session.startedAt, context.timeZone)
            try printer.write(
                routine.record(of: session),
                human: "stopped the session of '\(routine.name)' started \(started); not logged")
        }
        return .success
    }

    /// Records the session, then opens or plays its playlist. Opening failures never undo the
    /// session (it has begun; the message names the link to open by hand).
    static func beginSession(_ name: String, _ playback: Playback, _ context: ToolContext) async throws -> (
        Routine, RoutineSession
    ) {
        let (routine, started, closed) = try store(context).update {
            try $0.start(name, now: isoTimestamp(context.now))
        }
        // Said once: the earlier session is closed now, so no later start finds it running.
        if let latest = closed.last {
            let when = localTime(latest.startedAt, context.timeZone)
            let what =
                closed.count == 1
                ? "the earlier session (started \(when)), which was never logged; history shows it"
                : """
                \(closed.count) earlier sessions (the latest started \(when)), which were never logged; history \
                shows them
                """
            context.warn("closed \(what) as not logged")
        }
        guard let playlist = started.playlist else {
            context.warn("'\(routine.name)' has no playlist linked; nothing to open")
            return (routine, started)
        }
        if playback.play {
            do {
                let player = try context.player()
                let device = try await player.commandTarget(playback.device)
                // A track is played as itself; a playlist or an album as the context it is.
                let target: SpotifyPlayer.PlayTarget =
                    playlist.kind == .track ? .items([playlist.uri]) : .context(uri: playlist.uri, offsetURI: nil)
                try await player.play(target, deviceID: device.id)
                context.warn("playing \(playlistName(playlist)) on \(device.name)")
                return (routine, started)
            } catch let error as ToolError {
                context.warn("could not start playback, opening the playlist instead: \(error.message)")
            }
        }
        let link = LinkOpener.playlistLink(
            playlist, schemeHasHandler: LinkOpener(environment: context.environment).spotifySchemeHasHandler())
        try openLink(link, playlist, context, failure: .success)
        return (routine, started)
    }

    static func log(_ options: RoutineOptions, _ context: ToolContext) throws -> ExitCode {
        guard !context.terminal.stdinIsTerminal else {
            throw ToolError.usage(
                """
                log reads a song_count record from standard input: spotify-nowplaying --watch --for 15m | songcount | \
                routine-link log NAME
                """
            )
        }
        _ = try book(context).existingIndex(of: options.name)
        // The end of a listening pipeline: Ctrl-C is for the watch, which then closes; the count
        // that follows must still be read and logged.
        let shield = ListeningShield.begin(readingFrom: context.stdin.fileDescriptor)
        let read = Result { try songCountFromInput(context.stdin) }
        shield.finish()
        guard let count = try read.get() else {
            context.warn("no song_count record on standard input; nothing logged")
            return .notFound
        }
        return try logCount(count, to: options.name, Printer(context, json: options.json), context)
    }

    /// `sessionID`: run's own session, which takes the count even if closed meanwhile.
    static func logCount(
        _ count: SongCountSummary, to name: String, _ printer: Printer, _ context: ToolContext, sessionID: String? = nil
    ) throws -> ExitCode {
        let (routine, logged) = try store(context).update {
            try $0.log(name, count: count, now: isoTimestamp(context.now), sessionID: sessionID)
        }
        try printer.write(routine.record(of: logged), human: "'\(routine.name)': you got through \(count.label)")
        return .success
    }

    /// The one song_count record on standard input; nil when there is none.
    static func songCountFromInput(_ input: StandardInput) throws -> SongCountSummary? {
        var counts: [SongCountSummary] = []
        try input.forEachObject(notAnObject: "not a JSON object; log reads songcount's song_count record") { value in
            guard let count = SongCountSummary(record: value) else {
                let type = value["type"]?.stringValue.map { "a \($0) record" } ?? "a record without a type"
                throw StandardInput.Rejection(
                    "\(type), not a song_count record with songs; pipe it through songcount first")
            }
            counts.append(count)
        }
        guard counts.count <= 1 else {
            throw ToolError.dataError("standard input has \(counts.count) song_count records; log takes one")
        }
        return counts.first
    }

    static func history(_ options: HistoryOptions, _ context: ToolContext) throws -> ExitCode {
        let records = try book(context).history(of: options.name)
        try Printer(context, json: options.json).writeAll(records, header: HistoryRow.header) {
            records.map { HistoryRow(record: $0, zone: context.timeZone).cells }
        }
        if records.isEmpty && context.terminal.stderrIsTerminal {
            context.warn("no sessions yet")
        }
        return .success
    }
}
