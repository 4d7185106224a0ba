import Foundation
import Testing

@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// `spotify-tracks --search`, in process against fake-spotify's search catalogue.
@Suite(.tags(.medium)) struct SpotifyTracksSearchCommandTests {
    func search(_ library: Library, _ arguments: [String], stdin: String? = nil) async throws -> ToolRun {
        try await library.tracks(["--search"] + arguments, stdin: stdin)
    }

    @Test func argumentsGiveTheirBestMatchInOrder() async throws {
        let library = try await Library()
        let result = try await search(
            library, ["The Beatles - Yesterday", "Beyonce - Deja Vu", "Queen - Bohemian Rhapsody (Remastered)"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        let found = try records(result)
        #expect(
            found.map { $0["name"]?.stringValue } == [
                "Yesterday - Remastered 2009", "Déjà Vu (feat. Jay-Z)", "Bohemian Rhapsody - Remastered 2011",
            ])
        #expect(found.map { $0["position"]?.intValue } == [1, 2, 3])
        #expect(
            found.map { $0["query"]?.stringValue } == [
                "The Beatles - Yesterday", "Beyonce - Deja Vu", "Queen - Bohemian Rhapsody (Remastered)",
            ])
        #expect(
            found.allSatisfy { $0["match_quality"]?.stringValue == "exact" && ($0["match"]?.doubleValue ?? 0) >= 0.95 },
            "\(result.stdout)")
        // The same record as spotify-tracks prints, then the search fields.
        let keys = try #require(found.first?.objectValue?.keys).map { $0 }
        #expect(
            keys == [
                "type", "id", "uri", "name", "duration_ms", "artists", "album", "explicit", "external_ids",
                "is_playable", "is_local", "added_at", "position", "playlist", "query", "match", "match_quality",
            ])
        #expect(found[0]["playlist"] == .null && found[0]["added_at"] == .null && found[0]["type"] == "track")
        let counters = try await library.counters()
        #expect(counters["requests"]?["GET /v1/search"]?.intValue == 3, "one filtered search each")
    }

    /// On a terminal the # column is the query's number, as the records' position is.
    @Test func theTableNumbersTheQueriesFromOne() async throws {
        let library = try await Library()
        let result = try await library.tracks(
            ["--search", "The Beatles - Yesterday", "Beyonce - Deja Vu"],
            environment: ["SPOTIFY_TOOLKIT_FORCE_TTY": "1", "COLUMNS": "100"])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = result.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(rows.first?.hasPrefix("#") == true, "\(result.stdout)")
        // The header, a row per query, then the total.
        #expect(rows.count == 4 && rows[1].hasPrefix("1 ") && rows[2].hasPrefix("2 "), "\(result.stdout)")
        #expect(rows.last == "2 items, 6:05", "\(result.stdout)")
    }

    @Test func stdinLinesAndJSONRows() async throws {
        let library = try await Library()
        let input = [
            "Leonard Cohen - Hallelujah",
            "",
            #"{"name":"Hallelujah","artists":[{"name":"Leonard Cohen"}],"duration_ms":440000}"#,
            #"{"name":"Señorita","artists":["Shawn Mendes","Camila Cabello"],"ms_played":1234}"#,
            "Jolene",
            "Simon & Garfunkel - Mrs. Robinson",
            "Daft Punk feat. Pharrell Williams - Get Lucky (Radio Edit)",
        ].joined(separator: "\n")
        let result = try await search(library, [], stdin: input)
        #expect(result.status == 0, "\(result.stderr)")
        let found = try records(result)
        #expect(
            found.map { $0["name"]?.stringValue } == [
                "Hallelujah", "Hallelujah - Live in London", "Señorita", "Jolene", "Mrs. Robinson",
                "Get Lucky (feat. Pharrell Williams & Nile Rodgers) - Radio Edit",
            ])
        #expect(found.map { $0["position"]?.intValue } == [1, 3, 4, 5, 6, 7], "line numbers")
        #expect(found[1]["query"]?.stringValue == "Leonard Cohen - Hallelujah")
        #expect(found[2]["query"]?.stringValue == "Shawn Mendes, Camila Cabello - Señorita")
    }

    @Test func candidatesGiveUpToNBestFirst() async throws {
        let library = try await Library()
        let result = try await search(library, ["--candidates", "3", "The Beatles - Yesterday", "Hallelujah"])
        #expect(result.status == 0, "\(result.stderr)")
        let found = try records(result)
        #expect(
            found.map { $0["name"]?.stringValue } == [
                "Yesterday - Remastered 2009", "Yesterday - Live",
                "Hallelujah", "Hallelujah", "Hallelujah - Live in London",
            ])
        #expect(found.map { $0["position"]?.intValue } == [1, 1, 2, 2, 2])
        let scores = found.compactMap { $0["match"]?.doubleValue }
        #expect(scores[0] >= scores[1] && scores[2] >= scores[3] && scores[3] >= scores[4])
    }

    /// A no-match note quotes at most 200 characters of its query.
    @Test func aHugeQueryWithoutAMatchIsAShortNote() async throws {
        let library = try await Library()
        let query = "Nobody - " + String(repeating: "x", count: 100_000)
        let result = try await search(library, [], stdin: query + "\n")
        #expect(result.status == 1)
        #expect(
            result.stderr.hasPrefix("spotify-tracks: line 1: no match for 'Nobody - xxx"),
            "\(result.stderr.prefix(100))")
        #expect(result.stderr.count < 300, "\(result.stderr.count) characters")
    }

    @Test func noMatchIsANoteNamingTheLineAndExitOne() async throws {
        let library = try await Library()
        let input = "Jolene\nNobody - Nothing Like This\nQueen - Rhapsody in Blue\nSabotage\n"
        let result = try await search(library, [], stdin: input)
        #expect(result.status == 1)
        #expect(try records(result).map { $0["name"]?.stringValue } == ["Jolene", "Sabotage"])
        #expect(
            result.stderr
                == "spotify-tracks: line 2: no match for 'Nobody - Nothing Like This'\nspotify-tracks: line 3: no match for 'Queen - Rhapsody in Blue'\n"
        )
        // A query whose filtered search finds nothing acceptable falls back to plain words.
        let counters = try await library.counters()
        #expect(counters["requests"]?["GET /v1/search"]?.intValue == 6)
    }

    @Test func manyQueriesRunConcurrentlyWithinTheLimitAndPrintInOrder() async throws {
        // 100 ms a request: long enough that the queries overlap at the fake even when the whole
        // suite loads the machine (at 40 ms one run in a loaded CI saw them one at a time).
        let library = try await Library(["--latency-ms", "100"])
        let titles = [
            "Jolene", "Sabotage", "Blinding Lights", "Naïve", "Psycho Killer", "Für Elise", "Mrs. Robinson", "Stay",
        ]
        let queries = (0..<48).map { titles[$0 % titles.count] }
        let result = try await search(library, [], stdin: queries.joined(separator: "\n"))
        #expect(result.status == 0, "\(result.stderr)")
        let found = try records(result)
        #expect(found.map { $0["position"]?.intValue } == Array(1...48))
        #expect(found.map { $0["query"]?.stringValue } == queries)
        let inFlight = try await library.counters()["max_in_flight"]?.intValue ?? 0
        #expect(inFlight > 1 && inFlight <= 8, "\(inFlight)")
        let fixed = try await Library(["--latency-ms", "20"])
        let one = try await search(fixed, ["--concurrency", "2"], stdin: queries.prefix(12).joined(separator: "\n"))
        #expect(one.status == 0)
        #expect((try await fixed.counters()["max_in_flight"]?.intValue ?? 0) <= 2)
    }

    @Test(arguments: [
        ("{\"artists\":[\"Queen\"]}\n", "line 2: a query record needs a name"),
        ("{not json\n", "line 2: not JSON"),
    ])
    func badLinesAreExit65NamingTheLine(bad: String, message: String) async throws {
        let library = try await Library()
        let result = try await search(library, [], stdin: "Jolene\n" + bad + "Sabotage\n")
        #expect(result.status == 65)
        #expect(result.stdout == "")
        #expect(result.stderr.contains("standard input: \(message)"), "\(result.stderr)")
        #expect(try await library.counters()["requests"]?["GET /v1/search"] == nil, "nothing asked")
    }

    @Test(arguments: [
        (["--search", "--liked"], "--search and --liked"),
        (["--search", "--raw", "x"], "--search and --raw"),
        (["--search", "--offline", "x"], "cannot be used with --offline"),
        (["--search", "--candidates", "11", "x"], "--candidates must be a whole number from 1 to 10"),
        (["--search", "--candidates", "0", "x"], "--candidates must be"),
        (["--candidates", "2", "x"], "--candidates needs --search"),
        (["--search", "  "], "query 1: an empty query"),
    ])
    func usageErrors(arguments: [String], message: String) async throws {
        let library = try await Library()
        let result = try await library.tracks(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
