import ToolkitCLI
import ToolkitCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `songcount`: how many songs fill a time window, or how many songs a listening log got through.
package enum Songcount {
    package static let spec = CommandSpec(
        name: "songcount",
        abstract: "count time in songs: how many fill a window, or how many a log got through",
        discussion: [
            """
            songcount answers in songs: how many songs of a playlist fill the time you have (spotify-tracks Morning | \
            songcount --target 15m: "4.5 songs"), which songs fill it (--select) or come closest to it \
            (--best-fit), to make a playlist of them, and how many songs you got through while listening \
            (spotify-nowplaying --watch --for 15m | songcount). It reads records that carry duration_ms (track \
            records, now-playing records) from standard input, or from each FILE in turn.
            """,
            """
            With --target (fit mode) it takes the tracks in order until their total reaches the target: track_count \
            is how many that took, songs is the target divided by their average duration. If the input runs out \
            first, it says so and reports short_by_ms. --select passes those tracks through instead (a table on a \
            terminal); --best-fit reads them all and passes through the ones, in input order, whose total comes \
            closest to the target, with a summary on stderr: "12 songs, 15:00.4, 0.4 s over" (or under, or \
            exactly). The total is within 1 s of the target whenever the songs allow it; when they fall short, \
            every song is taken.
            """,
            """
            Without --target (count mode) it counts the songs the input got through. A song heard twice in a row is \
            one play; a song that comes back later, or starts again, is played again. From a listening log \
            (spotify-nowplaying --watch) the first and last songs count as the part of them that was heard. Paused \
            time counts for nothing. When nothing was heard there is no record: a note on stderr and exit status 1. \
            Ctrl-C at the end of a listening pipeline (spotify-nowplaying --watch | songcount | routine-link log \
            morning) still gives the count of what was heard.
            """,
            """
            Labels round to the nearest half song: below 0.5 is "less than 1 song", then "1 song", "4 songs", \
            "4.5 songs". Records without a usable duration_ms, and records that are not songs (episodes, ads, other \
            objects), are skipped in both modes and counted on stderr. played and now_playing records count by \
            their song's duration_ms; a play imported from Spotify's download (spotify-nowplaying history import) \
            has only ms_played, what was heard, and is skipped with a note: spotify-nowplaying history | \
            spotify-tracks | songcount looks the songs up first.
            """,
        ],
        notes: [
            """
            Fit mode stops reading as soon as the window is full. Count mode tells a song apart by its id, else its \
            uri, else its name, artists and duration together; consecutive records of the same song are one play, and \
            a song whose progress jumps back by more than half starts again. Records with progress_ms (now-playing \
            records) count the first song only from its first observed progress and the last song only up to its \
            furthest observed progress, as fractions of their durations; every song in between counts as one. \
            Observations with is_playing false add no listening time and no song on their own.
            """,
            """
            Ctrl-C reaches every stage of a listening pipeline: the watch answers it with its final record and \
            closes, so songcount, when its standard input is a pipe carrying now-playing records, reads on to the end \
            and reports, as tee -i does. Any other input (track records, fit mode, a terminal) stops at once.
            """,
            """
            --best-fit counts the songs by duration while it reads (memory that does not grow with their number), \
            picks the subsequence whose total is closest to the target (the smallest distance wins, then the fewest \
            songs, then the earliest songs), then reads the input again for the chosen songs: a named file from \
            where it is, a pipe or standard input from a copy in TMPDIR. Up to 20,000 songs and while songs times \
            target stays small it is exact; beyond that the longest songs that fit are taken and the last gap \
            closed by trading one of them for two others, which lands within a second of any target the songs \
            reach (1000 hours of 100,000 songs included). When the songs together fall short, every one is taken \
            and stderr says so.
            """,
        ],
        arguments: [
            ArgumentSpec(
                "FILE", help: "Read records from FILE; '-' or no FILE reads standard input.", optional: true,
                repeatable: true, completion: .file)
        ],
        options: [Options.target, Options.select, Options.bestFit, Options.label, Options.json],
        input: [
            """
            One JSON object per line (UTF-8; CRLF, a byte order mark and blank lines are accepted; lines up to 16 \
            MiB; arrays and objects nested at most 512 deep). duration_ms is read from the record itself (track \
            records, Spotify track objects, flattened now-playing records) or from the track it holds under item, or \
            legacy track (playlist entries, now-playing records). id, uri and progress_ms are read where present. \
            Unknown fields are ignored.
            """
        ],
        output: [
            """
            On a terminal, one line for people, e.g. "4.5 songs (5 tracks, 16:40, fill 15:00)". Piped, or with \
            --json, one song_count record: \
            {"type":"song_count","target_ms":900000,"track_count":5,"total_duration_ms":1000000,\
            "songs":4.5,"label":"4.5 songs"}. When the input runs out before the target, fit mode says what it \
            holds (songs is then its track count, "4 songs, 1:14:55 short of 1:30:00" on a terminal) and adds \
            short_by_ms; with no song at all it prints nothing and exits 1 (an empty pipe is a pipeline gone wrong, \
            not an answer). Count mode has \
            listened_ms (the time the counted songs represent) and no target_ms. songs has two decimals, or more \
            where two would read differently from the label (0.4951 is written 0.49: "less than 1 song").
            """
        ],
        environment: [
            EnvironmentSpec.forcedTerminal()
        ],
        exitCodes: [
            ExitCodeSpec(
                .notFound,
                """
                no song on the input: count mode heard nothing (no input, or only paused or skipped records); fit, \
                --select and --best-fit had nothing to fill the target with
                """
            ),
            ExitCodeSpec(.usage, "usage error, including a DURATION that is not one of the accepted forms"),
            ExitCodeSpec(
                .dataError,
                """
                a line that is not a JSON object, longer than 16 MiB, or nested deeper than 512 levels; the message \
                names the line
                """
            ),
            ExitCodeSpec(.noInput, "a FILE does not exist or cannot be read"),
        ],
        examples: [
            ExampleSpec(
                "spotify-tracks 3cEYpjA9oz9GiPac4AsH4n | songcount --target 15m",
                "How many songs of a playlist fill fifteen minutes."),
            ExampleSpec(
                "spotify-tracks 3cEYpjA9oz9GiPac4AsH4n | songcount --target 25:00 --select | jq -r .name",
                "The tracks that fill a 25-minute routine."),
            ExampleSpec(
                "spotify-tracks --liked | songcount --target 15m --best-fit > morning.jsonl",
                "The liked songs that come closest to fifteen minutes, in their order."),
            ExampleSpec(
                "spotify-nowplaying --watch --for 15m | songcount --label",
                "How many songs you got through in the last fifteen minutes."),
            ExampleSpec(
                "spotify-tracks Morning > morning.jsonl && songcount --target 1h30m morning.jsonl",
                "Keep a playlist in a file, then count it as often as you like, offline."),
        ],
        seeAlso: ["spotify-tracks", "spotify-nowplaying", "routine-link", "jq"]
    ).running(run)

    /// The command line, read and checked once.
    struct Options: CommandOptions {
        static let target = OptionSpec(
            "target", short: "t", value: "DURATION",
            help: "Fit mode: how many songs fill DURATION. Accepts \(acceptedDurationForms).")
        static let select = OptionSpec(
            "select", short: "s",
            help:
                """
                With --target: instead of the summary, pass through the input records that fill the window byte for \
                byte, except that CRLF line ends become LF (like head, measured in time).
                """
        )
        static let bestFit = OptionSpec(
            "best-fit", short: "b",
            help:
                """
                With --target: instead of the summary, pass through the songs (any of them, in input order) whose \
                total comes closest to the target; ties go to fewer songs, then earlier ones. A summary such as "12 \
                songs, 15:00.4, 0.4 s over" goes to stderr.
                """
        )
        static let label = OptionSpec(
            "label", short: "l", help: "Print only the label, e.g. \"4.5 songs\" (for prompts and notifications).")
        static let json = OptionSpec.json(
            help:
                """
                Write JSON Lines even on a terminal: the song_count record, or with --select and --best-fit the \
                chosen records as they came (a table otherwise).
                """
        )

        /// Fit mode's window in milliseconds; nil in count mode.
        var target: Int?
        var select: Bool
        var bestFit: Bool
        var labelOnly: Bool
        var json: Bool
        /// The files named, in order; `-` is standard input.
        var files: [String]

        /// The files to read in turn: standard input when none is named.
        var sources: [String] { files.isEmpty ? ["-"] : files }

        init(_ command: ParsedCommand) throws {
            target = try command.duration(Self.target).map(Songcount.checkedTarget)
            select = try command.flag(Self.select)
            bestFit = try command.flag(Self.bestFit)
            labelOnly = try command.flag(Self.label)
            json = try command.flag(Self.json)
            files = command.positionals
            if select && target == nil { throw ToolError.usage("--select needs --target") }
            if select && labelOnly { throw ToolError.usage("--select and --label cannot be used together") }
            if bestFit {
                if target == nil { throw ToolError.usage("--best-fit needs --target (the time to come closest to)") }
                if select {
                    throw ToolError.usage(
                        """
                        --best-fit and --select cannot be used together: --select takes the first songs, --best-fit \
                        the closest total
                        """
                    )
                }
                if labelOnly {
                    throw ToolError.usage(
                        "--best-fit prints the chosen songs, not a song_count record; it cannot be used with --label")
                }
            }
        }
    }

    static func run(_ options: Options, _ context: ToolContext) async throws -> ExitCode {
        let (target, select, labelOnly, sources) = (options.target, options.select, options.labelOnly, options.sources)
        if options.files.isEmpty && context.terminal.stdinIsTerminal {
            throw ToolError.usage(
                "reads records on standard input; pipe them in (spotify-tracks ID | songcount) or name a FILE")
        }

        let human = context.outputMode(forcedJSON: options.json) == .human
        var skipped = SkippedRecords()
        if options.bestFit, let target {
            var chosen = ChosenSongs(context: context, table: human)
            return try bestFit(target: target, sources: sources, context: context, skipped: &skipped, into: &chosen)
        }
        let report: Report
        // The chosen songs for people: a table on a terminal, not the records.
        var chosen = ChosenSongs(context: context, table: human)
        if let target {
            var fit = SongFit(targetMs: target)
            context.stdout.flushesEachRecord = select
            try readRecords(sources, stdin: context.stdin, identity: false, skipped: &skipped) { line, fields in
                guard fields.isSong else { return .notSong }
                guard let duration = fields.durationMs, duration > 0 else { return .skip }
                if select { try chosen.write(line) }
                return fit.add(durationMs: duration) ? .stop : .next
            }
            if select { try chosen.finish() }
            if fit.trackCount == 0 {
                for note in skipped.notes { context.warn(note) }
                // No answer rather than "less than 1 song": an empty input is a pipeline gone wrong.
                context.warn(
                    "no songs to fill \(formatClock(milliseconds: target)): the input has no song with a duration")
                return .notFound
            }
            let headlineSaysIt = !select && !labelOnly && human
            if let short = fit.shortByMs, !headlineSaysIt {
                context.warn(
                    """
                    input ran out \(formatClock(milliseconds: short)) short of \(formatClock(milliseconds: target)) \
                    (\(plural(fit.trackCount, "track")), \(formatClock(milliseconds: fit.totalDurationMs)))
                    """
                )
            }
            report = .fit(fit, targetMs: target)
        } else {
            report = .count(try countListened(sources, context: context, skipped: &skipped))
        }
        for note in skipped.notes { context.warn(note) }
        if case .count(let result) = report, result.trackCount == 0 {
            // No empty song_count record: `| routine-link log` must not log a session nobody heard.
            context.warn("nothing heard: the input has no song that was playing")
            return .notFound
        }
        if select { return .success }

        if labelOnly {
            try context.stdout.writeText(report.label + "\n")
        } else if human {
            try context.stdout.writeText(report.humanLine + "\n")
        } else {
            try context.stdout.write(report)
        }
        return .success
    }

    /// Without --target: the songs the records show were heard, counted (`SongCounter`).
    static func countListened(
        _ sources: [String], context: ToolContext, skipped: inout SkippedRecords
    ) throws -> SongCountResult {
        var counter = SongCounter()
        // A listening stream on a pipe (now-playing records) is read to its end through Ctrl-C:
        // the watch answers it with its final record. Anything else stops at once.
        let shield =
            sources == ["-"] ? ListeningShield.begin(readingFrom: context.stdin.fileDescriptor) : .none
        var released = false
        var listening = false
        defer { if !released { shield.finish() } }
        try readRecords(sources, stdin: context.stdin, identity: true, skipped: &skipped) { _, fields in
            if !released && !listening && fields.isSong {
                if fields.progressMs != nil || fields.isPlaying != nil {
                    listening = true
                } else {
                    released = true
                    shield.release()  // a list of tracks, not a listening stream: Ctrl-C stops it
                }
            }
            guard fields.isSong else { return .notSong }
            // A watch's "nothing playing" record: a state, not a malformed song.
            if fields.isPlaying == false && fields.durationMs == nil { return .next }
            guard let duration = fields.durationMs, duration > 0 else { return .skip }
            counter.add(
                SongObservation(
                    key: fields.songKey, durationMs: duration, progressMs: fields.progressMs,
                    isPlaying: fields.isPlaying ?? true))
            return .next
        }
        return counter.result
    }

    /// `--best-fit`: every song read once to choose (keeping a count by duration, not the songs),
    /// then read again to pass the chosen ones on in order: named regular files from where they
    /// are, anything else (a pipe, standard input) from a copy in TMPDIR, as it can be read once.
    static func bestFit(
        target: Int, sources: [String], context: ToolContext, skipped: inout SkippedRecords,
        into chosen: inout ChosenSongs
    ) throws -> ExitCode {
        let rereadable = sources.allSatisfy { $0 != "-" && FileStamp(path: $0)?.isRegular == true }
        let spool = rereadable ? nil : try LineSpool(directory: context.environment["TMPDIR"])
        var input = BestFit.Input()
        try readRecords(sources, stdin: context.stdin, identity: false, skipped: &skipped) { line, fields in
            guard fields.isSong else { return .notSong }
            guard let duration = fields.durationMs, duration > 0 else { return .skip }
            try spool?.append(line)
            input.add(duration)
            return .next
        }
        for note in skipped.notes { context.warn(note) }
        guard input.count > 0 else {
            context.warn("no songs to choose from: the input has no song with a duration")
            return .notFound
        }
        let stamps = rereadable ? sources.map { FileStamp(path: $0) } : []
        let pick = BestFit.choose(input, targetMs: target)
        if let short = pick.shortByMs {
            context.warn(
                """
                the songs run out \(formatClock(milliseconds: short)) short of \(formatClock(milliseconds: target)): \
                all \(plural(pick.songs, "song")) taken (\(formatClock(milliseconds: pick.totalMs)))
                """
            )
        }
        chosen.expected = pick.songs
        var filter = pick.filter
        var seen = 0
        var written = 0
        func pass(_ line: UnsafeRawBufferPointer, _ duration: Int) throws {
            seen += 1
            if filter.takes(duration) {
                written += 1
                try chosen.write(line)
            }
        }
        if let spool {
            try spool.forEachLine { line in
                let fields = try SongRecordFields.extract(from: line, identity: false)
                try pass(line, fields.durationMs ?? 0)
                return true
            }
        } else {
            // The files again: the same records, unless one changed in between (then say so).
            if sources.map({ FileStamp(path: $0) }) != stamps { throw changedWhileRead(sources) }
            var again = SkippedRecords()
            try readRecords(sources, stdin: context.stdin, identity: false, skipped: &again) { line, fields in
                guard fields.isSong else { return .notSong }
                guard let duration = fields.durationMs, duration > 0 else { return .skip }
                try pass(line, duration)
                return .next
            }
        }
        try chosen.finish()
        try context.stdout.flush()
        if seen != input.count || written != pick.songs { throw changedWhileRead(sources) }
        context.warn(pick.summary)
        return .success
    }

    static func changedWhileRead(_ sources: [String]) -> ToolError {
        ToolError.ioError(
            """
            \(sources.joined(separator: ", ")) changed while songcount read it: what it printed may not be the best \
            fit; run it again
            """
        )
    }

    /// What tells a file changed between two reads: its size and when it was last modified.
    struct FileStamp: Equatable {
        var isRegular: Bool
        var size: Int
        var modified: Int
        var modifiedNanoseconds: Int

        init?(path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            isRegular = (info.st_mode & S_IFMT) == S_IFREG
            size = Int(info.st_size)
            #if canImport(Darwin)
            modified = Int(info.st_mtimespec.tv_sec)
            modifiedNanoseconds = Int(info.st_mtimespec.tv_nsec)
            #else
            modified = Int(info.st_mtim.tv_sec)
            modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
            #endif
        }
    }

    /// The songs --select and --best-fit pass on: the records byte for byte, or on a terminal the
    /// track table spotify-tracks and local show draw (numbered from 1), with the total under it.
    struct ChosenSongs {
        let context: ToolContext
        /// Whether the songs are drawn as a table.
        let human: Bool
        var table: TrackTable?
        var count = 0
        /// How many songs the table numbers at most, for the width of its # column.
        var expected = 999

        init(context: ToolContext, table: Bool) {
            self.context = context
            human = table
        }

        mutating func write(_ line: UnsafeRawBufferPointer) throws {
            guard human else { return try context.stdout.writeLine(line) }
            guard let record = (try? JSONValue.parse(buffer: line))?.objectValue else { return }
            if table == nil { table = try TrackTable(context, total: expected, title: nil) }
            try table!.write(TrackRow(reading: record, position: count))
            count += 1
        }

        func finish() throws {
            try table?.finish()
        }
    }

    static func checkedTarget(_ milliseconds: Int) throws -> Int {
        guard milliseconds > 0 else { throw ToolError.usage("--target must be longer than zero") }
        return milliseconds
    }

    enum Step { case next, skip, notSong, stop }

    /// Streams every source in order, decoding each line's fields; stops when `body` says so.
    static func readRecords(
        _ sources: [String], stdin: StandardInput, identity: Bool, skipped: inout SkippedRecords,
        _ body: (UnsafeRawBufferPointer, SongRecordFields) throws -> Step
    ) throws {
        for source in sources {
            let isStdin = source == "-"
            let descriptor = isStdin ? stdin.fileDescriptor : try InputFile.openForReading(source)
            defer { if !isStdin { close(descriptor) } }
            let name: String? = sources == ["-"] ? nil : (isStdin ? "<stdin>" : source)
            var reader = JSONLinesReader(fileDescriptor: descriptor, displayName: name)
            var stopped = false
            try reader.forEachLine { lineNumber, line in
                let fields: SongRecordFields
                do {
                    fields = try SongRecordFields.extract(from: line, identity: identity)
                } catch let error as JSONParseError {
                    let place = name.map { "\($0): " } ?? ""
                    throw ToolError.dataError("\(place)line \(lineNumber): \(error.message)")
                }
                switch try body(line, fields) {
                case .next: return true
                case .skip:
                    if fields.isPlay && fields.progressMs == nil {
                        skipped.addPlay(line: lineNumber, source: name)
                    } else {
                        skipped.add(line: lineNumber, source: name)
                    }
                    return true
                case .notSong:
                    skipped.addNotSong(line: lineNumber, source: name)
                    return true
                case .stop:
                    stopped = true
                    return false
                }
            }
            if stopped { return }
        }
    }

    /// Records skipped: counted, and a few named, for a note on stderr per reason.
    struct SkippedRecords {
        struct Reason {
            var count = 0
            var places: [String] = []

            mutating func add(line: Int, source: String?) {
                count += 1
                if places.count < 5 { places.append(source.map { "\($0):\(line)" } ?? "line \(line)") }
            }

            func note(_ what: String, _ whatPlural: String) -> String? {
                guard count > 0 else { return nil }
                let what = count == 1 ? what : whatPlural
                let more = count > places.count ? ", ..." : ""
                return "skipped \(plural(count, "record")) \(what) (\(places.joined(separator: ", "))\(more))"
            }
        }

        var withoutDuration = Reason()
        var notSongs = Reason()
        /// played records without the song's duration (imported from Spotify's download).
        var playsWithoutDuration = Reason()

        mutating func add(line: Int, source: String?) { withoutDuration.add(line: line, source: source) }
        mutating func addPlay(line: Int, source: String?) { playsWithoutDuration.add(line: line, source: source) }
        mutating func addNotSong(line: Int, source: String?) { notSongs.add(line: line, source: source) }

        var notes: [String] {
            [
                notSongs.note(
                    "that is not a song (an episode, an ad, another object)",
                    "that are not songs (episodes, ads, other objects)"),
                withoutDuration.note("without a usable duration_ms", "without a usable duration_ms"),
                playsWithoutDuration.note(
                    "of a play without the song's duration_ms", "of plays without the song's duration_ms"
                ).map {
                    """
                    \($0): a play imported from Spotify's download keeps ms_played (what was heard), not the song's \
                    length; pipe such records through spotify-tracks first to count them
                    """
                },
            ].compactMap { $0 }
        }
    }

    /// What songcount prints: the song_count record, its label, or its line for people.
    enum Report: JSONRecord {
        case fit(SongFit, targetMs: Int)
        case count(SongCountResult)

        var songs: Double {
            switch self {
            case .fit(let fit, _): fit.songs
            case .count(let result): result.songs
            }
        }

        var label: String { songLabel(songs) }

        var json: JSONValue {
            switch self {
            case .fit(let fit, let target): SongCountRecord.fit(fit, targetMs: target)
            case .count(let result): SongCountRecord.count(result)
            }
        }

        var humanLine: String {
            switch self {
            case .fit(let fit, let target):
                let tracks = "\(plural(fit.trackCount, "track")), \(formatClock(milliseconds: fit.totalDurationMs))"
                if let short = fit.shortByMs {
                    // What the input holds, and what it lacks: "4 songs, 1:14:55 short of 1:30:00".
                    return
                        """
                        \(label), \(formatClock(milliseconds: short)) short of \(formatClock(milliseconds: target)) \
                        (\(tracks))
                        """
                }
                return "\(label) (\(tracks), fill \(formatClock(milliseconds: target)))"
            case .count(let result):
                return
                    """
                    You got through \(label) (\(plural(result.trackCount, "track")), \
                    \(formatClock(milliseconds: result.listenedMs)))
                    """
            }
        }
    }
}
