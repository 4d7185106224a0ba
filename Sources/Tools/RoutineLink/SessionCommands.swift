import SpotifyClient
import ToolkitCLI
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// routine-link's session subcommands: start, stop, log, run and history.
extension RoutineLink {

    static func start(_ invocation: Invocation) async throws -> ExitCode {
        try checkPlayOptions(invocation.command)
        let (routine, started) = try await beginSession(invocation)
        try invocation.write(
            routine.record(of: started),
            human:
                "started '\(routine.name)' at \(localTime(started.startedAt, invocation.context))\(started.playlist.map { " with \(playlistName($0))" } ?? "")"
        )
        return .success
    }

    /// `--device` says where `--play` plays: alone, it would be silently ignored.
    static func checkPlayOptions(_ command: ParsedCommand) throws {
        if try command.value(Option.device) != nil && !command.flag(playOption) {
            throw ToolError.usage("--device goes with --play (it names the device to play on)")
        }
    }

    static func stop(_ invocation: Invocation) throws -> ExitCode {
        let (routine, closed) = try invocation.store.update {
            try $0.stop(invocation.name, now: isoTimestamp(invocation.context.now))
        }
        guard !closed.isEmpty else {
            throw ToolError(.notFound, "'\(routine.name)' has no running session; nothing to stop")
        }
        for session in closed {
            try invocation.write(
                routine.record(of: session),
                human:
                    "stopped the session of '\(routine.name)' started \(localTime(session.startedAt, invocation.context)); not logged"
            )
        }
        return .success
    }

