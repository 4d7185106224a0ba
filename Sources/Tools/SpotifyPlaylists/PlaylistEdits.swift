import SpotifyClient
import ToolkitCLI
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The destructive writes (replace, remove, dedupe, sort, rewrite, undo): each reads the whole
/// playlist first, so a read that fails writes nothing; plans the least change
/// (`PlaylistEditPlan`), says what it will do, keeps the playlist as it was in the undo journal,
/// then sends the plan (`PlaylistApply`) and proves the result. A signal stops it between two
/// requests and it says what the playlist holds.
extension SpotifyPlaylists {
    enum EditOption {
        static let resetDates = OptionSpec(
            "reset-dates",
            help:
                """
                Write the playlist afresh: the first 100 items replace it and the rest are appended, the fewest \
                requests, but every item's date added becomes now (and added by becomes you). Without it only the \
                difference is sent and every item that stays keeps its date.
                """
        )
        static let dropUnavailable = OptionSpec(
            "drop-unavailable",
            help:
                """
                With --reset-dates: drop the playlist's local files and unavailable entries, which the Web API cannot \
                write back (refused otherwise; without --reset-dates they stay where they are).
                """
        )
        static let maxMoves = OptionSpec(
            "max-moves", value: "N",
            help:
                """
                Keep the dates even when that takes up to N range moves (default \(defaultMaxMoves)); a plan with \
                more is refused, naming --reset-dates.
                """
        )
        static let force = OptionSpec(
            "force", short: "f",
            help:
                "Undo although the playlist changed since that write (someone else edited it)."
        )
        static let acceptComplaints = OptionSpec(
            "force", short: "f",
            help:
                """
                Apply what COMMAND printed although it wrote on standard error (refused otherwise: a filter that \
                complained may have dropped records and still exited 0, as jq 1.6 does).
                """
        )
        static let sortKey = OptionSpec(
            "by", value: "KEY",
            help:
                """
                What to sort by: duration, name, artist, album, released (the album's release date, a year before \
                any day of it), added (date added) or random.
                """,
            completion: .choices(SortKey.allCases.map(\.rawValue)))
        static let reverse = OptionSpec(
            "reverse", short: "r", help: "Sort the other way round (items that tie keep their order).")
        static let seed = OptionSpec(
            "seed", value: "N", help: "--by random: shuffle with this seed, so the same seed gives the same order.")
    }

    static let defaultMaxMoves = 500

    enum SortKey: String, CaseIterable {
        case duration, name, artist, album, released, added, random
    }

    static let undoNote =
        """
        Every destructive write (replace, remove, dedupe, sort, rewrite, undo) first keeps the playlist's items and \
        order in the undo journal; spotify-playlists undo PLAYLIST puts them back.
        """

