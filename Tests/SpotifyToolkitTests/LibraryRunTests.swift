import Foundation
import Testing

@testable import FakeSpotify
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// spotify-tracks over many playlists in one run: one scheduler for all of them, and
/// output exactly what reading them one at a time prints.
@Suite(.tags(.medium)) struct LibraryRunTests {
    /// Playlists of every kind a library holds: empty, one item, a page and a bit, one the user
    /// does not own (403), a Spotify editorial one (404), mixed items (local files, episodes,
    /// null items), the fixture, a big one, and small ones after it.
    static let mixedRun = [
        generated(0), generated(1), generated(120), GeneratedLibrary.notOwnedID, generated(230, "mix"),
        "37i9dQZF1DXcBWIGoYBM5M", GeneratedLibrary.fixturePlaylistID, generated(1_000), generated(51),
        GeneratedLibrary.collaborativeID, generated(2),
    ]

    /// What running spotify-tracks once per playlist prints, concatenated, and the first failing status.
    static func oneAtATime(_ library: Library, _ ids: [String], _ options: [String] = []) async throws -> ToolRun {
        var combined = ToolRun(status: 0, stdout: "", stderr: "")
        for id in ids {
            let run = try await library.tracks(options + [id])
            combined.stdout += run.stdout
            combined.stderr += run.stderr
            if combined.status == 0 { combined.status = run.status }
        }
        return combined
    }

    @Test(arguments: [[String](), ["--raw"], ["--no-local", "--tracks-only"], ["--concurrency", "1"]])
    func aRunOfManyPlaylistsPrintsWhatOneAtATimePrints(options: [String]) async throws {
        let library = try await Library()
        let expected = try await Self.oneAtATime(library, Self.mixedRun, options)
        #expect(expected.status == 77, "the 403 comes first: \(expected.stderr)")
        #expect(expected.stderr.contains("not found (404"), "\(expected.stderr)")
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        let together = try await library.tracks(options + Self.mixedRun)
        #expect(together.stdout == expected.stdout)
        #expect(together.stderr == expected.stderr)
        #expect(together.status == expected.status)
        let counters = try await library.counters()
        #expect((counters["max_in_flight"]?.intValue ?? 99) <= (options.contains("1") ? 1 : 8), "one limit for all")
    }

    @Test func pipedRecordsAreReadTogetherAndPrintWhatArgumentsPrint() async throws {
        let library = try await Library(["--library-shape", "real"])
        let list = try await library.run("spotify-playlists", [])
        #expect(list.status == 0, "\(list.stderr)")
        let playlists = try records(list)
        #expect(playlists.count == 150)
        let ids = playlists.compactMap { $0["id"]?.stringValue }
        let total = playlists.reduce(0) { $0 + ($1["items_total"]?.intValue ?? 0) }

        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        let piped = try await library.tracks(["--no-cache"], stdin: list.stdout)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stderr == "")
        let items = try records(piped)
        #expect(items.count == total)
        // Playlist after playlist in input order, each in playlist order.
        var expectedOrder: [String] = []
        for playlist in playlists {
            let id = playlist["id"]?.stringValue ?? ""
            expectedOrder += (0..<(playlist["items_total"]?.intValue ?? 0)).map { "\(id)#\($0)" }
        }
        let order = items.map { "\($0["playlist"]?["id"]?.stringValue ?? "")#\($0["position"]?.intValue ?? -1)" }
        #expect(order == expectedOrder)
        let counters = try await library.counters()
        let objects = counters["requests"]?["GET /v1/playlists/{id}"]?.intValue ?? 0
        let pages = counters["requests"]?["GET /v1/playlists/{id}/items"]?.intValue ?? 0
        // One playlist object each (the first 100 entries with it), then the pages after those,
        // and for each playlist past 100 a snapshot check after its pages.
        let expectedPages = playlists.reduce(0) { $0 + max(0, (($1["items_total"]?.intValue ?? 0) - 100 + 49) / 50) }
        let checks = playlists.count { ($0["items_total"]?.intValue ?? 0) > 100 }
        #expect(objects == 150 + checks)
        #expect(pages == expectedPages)
        #expect((counters["max_in_flight"]?.intValue ?? 0) > 1, "fake-spotify answers playlists concurrently")
        #expect((counters["max_in_flight"]?.intValue ?? 99) <= 8)

        let byArguments = try await library.tracks(["--no-cache"] + ids)
        #expect(byArguments.stdout == piped.stdout)
    }

    /// The README's pipeline with a filter that matched nothing: a note and status 1, not an
    /// empty answer that songcount turns into "less than 1 song".
    @Test func anEmptyStandardInputIsNothingRead() async throws {
        let library = try await Library()
        for (tool, arguments) in [("spotify-tracks", [String]()), ("spotify-playlists", ["get"])] {
            for input in ["", "\n"] {
                let run = try await library.run(tool, arguments, stdin: input)
                #expect(run.status == 1, "\(tool) \(input.debugDescription)")
                #expect(run.stdout == "")
                #expect(run.stderr.contains("no playlist on standard input: nothing was read"), "\(run.stderr)")
            }
        }
        let requests = try await library.counters()["requests"]?.objectValue ?? [:]
        #expect(!requests.keys.contains { $0.contains("/v1/playlists") }, "no request")
    }

    @Test func theListOfPlaylistsFetchesItsLaterPagesTogether() async throws {
        let library = try await Library(["--extra-playlists", "600", "--latency-ms", "5"])
        let one = try await library.run("spotify-playlists", ["--concurrency", "1"])
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        let list = try await library.run("spotify-playlists", [])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout == one.stdout)
        #expect(list.stdoutLines.count > 600)
        let counters = try await library.counters()
        #expect(counters["requests"]?["GET /v1/me/playlists"]?.intValue == (list.stdoutLines.count + 49) / 50)
        let most = counters["max_in_flight"]?.intValue ?? 0
        #expect(most > 1 && most <= 8, "\(most) in flight")
    }

    @Test func aPipedReRunCostsNoRequestAndOneForEachRefusedPlaylist() async throws {
        let library = try await Library(["--extra-playlists", "30"])
        let cache = ["SPOTIFY_TOOLKIT_CACHE_SIZE": "64M"]
        let list = try await library.run("spotify-playlists", [])
        // And a playlist the user follows but does not own: its record has items_total null.
        let notOwned = try await library.run("spotify-playlists", ["get", GeneratedLibrary.notOwnedID])
        #expect(try records(notOwned).first?["items_total"] == .null)
        let input = list.stdout + notOwned.stdout

        let uncached = try await library.tracks(["--no-cache"], stdin: input)
        let first = try await library.tracks([], stdin: input, environment: cache)
        #expect(first.stdout == uncached.stdout)
        #expect(first.stderr == uncached.stderr)
        #expect(first.status == uncached.status)
        let refused = first.stderr.split(separator: "\n").filter { $0.contains("(404: ") || $0.contains("(403: ") }
            .count
        #expect(refused == 2, "the editorial playlist (404) and the one not owned (403): \(first.stderr)")
        _ = try await library.fake.call("POST", "/_fake/reset-counters")

        let again = try await library.tracks([], stdin: input, environment: cache)
        #expect(again.stdout == first.stdout)
        #expect(again.stderr == first.stderr)
        #expect(again.status == first.status)
        let requests = try await library.counters()["requests"]?.objectValue ?? [:]
        let webAPI = requests.filter { $0.key.contains(" /v1/") }.reduce(0) { $0 + ($1.value.intValue ?? 0) }
        #expect(webAPI == refused, "one request for each refused playlist, none for the others: \(requests)")
    }

    @Test func aStaleItemsTotalInARecordChangesNothingInTheOutput() async throws {
        let library = try await Library()
        let id = generated(260)
        let bare = try await library.tracks(["--no-cache", id])
        for stale in [0, 1, 99, 100, 150, 400, 10_000] {
            let record = #"{"type":"playlist","id":"\#(id)","items_total":\#(stale),"snapshot_id":"old"}"#
            let piped = try await library.tracks(["--no-cache"], stdin: record + "\n")
            #expect(piped.status == 0, "\(stale): \(piped.stderr)")
            #expect(piped.stderr == "", "\(stale): no note: the playlist did not change while it was read")
            #expect(piped.stdout == bare.stdout, "\(stale)")
        }
    }

    @Test func aPlaylistWithoutAnEmbeddedPageIsReadFromItsItemsPages() async throws {
        let library = try await Library()
        let id = generated(120)
        let bare = try await library.tracks(["--no-cache", id])
        let snapshot =
            try records(try await library.run("spotify-playlists", ["get", id])).first?["snapshot_id"]?
            .stringValue ?? ""
        // A playlist object without items (as Spotify answers for a playlist you do not own):
        // the items pages decide, and here they answer. Its real snapshot_id: the check after the
        // pages must find no edit.
        _ = try await library.fake.call(
            "POST", "/_fake/fail",
            form: [
                ("path", "/v1/playlists/\(id)"), ("status", "200"),
                ("body", #"{"id":"\#(id)","name":"Generated 120","snapshot_id":"\#(snapshot)"}"#),
            ])
        let fallback = try await library.tracks(["--no-cache", id])
        #expect(fallback.status == 0, "\(fallback.stderr)")
        #expect(fallback.stdout == bare.stdout)
    }

    @Test func anEmbeddedPageOfFiftyIsFilledInFromTheItemsPages() async throws {
        let library = try await Library()
        let id = generated(230)
        let bare = try await library.tracks(["--no-cache", id])
        let snapshot =
            try records(try await library.run("spotify-playlists", ["get", id])).first?["snapshot_id"]?
            .stringValue ?? ""
        let entries = try records(try await library.tracks(["--no-cache", "--raw", id])).prefix(50)
        let page =
            #"{"limit":50,"offset":0,"total":230,"items":[\#(entries.map { $0.serialized() }.joined(separator: ","))]}"#
        for record in ["", #"{"type":"playlist","id":"\#(id)","items_total":230,"snapshot_id":"\#(snapshot)"}"#] {
            _ = try await library.fake.call(
                "POST", "/_fake/fail",
                form: [
                    ("path", "/v1/playlists/\(id)"), ("status", "200"),
                    ("body", #"{"id":"\#(id)","name":"Generated 230","snapshot_id":"\#(snapshot)","items":\#(page)}"#),
                ])
            let filled = try await library.tracks(["--no-cache"] + (record.isEmpty ? [id] : []), stdin: record)
            #expect(filled.status == 0, "\(filled.stderr)")
            #expect(filled.stdout == bare.stdout, "record: \(!record.isEmpty)")
        }
    }

    /// Records whose items_total is stale (saved earlier): pages are asked for before the
    /// playlist object answers, and what happens to them must not hold up the playlists after.
    @Test(arguments: [GeneratedLibrary.notOwnedID, "37i9dQZF1DXcBWIGoYBM5M"])
    func aRefusedPlaylistWithAStaleTotalDoesNotStopTheOthers(refused: String) async throws {
        let library = try await Library()
        let ids = [generated(120), refused, generated(51)]
        let expected = try await Self.oneAtATime(library, ids, ["--no-cache"])
        let input = ids.map { #"{"type":"playlist","id":"\#($0)","items_total":500,"snapshot_id":"old"}"# + "\n" }
        for _ in 0..<3 {
            let run = try await library.tracks(["--no-cache"], stdin: input.joined())
            #expect(run.stdout == expected.stdout)
            #expect(run.stderr == expected.stderr)
            #expect(run.status == expected.status)
        }
    }

    @Test func aShortPageIsRetriedEvenWhenTheRecordsTotalWasStale() async throws {
        let library = try await Library()
        let id = generated(150)
        let expected = try await library.tracks(["--no-cache", id])
        // The first items page answered (at offset 100, planned from the record) comes back short
        // but consistent with itself: it must be checked against its own total and fetched again.
        _ = try await library.fake.call(
            "POST", "/_fake/fail",
            form: [("path", "/v1/playlists/\(id)/items"), ("status", "200"), ("body", #"{"items":[],"total":150}"#)])
        let record = #"{"type":"playlist","id":"\#(id)","items_total":200,"snapshot_id":"old"}"#
        let run = try await library.tracks(["--no-cache", "--concurrency", "1"], stdin: record + "\n")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == expected.stdout)
    }

    @Test func anUntrustedCacheFileOfALaterPlaylistFailsInItsTurn() async throws {
        let library = try await Library()
        let cache = ["SPOTIFY_TOOLKIT_CACHE_SIZE": "64M"]
        let (first, second) = (generated(1_000), generated(51))
        let expected = try await library.tracks([first], environment: cache)
        _ = try await library.tracks([second], environment: cache)
        let entry = library.fake.home.url.appendingPathComponent("cache/spotify-toolkit/playlists/\(second).jsonl").path
        try FileManager.default.removeItem(atPath: entry)
        try FileManager.default.createDirectory(atPath: entry, withIntermediateDirectories: false)
        let run = try await library.tracks([first, second], environment: cache)
        #expect(run.stdout == expected.stdout, "the first playlist prints whole before the failure")
        #expect(run.status != 0, "\(run.stderr)")
    }

    static let faults: [(String, [(String, String)])] = [
        ("429 with Retry-After", [("kind", "rate_limit"), ("every", "7"), ("retry_after", "0")]),
        ("5xx", [("kind", "server_error"), ("every", "6"), ("status", "502")]),
        ("connection reset", [("kind", "reset"), ("every", "6")]),
        ("truncated body", [("kind", "truncate"), ("every", "6")]),
        ("unparsable body", [("kind", "garbage"), ("every", "6")]),
    ]

    @Test(arguments: faults)
    func faultsAcrossARunLeaveTheOutputOfACleanRun(name: String, fault: [(String, String)]) async throws {
        let library = try await Library()
        // Without the refused playlists: a fault may garble the body of a 403 itself, whose words
        // the message quotes.
        let ids = Self.mixedRun.filter { $0 != GeneratedLibrary.notOwnedID && !$0.hasPrefix("37i9") }
        let clean = try await library.tracks(ids)
        #expect(clean.status == 0, "\(clean.stderr)")
        try await library.fault(fault)
        let faulty = try await library.tracks(ids)
        #expect(faulty.stdout == clean.stdout, "\(name)")
        #expect(faulty.stderr == clean.stderr, "\(name)")
        #expect(faulty.status == clean.status, "\(name)")
        #expect((try await library.counters()["faults_fired"]?.intValue ?? 0) >= 2, "\(name) happened")
    }

    @Test func aFailureInALaterPlaylistComesAfterWhatTheEarlierOnesPrint() async throws {
        let library = try await Library()
        let (early, failing) = (generated(1_000), generated(40))
        let expected = try await library.tracks([early])
        // Every request for the small playlist fails for good; the big one before it still prints whole.
        for path in ["/v1/playlists/\(failing)", "/v1/playlists/\(failing)/items"] {
            _ = try await library.fake.call(
                "POST", "/_fake/fail", form: [("path", path), ("status", "503"), ("count", "50")])
        }
        let run = try await library.tracks([early, failing, generated(3)])
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.stdout == expected.stdout, "the earlier playlist whole, nothing after the failure")
        #expect(run.stderr.contains("on GET /playlists/\(failing)"), "\(run.stderr)")
    }

    @Test func progressCountsTheWholeRun() async throws {
        let library = try await Library()
        let ids = [generated(120), generated(300), generated(80)]
        let run = try await library.fake.run(
            "spotify-tracks", ["--no-cache"] + ids,
            terminal: Terminal(stdinIsTerminal: false, stdoutIsTerminal: false, stderrIsTerminal: true))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("/500 items, 3/3 playlists"), "\(run.stderr.debugDescription)")
        #expect(run.stderr.hasSuffix("\r\u{1B}[K"), "cleared at the end")
    }
}