    /// Records the session, then opens or plays its playlist. Opening failures never undo the
    /// session (it has begun; the message names the link to open by hand).
    static func beginSession(_ invocation: Invocation) async throws -> (Routine, RoutineSession) {
        let context = invocation.context
        let (routine, started, closed) = try invocation.store.update {
            try $0.start(invocation.name, now: isoTimestamp(invocation.context.now))
        }
        // Said once: the earlier session is closed now, so no later start finds it running.
        if let latest = closed.last {
            let what =
                closed.count == 1
                ? "the earlier session (started \(localTime(latest.startedAt, invocation.context))), which was never logged; history shows it"
                : "\(closed.count) earlier sessions (the latest started \(localTime(latest.startedAt, invocation.context))), which were never logged; history shows them"
            context.warn("closed \(what) as not logged")
        }
        guard let playlist = started.playlist else {
            context.warn("'\(routine.name)' has no playlist linked; nothing to open")
            return (routine, started)
        }
        if try invocation.command.flag(playOption) {
            do {
                let player = try context.player()
                let device = try await player.commandTarget(try invocation.command.value(Option.device))
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

    static func log(_ invocation: Invocation) async throws -> ExitCode {
        guard !invocation.context.terminal.stdinIsTerminal else {
            throw ToolError.usage(
                "log reads a song_count record from standard input: spotify-nowplaying --watch --for 15m | songcount | routine-link log NAME"
            )
        }
        _ = try book(invocation).existingIndex(of: invocation.name)
        // The end of a listening pipeline: Ctrl-C is for the watch, which then closes; the count
        // that follows must still be read and logged.
        let shield = ListeningShield.begin(readingFrom: invocation.context.stdin.fileDescriptor)
        let read = Result { try songCountFromInput(invocation.context.stdin) }
        shield.finish()
        guard let count = try read.get() else {
            invocation.context.warn("no song_count record on standard input; nothing logged")
            return .notFound
        }
        return try await logCount(count, invocation)
    }

    /// `sessionID`: run's own session, which takes the count even if closed meanwhile.
    static func logCount(_ count: SongCountSummary, _ invocation: Invocation, sessionID: String? = nil) async throws
        -> ExitCode
    {
        let (routine, logged) = try invocation.store.update {
            try $0.log(invocation.name, count: count, now: isoTimestamp(invocation.context.now), sessionID: sessionID)
        }
        try invocation.write(routine.record(of: logged), human: "'\(routine.name)': you got through \(count.label)")
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

    static func runRoutine(_ invocation: Invocation) async throws -> ExitCode {
        let context = invocation.context
        try checkPlayOptions(invocation.command)
        let book = try book(invocation)
        let routine = book.routines[try book.existingIndex(of: invocation.name)]
        let watchMs: Int
        if let text = try invocation.command.value(Option.watchFor) {
            watchMs = try parseDuration(text)
        } else if let duration = routine.durationMs {
            watchMs = duration
        } else {
            throw ToolError.usage("'\(routine.name)' has no duration; give one with --for DURATION")
        }
        guard watchMs > 0 else { throw ToolError.usage("--for must be longer than 0") }
        guard let watch = ListeningPipeline.sibling("spotify-nowplaying", environment: context.environment),
            let count = ListeningPipeline.sibling("songcount", environment: context.environment)
        else {
            throw ToolError.unavailable("run needs spotify-nowplaying and songcount beside routine-link or on PATH")
        }
        // The watch needs a login: without one, say so before the playlist opens or a session
        // starts (review item 31), not after.
        if (context.environment["SPOTIFY_ACCESS_TOKEN"] ?? "").isEmpty,
            try TokenStores.make(environment: context.environment).load() == nil
        {
            throw ToolError.noPermission(
                "run watches what plays, which needs a login; run 'spotify-auth login' first (nothing was started)")
        }
        let (_, started) = try await beginSession(invocation)

        var environment = context.environment.variables
        environment.removeValue(forKey: "SPOTIFY_TOOLKIT_FORCE_TTY")  // the children talk JSON Lines to each other
        let pipeline = ListeningPipeline(
            watchCommand: watch + ["--watch", "--json", "--for", "\(watchMs / 1000)s"],
            countCommand: count + ["--json"], environment: environment, errors: context.stderr.fileDescriptor)
        let display = LiveDisplay(
            enabled: context.terminal.stderrIsTerminal, stderr: context.stderr, zone: context.timeZone)
        let outcome = try pipeline.run { line in display.show(line) }
        display.clear()

        let verdict = outcome.verdict
        if case .log(let count, let interrupted) = verdict {
            if interrupted { context.warn("stopped early; logging what was heard") }
            do {
                return try await logCount(count, invocation, sessionID: started.id)
            } catch let error as ToolError {
                // A full disk must not lose the count: print it where `routine-link log` can replay it.
                try context.stdout.write(SongCountRecord.summary(count))
                throw ToolError(
                    error.exitCode,
                    "\(error.message); the count is on standard output: log it later with routine-link log \(shellQuoted(routine.name))"
                )
            }
        }
        _ = try invocation.store.update { $0.discardSession(started.id) }
        switch verdict {
        case .watchFailed(let status, let heard):
            // Not logged: the history holds sessions the user ran to their end (or stopped). What
            // was heard is printed, so logging it anyway is one command away.
            var message = "the watch failed (exit status \(status)); no session logged"
            if let heard {
                try context.stdout.write(SongCountRecord.summary(heard))
                message +=
                    "; what was heard (\(heard.label)) is on standard output: log it anyway with routine-link log \(shellQuoted(routine.name))"
            }
            let code = ExitCode(rawValue: status).flatMap { $0 == .success ? nil : $0 } ?? .unavailable
            throw ToolError(code, message)
        case .countFailed(let status):
            context.stderr.write(TerminalText.clean(String(decoding: outcome.countErrors, as: UTF8.self)))
            throw ToolError(
                ExitCode(rawValue: status).flatMap { $0 == .success ? nil : $0 } ?? .software,
                "songcount failed (exit status \(status)); no session logged")
        case .countUnreadable:
            throw ToolError(.software, "songcount exited 0 without a song_count record; no session logged")
        case .nothingHeard, .log:
            context.warn("nothing heard; no session logged")
            return .notFound
        }
    }

    /// `name` as one shell word, for a command the user may paste.
    static func shellQuoted(_ name: String) -> String {
        let clean = TerminalText.clean(name)
        let plain = clean.unicodeScalars.allSatisfy {
            $0.isAlphanumeric || "-_.".unicodeScalars.contains($0)
        }
        return plain && !clean.isEmpty ? clean : "'" + clean.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    static func history(_ invocation: Invocation) throws -> ExitCode {
        let book = try book(invocation)
        let records = try book.history(of: invocation.command.positionals.first)
        if invocation.mode == .human {
            let rows = records.map { record -> [String] in
                let started = record["started_at"]?.stringValue ?? ""
                let length = record["duration_ms"]?.intValue.map { formatClock(milliseconds: $0) } ?? "running"
                return [
                    localTime(started, invocation.context), length, record["routine"]?.stringValue ?? "",
                    record["playlist"]?["name"]?.stringValue ?? record["playlist"]?["uri"]?.stringValue ?? "-",
                    record["label"]?.stringValue ?? "-",
                ]
            }
            if !rows.isEmpty {
                try invocation.context.stdout.writeText(
                    table(header: ["STARTED", "LENGTH", "ROUTINE", "PLAYLIST", "SONGS"], rows: rows))
            }
        } else {
            for record in records { try invocation.context.stdout.write(record) }
        }
        if records.isEmpty && invocation.context.terminal.stderrIsTerminal {
            invocation.context.warn("no sessions yet")
        }
        return .success
    }
}