    static let editCommands: [CommandSpec] = [
        CommandSpec(
            name: "dedupe",
            abstract: "remove repeated songs from a playlist, keeping each one's first occurrence and every date",
            discussion: [
                """
                Reads the whole playlist, then removes the songs that occur more than once and adds each back once \
                where it first was (the Web API removes every occurrence of a song), so only those songs get a new \
                date added. A read that fails writes nothing. \(undoNote)
                """
            ],
            arguments: [destructiveTarget],
            options: [
                EditOption.resetDates, EditOption.dropUnavailable, WriteOption.dryRun, PlaylistCommands.jsonOption,
            ],
            examples: [ExampleSpec("spotify-playlists dedupe Morning", "Each song of Morning once.")]
        ).running(dedupe).offering(PlaylistCommands.jsonOption),
        CommandSpec(
            name: "sort",
            abstract:
                """
                sort a playlist by duration, name, artist, album, release date, date added or at random, keeping every \
                date
                """,
            discussion: [
                """
                Reads the whole playlist and puts it in order with range moves, so every item keeps its date added. \
                The sort is stable: items that tie keep their order. Each range move swaps two blocks of items, so a \
                shuffled playlist takes about one move for every two items (1,500 for 3,000), near the fewest there \
                can be; past --max-moves it is refused, naming --reset-dates, and --dry-run says what it would send. \
                Local files and unavailable entries stay after the item they followed. \(undoNote)
                """
            ],
            arguments: [destructiveTarget],
            options: [
                EditOption.sortKey, EditOption.reverse, EditOption.seed, EditOption.maxMoves, EditOption.resetDates,
                EditOption.dropUnavailable, WriteOption.dryRun, PlaylistCommands.jsonOption,
            ],
            examples: [
                ExampleSpec("spotify-playlists sort Morning --by duration", "Shortest first, dates kept."),
                ExampleSpec("spotify-playlists sort Morning --by released", "Oldest release first, dates kept."),
            ]
        ).running(sort).offering(PlaylistCommands.jsonOption),
        CommandSpec(
            name: "rewrite",
            abstract:
                "edit a playlist through a command: its track records go in, the items it prints become the playlist",
            discussion: [
                """
                Reads the whole playlist (any failure: nothing is written), runs COMMAND with the playlist's track \
                records on its standard input (as spotify-tracks prints them), and applies what COMMAND prints as \
                replace does: only the difference is sent, and items that stay keep their dates. COMMAND failing (a \
                non-zero status, or anything written on its standard error, which is shown) writes nothing; --force \
                accepts what it printed despite its complaints. Try it with --dry-run first, and write filters that \
                take episodes and local files (no artists): (.artists[0].name // ""). Put -- before COMMAND. \
                \(undoNote)
                """
            ],
            arguments: [
                destructiveTarget,
                ArgumentSpec(
                    "COMMAND",
                    help: "The command and its arguments, after --: it reads track records and prints items.",
                    repeatable: true),
            ],
            options: [
                EditOption.acceptComplaints, EditOption.maxMoves, EditOption.resetDates, EditOption.dropUnavailable,
                WriteOption.dryRun, PlaylistCommands.jsonOption,
            ],
            examples: [
                ExampleSpec(
                    "spotify-playlists rewrite Morning -- jq -c 'select(.duration_ms < 300000)'",
                    "Drop the songs of five minutes or more."),
                ExampleSpec(
                    "spotify-playlists rewrite Morning -- songcount --target 30m --select",
                    "Keep the songs that fill the first half hour."),
            ]
        ).running(rewrite).offering(PlaylistCommands.jsonOption),
        CommandSpec(
            name: "undo",
            abstract: "put back a playlist's items and order from before the last destructive write made here",
            discussion: [
                """
                Puts back what the playlist held before the last replace, remove, dedupe, sort, rewrite or undo this \
                toolkit made to it on this machine, with the same least change: items that were never removed keep \
                their dates; items added back get today's date (the Web API cannot set a date added). Unavailable \
                entries that a --reset-dates --drop-unavailable write dropped cannot come back. undo is itself \
                undoable: undo twice to redo. When the playlist changed since that write (someone else edited it), \
                undo says what changed and needs --force.
                """,
                """
                The journal keeps the last \(UndoJournal.keptPerPlaylist) writes of each playlist for \
                \(Int(UndoJournal.maxAge / 86_400)) days, of at most \(UndoJournal.maxPlaylists) playlists, under \
                $XDG_STATE_HOME/spotify-toolkit/undo/ (default ~/.local/state).
                """,
            ],
            arguments: [destructiveTarget],
            options: [
                EditOption.force, EditOption.maxMoves, WriteOption.dryRun, PlaylistCommands.jsonOption,
            ]
        ).running(undo).offering(PlaylistCommands.jsonOption),
    ]

    static let destructiveTarget = ArgumentSpec(
        "PLAYLIST",
        help:
            """
            The playlist to change: an id, spotify:playlist: URI, open.spotify.com URL, playlist record, or its exact \
            name.
            """
    )

    // MARK: Handlers

    static func dedupe(_ options: DedupeOptions, _ context: ToolContext) async throws -> ExitCode {
        let playlist = try await writeTarget(options.playlist, context, exact: true)
        return try await applyEdit("dedupe", to: playlist, settings: options.settings, context: context) { contents in
            contents.writableURIs.compactMap { $0 }.uniqued()
        }
    }

    static func sort(_ options: SortOptions, _ context: ToolContext) async throws -> ExitCode {
        let playlist = try await writeTarget(options.playlist, context, exact: true)
        return try await applyEdit("sort", to: playlist, settings: options.settings, context: context) { contents in
            PlaylistOrder.sorted(contents.entries, by: options.key, reverse: options.reverse, seed: options.seed)
        }
    }

