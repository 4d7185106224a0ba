import SpotifyClient
import ToolkitCLI
import ToolkitCore

/// `spotify-tracks --search`: queries in, their best matching tracks out, in input order.
extension SpotifyTracks {
    enum SearchOption {
        static let search = OptionSpec(
            "search", short: "s",
            help:
                """
                Search Spotify for each QUERY argument (or, with none, each line of standard input: 'Artist - Title', \
                'Title', or a JSON record with name, artists and duration_ms) and print its best matching track, with \
                query and match fields.
                """
        )
        static let candidates = OptionSpec(
            "candidates", short: "n", value: "N",
            help: "With --search: print up to N matches per query (1 to 10), best first. Default: 1.")
    }

    static let searchDiscussion =
        """
        With --search, the arguments (or, with none, the lines of standard input) are search queries instead of \
        sources: 'Artist - Title', 'Title', or a JSON record with name, artists (a list of names or of {name} \
        objects) and optionally duration_ms, such as a row of another service's export passed through jq. Each query \
        prints its best match (case, accents, feat. parts and version suffixes do not get in the way), and their \
        records come out in input order. A query without a match is a note on stderr naming its line (spotify-tracks: \
        line 4: no match for 'Artist - Title'), the others still print, and the exit status is 1.
        """

    /// How --search finds and scores (the man page's HOW IT WORKS).
    static let searchNotes =
        """
        --search asks GET /search (type track, 10 results) for each query, with field filters, track:"TITLE" \
        artist:"ARTIST", when it names an artist, and with plain words when that finds nothing acceptable. The \
        results are scored against the query: case and accents are folded (e with an accent is a plain e), feat., ft. \
        and featuring parts and version suffixes (- Remastered 2011, (Remastered), - Live, (Radio Edit)) are left \
        out, the title counts 0.6 and the artists 0.4, a version the other side lacks (live, remix, acoustic) costs a \
        little, and a duration_ms in the query favours the track closest to it (more than 2 s off lowers the score, \
        42 s off by a fifth). A track is a match from a score of 0.65, with its title and artists each at least half \
        alike. Queries run concurrently under the same limit of requests in flight as paging (--concurrency).
        """

    /// Where a query came from, for notes: "line 4" (standard input) or "query 2" (arguments).
    struct SearchItem: Sendable {
        var place: String
        var position: Int
        var query: SearchQuery
    }

    /// How far ahead of the next record to print the queries may run.
    static let searchLookAhead = 4 * SpotifyWebAPI.concurrencyCeiling

    /// `--search`, `--candidates` and the QUERY arguments, read and checked.
    struct SearchOptions: Sendable {
        /// The most matches to print per query.
        var perQuery = 1
        /// The QUERY arguments, parsed; nil when the queries are the lines of standard input.
        var arguments: [SearchItem]?

        init(_ command: ParsedCommand) throws {
            for option in [Option.liked, Option.raw, Option.noLocal, Option.tracksOnly] where try command.flag(option) {
                throw ToolError.usage("--search and --\(option.long) cannot be used together")
            }
            for option in [PlaylistCacheOptions.noCacheOption, PlaylistCacheOptions.offlineOption]
            where try command.flag(option) {
                throw ToolError.usage("--search always asks Spotify; it cannot be used with --\(option.long)")
            }
            if let text = try command.value(SearchOption.candidates) {
                guard let value = Int(text), (1...10).contains(value) else {
                    throw ToolError.usage("--candidates must be a whole number from 1 to 10, not '\(text)'")
                }
                perQuery = value
            }
            guard !command.positionals.isEmpty else { return }
            arguments = try command.positionals.enumerated().map { index, text in
                do throws(SearchQuery.Invalid) {
                    return SearchItem(place: "query \(index + 1)", position: index + 1, query: try .parse(text))
                } catch {
                    throw ToolError.usage("query \(index + 1): \(error.reason)")
                }
            }
        }
    }

