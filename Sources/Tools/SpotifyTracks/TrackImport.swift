import SpotifyClient
import ToolkitCLI
import ToolkitCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `spotify-tracks --from FORMAT FILE...`: the tracks of playlist files (M3U, XSPF, JSPF, CSV with
/// Exportify's columns) as track records, in file order.
extension SpotifyTracks {
    static let fromOption = OptionSpec(
        "from", value: "FORMAT",
        help:
            """
            Read the tracks of playlist files, each FILE argument (- for standard input): csv (Exportify's \
            columns), m3u, xspf or jspf. Given a file name instead of a format, every FILE's format is taken from its \
            extension (or, for -, from what it holds).
            """,
        // Suggestions, not choices: a file name is taken in a format's place.
        completion: .suggestions(PlaylistFileFormat.allCases.map(\.rawValue)))

    /// `--from` and its FILE arguments, read and checked.
    struct ImportOptions: Sendable {
        /// The format every file is read as; nil: each by its extension (or content).
        var format: PlaylistFileFormat?
        var files: [String]

        init(_ command: ParsedCommand, value: String) throws {
            for option in [Option.liked, Option.raw, SearchOption.search] where try command.flag(option) {
                throw ToolError.usage("--from and --\(option.long) cannot be used together")
            }
            if try command.value(SearchOption.candidates) != nil {
                throw ToolError.usage("--candidates goes with --search, not --from")
            }
            for option in [PlaylistCacheOptions.noCacheOption, PlaylistCacheOptions.offlineOption]
            where try command.flag(option) {
                throw ToolError.usage("--from reads files; it cannot be used with --\(option.long)")
            }
            if let format = PlaylistFileFormat(rawValue: value.lowercased()) {
                self.format = format
                files = command.positionals
            } else {
                // A file name in the option's place: the format of each comes from its extension.
                format = nil
                files = [value] + command.positionals
            }
            guard !files.isEmpty else {
                throw ToolError.usage("--from \(value) needs a FILE to read (- for standard input)")
            }
            if format == nil, let unknown = files.first(where: { $0 != "-" && PlaylistFileFormat(fileName: $0) == nil })
            {
                throw ToolError.usage(
                    """
                    --from: cannot tell the format of '\(unknown.prefix(80))' by its name; say it: --from csv, m3u, \
                    xspf or jspf
                    """
                )
            }
        }
    }

    /// One track of the files, ready to be looked up.
    struct ImportItem: Sendable {
        var file: String
        var track: ImportedTrack
        /// Its place in the output, counting from 0 across the files.
        var position: Int
    }

    /// What a lookup found: the track object and how it was found (nil: no search, so no match fields).
    struct ImportFound: Sendable {
        var object: JSONValue
        var match: (query: String, score: Double, word: String)?
    }

    /// A lookup's answer: what was found (nil: nothing), or the query Spotify refused.
    typealias ImportLookup = Result<ImportFound?, SearchRefused>

    static func runImport(_ options: ImportOptions, _ run: Options, _ context: ToolContext) async throws -> ExitCode {
        let (items, rowCount, badRows) = try readImportRows(options, context)
        let needsSpotify = items.contains { !$0.track.isComplete && $0.track.localURI == nil }
        let api = needsSpotify ? try context.webAPI() : nil
        let human = run.human(context)
        let export = run.export(context)
        var output = Output(context: context, selection: run.selection, human: human, playlist: nil, export: export)
        if human { try output.startTable(total: rowCount, title: nil) }
        let limit = api?.inFlightLimit(concurrency: run.concurrency)
        var status = ExitCode.success
        try await withThrowingTaskGroup(of: (Int, ImportLookup).self) { group in
            var launched = 0
            var written = 0
            var arrived: [Int: ImportLookup] = [:]
            func launch() {
                while launched < items.count && launched - written < searchLookAhead {
                    let index = launched
                    let track = items[index].track
                    launched += 1
                    guard let api, let limit, !track.isComplete, track.localURI == nil else {
                        arrived[index] = .success(ImportFound(object: track.spotifyObject))
                        continue
                    }
                    group.addTask {
                        // A row the file does not say enough about: read by its id, found by its ISRC
                        // (the release that plays in the user's country first), or searched for by title
                        // and artists as --search does.
                        let slot = limit.slot(order: index)
                        do {
                            if let reference = track.reference {
                                return (index, .success(try await read(reference, api: api)))
                            }
                            if let isrc = track.isrc, let found = try await api.isrcMatch(isrc, slot: slot) {
                                let match = ("isrc:\(isrc)", 1.0, "exact")
                                return (index, .success(ImportFound(object: found, match: match)))
                            }
                            guard let query = track.query,
                                let (found, score) = try await api.bestMatches(for: query, limit: 1, slot: slot).first
                            else { return (index, .success(nil)) }
                            let match = (query.text, score.rounded, score.word)
                            return (index, .success(ImportFound(object: found, match: match)))
                        } catch let refused as SearchRefused {
                            return (index, .failure(refused))
                        }
                    }
                }
            }
            func drain() throws {
                while let answer = arrived.removeValue(forKey: written) {
                    let item = items[written]
                    written += 1
                    guard let record = importedRecord(item, answer) else {
                        try context.stdout.flush()
                        context.warn(noMatch(item, answer))
                        status = .notFound
                        continue
                    }
                    try output.writeRow(TrackRow(record, position: item.position))
                }
            }
            launch()
            try drain()
            while written < items.count, let (index, found) = try await group.next() {
                arrived[index] = found
                try drain()
                try context.stdout.endBatch()
                launch()
                try drain()
            }
        }
        try output.finish()
        try export?.finish()
        if badRows > 0 {
            context.warn(
                "\(badRows) \(badRows == 1 ? "row" : "rows") could not be read (see above); the others printed")
            return .dataError
        }
        return status
    }

    /// Every file's rows, in order: the tracks read, how many rows there were (a record's position
    /// is its row's, every row of every file counted, read or not), and how many could not be read
    /// (each said on stderr).
    static func readImportRows(_ options: ImportOptions, _ context: ToolContext) throws
        -> (items: [ImportItem], rows: Int, badRows: Int)
    {
        var items: [ImportItem] = []
        var badRows = 0
        var rowNumber = 0
        var stdinRead = false
        for file in options.files {
            let name = file == "-" ? StandardInput.displayName : file
            let bytes: [UInt8]
            if file == "-" {
                guard !stdinRead else { throw ToolError.usage("--from reads standard input (-) only once") }
                stdinRead = true
                bytes = ChildProcess.readAll(context.stdin.fileDescriptor)
            } else {
                bytes = try readFile(file)
            }
            let format = options.format ?? PlaylistFileFormat(fileName: file) ?? PlaylistFileFormat(sniffing: bytes)
            for row in PlaylistFileReader.read(bytes, format: format) {
                defer { rowNumber += 1 }
                switch row {
                case .success(let track):
                    items.append(ImportItem(file: name, track: track, position: rowNumber))
                case .failure(let problem):
                    context.warn("\(name): \(problem.place): \(problem.reason)")
                    badRows += 1
                }
            }
        }
        return (items, rowNumber, badRows)
    }

    /// The note for a row nothing was found for.
    static func noMatch(_ item: ImportItem, _ answer: ImportLookup) -> String {
        var why = ""
        if case .failure(let refused) = answer {
            why = " (Spotify refused the query: \(refused.status) \(refused.message))"
        }
        return "\(item.file): \(item.track.place): no match for \(describe(item.track))\(why)"
    }

    /// The record of a row and what its lookup found, with the row's context fields; nil when
    /// nothing was found.
    static func importedRecord(_ item: ImportItem, _ answer: ImportLookup) -> TrackRecord? {
        guard case .success(let found?) = answer, var record = TrackRecord(spotify: found.object) else { return nil }
        record.addedAt = .init(item.track.addedAt)
        record.position = item.position
        record.playlist = .null
        record.match = found.match.map { TrackRecord.Match(query: $0.query, score: $0.score, quality: $0.word) }
        return record
    }

    /// What a row is known by, for a note: its URI, ISRC or 'Artists - Title'.
    static func describe(_ track: ImportedTrack) -> String {
        if let reference = track.reference { return reference.uri }
        if let query = track.query {
            let text = query.text.count > 200 ? query.text.prefix(200) + "…" : query.text[...]
            return "'\(text)'" + (track.isrc.map { " (ISRC \($0))" } ?? "")
        }
        return track.isrc.map { "ISRC \($0)" } ?? "the row"
    }

    /// A track or an episode by its id (with the market, so it says whether it plays); nil when
    /// Spotify does not know it.
    static func read(_ reference: SpotifyReference, api: SpotifyWebAPI) async throws -> ImportFound? {
        let result = try await api.get(
            "/\(reference.kind.rawValue)s/\(reference.id)", query: [TrackRecord.market], passing: [400, 404])
        guard result.isSuccess, let object = try? JSONValue.parse(result.body) else { return nil }
        return ImportFound(object: object)
    }

    /// A file's bytes; a file that cannot be read is exit 66, naming it.
    static func readFile(_ path: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw ToolError.noInput("\(path.prefix(200)): \(reason)")
        }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR {
            throw ToolError.noInput("\(path.prefix(200)): is a directory")
        }
        return ChildProcess.readAll(descriptor)
    }
}