    static func rewrite(_ options: RewriteOptions, _ context: ToolContext) async throws -> ExitCode {
        let playlist = try await writeTarget(options.playlist, context, exact: true)
        let program = options.program
        guard let executable = program[0].contains("/") ? program[0] : context.environment.executable(named: program[0])
        else {
            throw ToolError(.noInput, "rewrite: command '\(TerminalText.clean(program[0]))' not found on PATH")
        }
        return try await applyEdit("rewrite", to: playlist, settings: options.settings, context: context) { contents in
            try rewritten(contents, of: playlist, by: executable, program, acceptComplaints: options.force, context)
        }
    }

    /// What rewrite keeps of COMMAND's output: 10,000 full track records are about 15 MiB.
    static let rewriteOutputLimit = 64 * 1_048_576

    /// The items COMMAND prints when given the playlist's track records: what the playlist becomes.
    static func rewritten(
        _ contents: PlaylistContents, of playlist: SpotifyReference, by executable: String, _ program: [String],
        acceptComplaints: Bool, _ context: ToolContext
    ) throws -> [String] {
        var input = Data()
        let reference = SpotifyReference(kind: .playlist, id: playlist.id)
        for (position, entry) in contents.entries.enumerated() {
            guard
                let record = PlaylistEntry.record(
                    entry, position: position, playlist: reference, snapshot: contents.snapshot)
            else { continue }
            input += Data((record.json.serialized() + "\n").utf8)
        }
        let run = try FilterProcess.run(
            executable, arguments: Array(program.dropFirst()), input: input,
            environment: context.environment.variables, stderr: context.stderr.fileDescriptor,
            outputLimit: rewriteOutputLimit)
        let shown = TerminalText.clean(program.joined(separator: " ")).prefix(200)
        if run.overflowed {
            throw ToolError.dataError(
                """
                rewrite: '\(shown)' printed more than \(rewriteOutputLimit / 1_048_576) MiB, far more than the \
                \(groupedThousands(PlaylistWriter.maxItems)) items a playlist holds; it was stopped, and nothing was \
                written to playlist \(playlist.id)
                """
            )
        }
        guard run.status == 0 else {
            throw ToolError.dataError(
                "rewrite: '\(shown)' \(run.statusDescription); nothing was written to playlist \(playlist.id)")
        }
        // The status alone is not enough: jq 1.6 exits 0 after erroring on records that are not the last.
        if run.complained && !acceptComplaints {
            throw ToolError.dataError(
                """
                rewrite: '\(shown)' exited 0 but wrote on standard error (above), so it may have dropped records; \
                nothing was written to playlist \(playlist.id); fix the filter (jq: (.artists[0].name // "") for \
                episodes and local files), or add --force to apply what it printed
                """
            )
        }
        var items = ItemInput()
        var lineNumber = 0
        for line in String(decoding: run.output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        {
            lineNumber += 1
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            do {
                try items.add(line: String(line))
            } catch let rejection as StandardInput.Rejection {
                throw ToolError.dataError(
                    "rewrite: line \(lineNumber) of the command's output: \(rejection.reason); nothing was written")
            }
        }
        if items.uris.isEmpty && !contents.entries.isEmpty {
            throw ToolError.dataError(
                """
                rewrite: the command printed no items, which would empty playlist \(playlist.id); nothing was written \
                (to empty it: spotify-playlists replace --allow-empty \(playlist.id) < /dev/null)
                """
            )
        }
        return items.uris
    }

    static func undo(_ options: UndoOptions, _ context: ToolContext) async throws -> ExitCode {
        let playlist = try await writeTarget(options.playlist, context, exact: true)
        let journal = UndoJournal(environment: context.environment, now: context.now)
        guard let last = try journal.entries(of: playlist.id).last else {
            throw ToolError(
                .notFound,
                """
                nothing to undo for playlist \(playlist.id): no destructive write of it was made on this machine in \
                the last \(Int(UndoJournal.maxAge / 86_400)) days
                """
            )
        }
        let written = LocalTime.text(isoTimestamp(last.at), "yyyy-MM-dd HH:mm", in: context.timeZone)
        return try await applyEdit("undo", to: playlist, settings: options.settings, context: context) { contents in
            let now = contents.writableURIs
            if !last.mayHaveLeft(now) && !options.force {
                throw ToolError.tempFail(
                    """
                    playlist \(playlist.id) changed since the \(last.action) of \(written): \
                    \(changeText(from: last.after, to: now)); undo would lose that too; add --force to undo anyway
                    """
                )
            }
            context.warn("undoing the \(last.action) of \(written)\(last.complete ? "" : " (which did not finish)")")
            let lost = last.before.count { $0 == nil } - now.count { $0 == nil }
            if lost > 0 {
                let entries = countText(lost, noun: "unavailable entry", plural: "unavailable entries")
                context.warn(
                    """
                    \(entries) or local \(lost == 1 ? "file" : "files") that it dropped cannot come back: the Web API \
                    cannot add them
                    """
                )
            }
            return last.before.compactMap { $0 }
        }
    }

    // MARK: The shared edit

    /// Reads the whole playlist (a read that fails writes nothing), plans what `wanted` makes of
    /// it, says what it will do, and (unless --dry-run) journals, sends and proves it.
    static func applyEdit(
        _ action: String, to playlist: SpotifyReference, settings: WriteSettings, context: ToolContext,
        wanted: (PlaylistContents) async throws -> [String]
    ) async throws -> ExitCode {
        if settings.dryRun {
            return try await applyEditAlone(action, to: playlist, settings: settings, context: context, wanted: wanted)
        }
        return try await UndoJournal(environment: context.environment, now: context.now).exclusive(playlist.id) {
            try await applyEditAlone(action, to: playlist, settings: settings, context: context, wanted: wanted)
        }
    }

    /// `applyEdit` once no other write of the playlist runs on this machine.
    private static func applyEditAlone(
        _ action: String, to playlist: SpotifyReference, settings: WriteSettings, context: ToolContext,
        wanted: (PlaylistContents) async throws -> [String]
    ) async throws -> ExitCode {
        let writer = try context.playlistWriter()
        let contents = try await PlaylistContents.read(playlist.id, writer: writer)
        keepVersion(contents, metBy: "read", context)
        let wanted = try await wanted(contents)
        let mode = settings.mode(context)
        let current = contents.writableURIs
        let plan = try plannedEdit(action, of: playlist.id, from: current, to: wanted, settings: settings)
        context.warn("playlist \(playlist.id): \(planSummary(plan, resetDates: settings.resetDates))")
        if settings.dryRun {
            if !plan.isEmpty { context.warn(WriteCost.edit(plan).note) }
            for step in plan.steps { try context.stdout.write(changeRecord(step, playlist: playlist.id)) }
            return .success
        }
        try checkMoves(plan, from: current, to: wanted, settings: settings)
        if plan.isEmpty {
            try await printRecord(of: playlist.id, writer, context, mode: mode)
            return .success
        }
        let journal = UndoJournal(environment: context.environment, now: context.now)
        var entry = UndoJournal.Entry(
            action: action + (settings.resetDates ? " --reset-dates" : ""), at: context.now, before: current,
            beforeSnapshot: contents.snapshot, after: current, afterSnapshot: contents.snapshot, complete: false,
            planned: plan.result)
        try journal.record(entry, of: playlist.id)

        let deferral = SignalDeferral.begin()
        var apply = PlaylistApply(writer: writer, contents: contents, interruption: { SignalDeferral.pending })
        let progress = RequestProgress(context, planned: plan.steps.count)
        do {
            try await apply.run(plan)
            await progress.end()
        } catch let stopped as PlaylistApply.Stopped {
            await progress.end()
            deferral.end(discarding: true)
            if stopped.model == current {
                try? journal.removeLatest(of: playlist.id)
            } else {
                entry.after = stopped.model
                entry.afterSnapshot = nil
                try? journal.record(entry, of: playlist.id, replacingLatest: true)
            }
            return try reportStopped(
                stopped, action: action, playlist: playlist.id, plan: plan, wanted: wanted, settings: settings,
                changedNothing: stopped.model == current, context: context)
        } catch {
            await progress.end()
            deferral.end(discarding: true)
            throw error
        }
        deferral.end(discarding: true)
        if let proven = apply.proven { keepVersion(proven, metBy: action, context) }
        entry.after = apply.model
        entry.afterSnapshot = apply.snapshot
        entry.complete = true
        try? journal.record(entry, of: playlist.id, replacingLatest: true)
        context.warn(
            """
            \(pastTense(action)) playlist \(playlist.id): it holds \(countText(apply.model.count)) (proven by reading \
            it back); undo with: spotify-playlists undo \(playlist.id)
            """
        )
        try await printRecord(of: playlist.id, writer, context, mode: mode)
        return .success
    }

    /// The least-change plan from `current` to `wanted`, or with --reset-dates the one that writes
    /// the playlist afresh; an error when the result would not fit a playlist, or would drop its
    /// local files and unavailable entries unasked.
    static func plannedEdit(
        _ action: String, of id: String, from current: [String?], to wanted: [String], settings: WriteSettings
    ) throws -> PlaylistEditPlan {
        let pinned = current.count { $0 == nil }
        if wanted.count > PlaylistWriter.maxItems - pinned {
            throw ToolError.dataError(
                """
                \(action) would leave playlist \(id) with \(groupedThousands(wanted.count + pinned)) items; \
                a playlist holds at most \(groupedThousands(PlaylistWriter.maxItems)); nothing was changed
                """
            )
        }
        if settings.resetDates {
            if pinned > 0 && !settings.dropUnavailable {
                let held = countText(
                    pinned, noun: "local file or unavailable entry", plural: "local files or unavailable entries")
                throw ToolError.dataError(
                    """
                    playlist \(id) holds \(held), \
                    which --reset-dates would drop for good (the Web API cannot write them back); add \
                    --drop-unavailable to mean that, or leave out --reset-dates to keep them; nothing was changed
                    """
                )
            }
            return PlaylistEditPlan.rewrite(from: current, to: wanted)
        }
        return PlaylistEditPlan(from: current, to: wanted)
    }

    /// A plan keeping every date that takes more range moves than --max-moves allows is a usage
    /// error that says both ways on.
    static func checkMoves(
        _ plan: PlaylistEditPlan, from current: [String?], to wanted: [String], settings: WriteSettings
    ) throws {
        guard settings.resetDates || plan.moveRequests <= settings.maxMoves else {
            let rewrite = PlaylistEditPlan.rewrite(from: current, to: wanted)
            throw ToolError.usage(
                """
                keeping every date would take \(groupedThousands(plan.moveRequests)) range moves (more than \
                --max-moves \(settings.maxMoves)); add --reset-dates to write the playlist afresh in \
                \(countText(rewrite.steps.count, noun: "request")) (every date added becomes now), or --max-moves \
                \(plan.moveRequests) to keep the dates
                """
            )
        }
    }

    /// The message for a write that stopped part-way, with the one command that finishes or undoes it.
    /// `changedNothing`: the playlist is as it was, so there is nothing to undo (and its journal
    /// entry was dropped).
    static func reportStopped(
        _ stopped: PlaylistApply.Stopped, action: String, playlist id: String, plan: PlaylistEditPlan,
        wanted: [String], settings: WriteSettings, changedNothing: Bool = false, context: ToolContext
    ) throws -> ExitCode {
        let holds =
            """
            playlist \(id) holds \(countText(stopped.model.count)), after \(stopped.stepsDone) of \
            \(countText(plan.steps.count, noun: "request")) (this write leaves \(groupedThousands(plan.result.count)))
            """
        let finish: String
        if changedNothing {
            finish = "nothing was changed"
        } else if let rest = keptToFinish(wanted, playlist: id, context: context) {
            finish =
                """
                put it back with: spotify-playlists undo \(id); or finish with: spotify-playlists replace \(id)\
                \(finishOptions(settings, from: stopped.model, to: wanted)) < \(shellQuoted(rest))
                """
        } else {
            finish = "put it back with: spotify-playlists undo \(id)"
        }
        let report = StoppedWrite(landed: holds, finish: finish)
        switch stopped.cause {
        case .signal(let number): return report.interrupted(by: number, context)
        case .failed(let error): throw report.failed(error)
        case .changedMeanwhile(let count):
            throw ToolError.tempFail(
                """
                playlist \(id) changed meanwhile (someone else edited it): it holds \(countText(count)), not what \
                this write leaves; \(stopped.stepsDone) of \(countText(plan.steps.count, noun: "request")) were sent; \
                check it with spotify-tracks \(id); undo with: spotify-playlists undo --force \(id)
                """
            )
        }
    }

    /// The options of the `replace` that finishes a stopped write, so it runs as printed: the
    /// write's own, and --max-moves as many as the rest takes when that is past the default
    /// (` --max-moves 839`; empty when none is needed).
    static func finishOptions(_ settings: WriteSettings, from model: [String?], to wanted: [String]) -> String {
        var options: [String] = []
        if settings.resetDates { options.append("--reset-dates") }
        if settings.dropUnavailable { options.append("--drop-unavailable") }
        if !settings.resetDates {
            let moves = max(settings.maxMoves, PlaylistEditPlan(from: model, to: wanted).moveRequests)
            if moves > defaultMaxMoves { options.append("--max-moves \(moves)") }
        }
        return options.map { " " + $0 }.joined()
    }

    /// The file of `unfinishedFile`, or nil (said on stderr) when it cannot be written: a full disk
    /// must not hide what landed and the undo that puts it back.
    static func keptToFinish(_ uris: [String], playlist id: String, context: ToolContext) -> String? {
        do {
            return try unfinishedFile(uris, playlist: id, context: context)
        } catch {
            context.warn("the items to finish with could not be kept: \((error as? ToolError)?.message ?? "\(error)")")
            return nil
        }
    }

    /// Keeps the wanted items in a file under the state directory, for the command that finishes the job.
    static func unfinishedFile(_ uris: [String], playlist id: String, context: ToolContext) throws -> String {
        let directory = PrivateDirectory(context.environment.stateDirectory + "/unfinished")
        try directory.create()
        let name = "\(id)-\(Int(context.now)).txt"
        try directory.write(Data(uris.map { $0 + "\n" }.joined().utf8), to: name)
        return directory.file(name)
    }

    /// "3,000 → 2,950 items: 50 removed, 12 moved, dates kept for 2,950; 3 requests".
    static func planSummary(_ plan: PlaylistEditPlan, resetDates: Bool) -> String {
        let sizes = "\(groupedThousands(plan.entriesBefore)) → \(countText(plan.result.count))"
        let requests = countText(plan.steps.count, noun: "request")
        if resetDates {
            return
                "\(sizes), written afresh: every item's date added becomes now (--reset-dates); \(requests)"
        }
        guard !plan.isEmpty else { return "\(sizes): nothing to change" }
        var parts: [String] = []
        if plan.removedEntries > 0 { parts.append("\(groupedThousands(plan.removedEntries)) removed") }
        if plan.newEntries > 0 { parts.append("\(groupedThousands(plan.newEntries)) added") }
        if plan.readdedEntries > 0 {
            parts.append("\(groupedThousands(plan.readdedEntries)) re-added once with today's date")
        }
        if plan.movedEntries > 0 { parts.append("\(groupedThousands(plan.movedEntries)) moved") }
        parts.append("dates kept for \(groupedThousands(plan.keptEntries))")
        var text = "\(sizes): \(parts.joined(separator: ", ")); \(requests)"
        if plan.pinnedEntries > 0 {
            text +=
                """
                ; \(groupedThousands(plan.pinnedEntries)) local or unavailable \
                \(plan.pinnedEntries == 1 ? "entry stays" : "entries stay") where \
                \(plan.pinnedEntries == 1 ? "it is" : "they are") (the Web API cannot remove or add them)
                """
        }
        return text
    }

    static func changeRecord(_ step: PlaylistEditPlan.Step, playlist: String) -> ChangeRecord {
        switch step {
        case .remove(let uris): ChangeRecord(.remove, playlist: playlist, .items(uris))
        case .insert(let uris, let position): ChangeRecord(.add, playlist: playlist, .positioned(position, uris))
        case .replace(let uris): ChangeRecord(.replace, playlist: playlist, .items(uris))
        case .move(let start, let insertBefore, let length):
            ChangeRecord(.move, playlist: playlist, .move(start: start, insertBefore: insertBefore, length: length))
        }
    }

    /// "gained 3 items and lost 1": a multiset difference, for an undo refused.
    static func changeText(from before: [String?], to after: [String?]) -> String {
        var counts: [String: Int] = [:]
        for uri in before { counts[uri ?? "", default: 0] += 1 }
        for uri in after { counts[uri ?? "", default: 0] -= 1 }
        let lost = counts.values.filter { $0 > 0 }.reduce(0, +)
        let gained = counts.values.filter { $0 < 0 }.reduce(0) { $0 - $1 }
        if lost == 0 && gained == 0 { return "its items were reordered" }
        return "it gained \(countText(gained)) and lost \(countText(lost)) (now \(countText(after.count)))"
    }

    static func pastTense(_ action: String) -> String {
        switch action {
        case "dedupe": "deduped"
        case "sort": "sorted"
        case "rewrite": "rewrote"
        case "undo": "undid the last write to"
        case "remove": "removed items from"
        default: "replaced the items of"
        }
    }
}