    /// The queries: the arguments, or the lines of standard input (a bad one is exit 65 naming it).
    static func searchItems(_ search: SearchOptions, _ context: ToolContext) throws -> [SearchItem] {
        if let arguments = search.arguments { return arguments }
        if context.terminal.stdinIsTerminal {
            throw ToolError.usage(
                "name a QUERY ('Artist - Title'), or pipe queries in, one per line: spotify-tracks --search < songs.txt"
            )
        }
        var items: [SearchItem] = []
        var reader = JSONLinesReader(
            fileDescriptor: context.stdin.fileDescriptor, displayName: StandardInput.displayName)
        try reader.forEachLine { number, bytes in
            let line = String(decoding: bytes, as: UTF8.self)
            guard line.contains(where: { !$0.isWhitespace }) else { return true }
            do throws(SearchQuery.Invalid) {
                items.append(SearchItem(place: "line \(number)", position: number, query: try .parse(line)))
            } catch {
                throw ToolError.dataError("\(StandardInput.displayName): line \(number): \(error.reason)")
            }
            return true
        }
        return items
    }

    static func runSearch(_ search: SearchOptions, _ options: Options, _ context: ToolContext) async throws
        -> ExitCode
    {
        let perQuery = search.perQuery
        let api = try context.webAPI()
        let items = try searchItems(search, context)
        let human = options.human(context)
        // --search takes none of --raw, --no-local and --tracks-only: the selection keeps every track.
        let export = options.export(context, title: "Search")
        var output = Output(context: context, selection: options.selection, human: human, playlist: nil, export: export)
        if human { try output.startTable(total: items.last?.position ?? 0, title: nil) }
        let limit = api.inFlightLimit(concurrency: options.concurrency)
        var status = ExitCode.success

        typealias Found = [(track: JSONValue, score: TrackMatch.Score)]
        // A query Spotify refuses is that query's "no match"; the others still print.
        try await withThrowingTaskGroup(of: (Int, Result<Found, SearchRefused>).self) { group in
            var launched = 0
            var written = 0
            var arrived: [Int: Result<Found, SearchRefused>] = [:]
            func launch() {
                while launched < items.count && launched - written < searchLookAhead {
                    let index = launched
                    let query = items[index].query
                    group.addTask {
                        let slot = limit.slot(order: index)
                        do {
                            return (index, .success(try await api.bestMatches(for: query, limit: perQuery, slot: slot)))
                        } catch let refused as SearchRefused {
                            return (index, .failure(refused))
                        }
                    }
                    launched += 1
                }
            }
            launch()
            while written < items.count, let (index, found) = try await group.next() {
                arrived[index] = found
                while let answer = arrived.removeValue(forKey: written) {
                    let item = items[written]
                    let found = (try? answer.get()) ?? []
                    if found.isEmpty {
                        try context.stdout.flush()  // the records before it go out before the note
                        // At most 200 characters of the query: a 3 MB line must not become a 3 MB note.
                        let shown =
                            item.query.text.count > 200 ? item.query.text.prefix(200) + "…" : item.query.text[...]
                        var why = ""
                        if case .failure(let refused) = answer {
                            why = " (Spotify refused the query: \(refused.status) \(refused.message))"
                        }
                        context.warn("\(item.place): no match for '\(shown)'\(why)")
                        status = .notFound
                    }
                    for (track, score) in found {
                        guard var record = TrackRecord(spotify: track) else { continue }
                        record.addedAt = .null
                        record.position = item.position
                        record.playlist = .null
                        record.match = TrackRecord.Match(
                            query: item.query.text, score: score.rounded, quality: score.word)
                        // The row counts from 0 and shows from 1; the query's number already counts from 1.
                        try output.writeRow(TrackRow(record, position: item.position - 1))
                    }
                    written += 1
                }
                try context.stdout.endBatch()
                launch()
            }
        }
        try output.finish()
        try export?.finish()
        return status
    }
}
