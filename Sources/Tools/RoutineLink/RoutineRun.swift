import SpotifyClient
import ToolkitCLI
import ToolkitCore

/// `routine-link run NAME`: starts the routine, watches what plays for its duration (the
/// documented `spotify-nowplaying --watch | songcount`, through `ListeningPipeline`), then logs
/// the song count, or discards the session and says why. The session begins and ends as `start`
/// and `log` would have it (`RoutineLink.beginSession`, `RoutineLink.logCount`).
enum RoutineRun {
    static func run(_ options: RoutineLink.RunOptions, _ context: ToolContext) async throws -> ExitCode {
        let book = try RoutineLink.book(context)
        let routine = book.routines[try book.existingIndex(of: options.name)]
        guard let watchMs = options.watchMs ?? routine.durationMs else {
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
        guard try await TokenProvider(environment: context.environment, clock: context.clock).hasLogin() else {
            throw ToolError.noPermission(
                "run watches what plays, which needs a login; run 'spotify-auth login' first (nothing was started)")
        }
        let (_, started) = try await RoutineLink.beginSession(options.name, options.playback, context)

        var environment = context.environment.variables
        environment.removeValue(forKey: OutputMode.forceTerminalVariable)  // the children talk JSON Lines to each other
        let pipeline = ListeningPipeline(
            watchCommand: watch + ["--watch", "--json", "--for", "\(watchMs / 1000)s"],
            countCommand: count + ["--json"], environment: environment, errors: context.stderr.fileDescriptor)
        let display = LiveDisplay(
            enabled: context.terminal.stderrIsTerminal, stderr: context.stderr, zone: context.timeZone)
        let outcome = try pipeline.run { line in display.show(line) }
        display.clear()
        let status = try settle(
            outcome, of: started, routine.name, RoutineLink.Printer(context, json: options.json), context)
        // Time is up: the song that crosses it plays to its end, then playback pauses. Not after
        // a Ctrl-C, which ended the routine early on purpose.
        guard options.stopAtEnd, !outcome.interrupted else { return status }
        let paused = try await SongStop.pauseAfterSongs(1, device: options.playback.device, context)
        return paused == .success || paused == .notFound ? status : paused
    }

    /// Logs what the finished pipeline counted to the run's own session, or discards the session
    /// and says why.
    static func settle(
        _ outcome: ListeningPipeline.Outcome, of session: RoutineSession, _ name: String,
        _ printer: RoutineLink.Printer, _ context: ToolContext
    ) throws -> ExitCode {
        let verdict = outcome.verdict
        let logLater = "routine-link log " + shellQuoted(TerminalText.clean(name))
        if case .log(let count, let interrupted) = verdict {
            if interrupted { context.warn("stopped early; logging what was heard") }
            do {
                return try RoutineLink.logCount(count, to: name, printer, context, sessionID: session.id)
            } catch let error as ToolError {
                // A full disk must not lose the count: print it where `routine-link log` can replay it.
                try context.stdout.write(SongCountRecord.summary(count))
                throw ToolError(
                    error.exitCode, "\(error.message); the count is on standard output: log it later with \(logLater)")
            }
        }
        _ = try RoutineLink.store(context).update { $0.discardSession(session.id) }
        switch verdict {
        case .watchFailed(let status, let heard):
            // Not logged: the history holds sessions the user ran to their end (or stopped). What
            // was heard is printed, so logging it anyway is one command away.
            var message = "the watch failed (exit status \(status)); no session logged"
            if let heard {
                try context.stdout.write(SongCountRecord.summary(heard))
                message += "; what was heard (\(heard.label)) is on standard output: log it anyway with \(logLater)"
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
}
