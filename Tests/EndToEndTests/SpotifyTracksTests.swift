import Foundation
import Testing
@testable import ToolkitCore
@testable import LoopbackHTTP
@testable import HTTPClient
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import Tools

/// A fake-spotify with a stored login, and the tools run against it.
struct Library {
    let fake: FakeSpotifyProcess
    let tokens: StoredTokens

    init(_ arguments: [String] = []) throws {
        fake = try FakeSpotifyProcess(arguments)
        tokens = try fake.seedLogin(expiresIn: 3600)
    }

    func run(_ tool: String, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> ToolResult {
        let result = try ToolProcess.run(tool, arguments, stdin: stdin, environment: fake.environment(environment), timeout: 120)
        #expect(!result.stdout.contains(tokens.accessToken) && !result.stderr.contains(tokens.accessToken), "no token in output")
        return result
    }

    func tracks(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> ToolResult {
        try run("spotify-tracks", arguments, stdin: stdin, environment: environment)
    }

    func fault(_ fields: [(String, String)]) throws {
        let answer = try fake.call("POST", "/_fake/faults", form: fields)
        #expect(answer["kind"] != nil, "\(answer)")
    }

    func counters() throws -> JSONValue { try fake.counters() }
}

func records(_ result: ToolResult) throws -> [JSONValue] {
    try result.stdoutLines.map { try JSONValue.parse($0) }
}

func generated(_ count: Int, _ prefix: String = "gen") -> String {
    let digits = String(count)
    return prefix + String(repeating: "0", count: 19 - digits.count) + digits
}

@Suite struct SpotifyTracksEndToEndTests {
    @Test(arguments: [0, 1, 50, 51, 10_000])
    func everyItemOnceInPlaylistOrder(size: Int) throws {
        let library = try Library()
        let result = try library.tracks([generated(size)])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "", "no progress or notes in a pipe")
        let items = try records(result)
        #expect(items.count == size)
        #expect(items.map { $0["position"]?.intValue } == (0..<size).map { $0 })
        #expect(items.map { $0["name"]?.stringValue } == (0..<size).map { "Track \($0 + 1)" })
        #expect(Set(items.compactMap { $0["id"]?.stringValue }).count == size)
        #expect(items.allSatisfy { $0["playlist"]?["id"]?.stringValue == generated(size) && $0["type"] == "track" })
        let counters = try library.counters()
        #expect(counters["requests"]?["GET /v1/playlists/{id}/items"]?.intValue == max(1, (size + 49) / 50), "one request per page, no more")
        #expect((counters["max_in_flight"]?.intValue ?? 99) <= 8)
    }

    static let faults: [(String, [(String, String)], [String: String])] = [
        ("429 with Retry-After", [("kind", "rate_limit"), ("every", "4"), ("retry_after", "0")], [:]),
        ("5xx", [("kind", "server_error"), ("every", "5"), ("status", "502")], [:]),
        ("connection reset", [("kind", "reset"), ("every", "5")], [:]),
        ("truncated body", [("kind", "truncate"), ("every", "5")], [:]),
        ("unparsable body", [("kind", "garbage"), ("every", "5")], [:]),
        ("timeout", [("kind", "delay"), ("at", "3+9"), ("delay_ms", "2500")], ["SPOTIFY_TOOLKIT_REQUEST_TIMEOUT": "1"]),
    ]

    @Test(arguments: faults)
    func faultsMidPaginationLeaveTheOutputOfACleanRun(name: String, fault: [(String, String)], environment: [String: String]) throws {
        let library = try Library()
        let clean = try library.tracks([generated(1_000)])
        #expect(clean.status == 0)
        #expect(clean.stdoutLines.count == 1_000)
        try library.fault(fault)
        let faulty = try library.tracks([generated(1_000)], environment: environment)
        #expect(faulty.status == 0, "\(name): \(faulty.stderr)")
        #expect(faulty.stdout == clean.stdout, "\(name): the same records in the same order")
        #expect((try library.counters()["faults_fired"]?.intValue ?? 0) >= 2, "\(name) happened")
    }

    @Test func aPageThatKeepsFailingEndsTheRunSayingAfterHowManyTries() throws {
        let library = try Library()
        try library.fault([("kind", "server_error"), ("at", (2...60).map(String.init).joined(separator: "+"))])
        let result = try library.tracks(["--concurrency", "1", generated(200)])
        #expect(result.status == 69)
        #expect(result.stdoutLines.count == 50, "the first page went out; nothing after the failure")
        #expect(result.stderr.contains("Spotify failed (HTTP 503: Service Unavailable) on GET /playlists/\(generated(200))/items"))
        #expect(result.stderr.contains("(gave up after 5 tries)"), "\(result.stderr)")
    }

    @Test func unreadablePagesThatStayUnreadable() throws {
        let library = try Library()
        try library.fault([("kind", "garbage"), ("rate", "1")])
        let result = try library.tracks([generated(10)])
        #expect(result.status == 69)
        #expect(result.stderr.contains("could not be read: the body is not a JSON object"), "\(result.stderr)")
        #expect(result.stderr.contains("after 5 tries"))
    }

    @Test func quotaIs69AndALongRateLimitIs75() throws {
        let library = try Library()
        try library.fault([("kind", "quota"), ("at", "3"), ("retry_after", "3600")])
        let quota = try library.tracks([generated(500)])
        #expect(quota.status == 69)
        #expect(quota.stderr.contains("quota for this app is used up (QUOTA_EXCEEDED)"), "\(quota.stderr)")
        #expect(quota.stdoutLines.count < 500)

        _ = try library.fake.call("POST", "/_fake/clear-faults")
        try library.fault([("kind", "rate_limit"), ("at", "3"), ("retry_after", "3600")])
        let limited = try library.tracks([generated(500)])
        #expect(limited.status == 75)
        #expect(limited.stderr.contains("Spotify is rate limiting and asked to wait 60 min (more than the 30 s cap); try again later"), "\(limited.stderr)")
    }

    @Test func theTotalChangingWhilePagingIsNoted() throws {
        let library = try Library()
        let result = try library.tracks([generated(120, "chg")])
        #expect(result.status == 0)
        #expect(result.stdoutLines.count == 119)
        #expect(result.stderr == "spotify-tracks: playlist \(generated(120, "chg")) changed while it was read (120 → 119 items); run again for a consistent copy\n")
    }

    @Test(arguments: ["3cEYpjA9oz9GiPac4AsH4n", generated(120, "mix")])
    func the2026AndLegacyShapesGiveTheSameRecords(playlist: String) throws {
        let current = try Library().tracks([playlist])
        let legacy = try Library(["--legacy"]).tracks([playlist])
        #expect(current.status == 0 && legacy.status == 0)
        #expect(!current.stdout.isEmpty)
        #expect(current.stdout == legacy.stdout)
    }

    @Test func localFilesEpisodesAndUnavailableItems() throws {
        let library = try Library()
        let playlist = generated(20, "mix")
        let all = try library.tracks([playlist])
        #expect(all.status == 0)
        let items = try records(all)
        #expect(items.count == 18)
        #expect(all.stderr == "spotify-tracks: playlist \(playlist): skipped 2 items Spotify no longer makes available (null)\n")
        let locals = items.filter { $0["is_local"] == true }
        #expect(locals.count == 2 && locals.allSatisfy { $0["id"] == .null && $0["uri"]?.stringValue?.hasPrefix("spotify:local:") == true })
        #expect(items.filter { $0["type"] == "episode" }.count == 2)
        #expect(items.map { $0["position"]?.intValue ?? -1 }.contains(8) == false, "positions count the null entries too")

        let noLocal = try records(try library.tracks(["--no-local", playlist]))
        #expect(noLocal.count == 16 && noLocal.allSatisfy { $0["is_local"] == false })
        let tracksOnly = try records(try library.tracks(["--tracks-only", "--no-local", playlist]))
        #expect(tracksOnly.count == 14 && tracksOnly.allSatisfy { $0["type"] == "track" })

        let raw = try library.tracks(["--raw", playlist])
        #expect(raw.status == 0)
        let entries = try records(raw)
        #expect(entries.count == 20, "raw keeps every entry, null items too")
        #expect(entries[8]["item"] == .null)
        #expect(entries[0].objectValue?.keys == ["added_at", "added_by", "is_local", "primary_color", "item", "video_thumbnail"], "untouched")
    }

    @Test func playlistsSpotifyRefusesAreReportedAndTheOthersStillPrint() throws {
        let library = try Library()
        let result = try library.tracks([generated(3), "5MlKAGFZNoN2d0Up8sQc0N", "spotify:playlist:37i9dQZF1DXcBWIGoYBM5M", generated(2)])
        #expect(result.status == 77, "the first failure's status")
        #expect(try records(result).map { $0["playlist"]?["id"]?.stringValue } == Array(repeating: generated(3), count: 3) + Array(repeating: generated(2), count: 2))
        #expect(result.stderr == """
        spotify-tracks: playlist 5MlKAGFZNoN2d0Up8sQc0N: Spotify returns items only for playlists you own or collaborate on, and this is not one of them (403: Forbidden); logging in again will not change that
        spotify-tracks: playlist 37i9dQZF1DXcBWIGoYBM5M: not found (404: Resource not found); Spotify no longer shows its own editorial and algorithmic playlists to apps in Development Mode, or the id is wrong

        """)
        let editorial = try library.tracks(["https://open.spotify.com/playlist/37i9dQZF1DXcBWIGoYBM5M?si=abc"])
        #expect(editorial.status == 1)
        #expect(editorial.stdout == "")
    }

    @Test func aDevelopmentModeRefusalStopsTheRun() throws {
        let library = try Library()
        let path = "/v1/playlists/\(generated(3))/items"
        _ = try library.fake.call("POST", "/_fake/fail", form: [("path", path), ("status", "403"),
                                                                 ("body", "Check settings on developer.spotify.com/dashboard, the user may not be registered.")])
        let result = try library.tracks([generated(3), generated(2)])
        #expect(result.status == 77)
        #expect(result.stdout == "")
        #expect(result.stderr.contains("Add your Spotify account under User Management"), "\(result.stderr)")
    }

    @Test func likedSongs() throws {
        let library = try Library(["--saved-tracks", "75"])
        let result = try library.tracks(["--liked"])
        #expect(result.status == 0, "\(result.stderr)")
        let items = try records(result)
        #expect(items.count == 75)
        #expect(items.map { $0["position"]?.intValue } == (0..<75).map { $0 })
        #expect(items.allSatisfy { $0["playlist"] == .null && $0["added_at"]?.stringValue != nil })
        let both = try library.tracks(["--liked", generated(1)])
        #expect(both.status == 64)
    }

    @Test func playlistRecordsFromStdinAndBadInput() throws {
        let library = try Library()
        let piped = try ToolProcess.shell("spotify-playlists | grep -v Top | spotify-tracks | wc -l", environment: library.fake.environment())
        #expect(piped.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "\(5 + 143 + 0 + 10_000 + 108)", "\(piped.stderr)")

        let stdin = try library.tracks([], stdin: "\(generated(2))\n\nspotify:playlist:\(generated(1))\n{\"type\":\"playlist\",\"id\":\"\(generated(3))\"}\n")
        #expect(stdin.status == 0)
        #expect(stdin.stdoutLines.count == 6)

        let badLine = try library.tracks([], stdin: "\(generated(2))\nspotify:track:4iV5W9uYEdYUVa79Axb7Rh\n")
        #expect(badLine.status == 65)
        #expect(badLine.stderr == "spotify-tracks: standard input: line 2: a track URI, not a playlist\n")
        #expect(badLine.stdout == "", "nothing fetched before the input is known good")

        let badArgument = try library.tracks(["nope"])
        #expect(badArgument.status == 64)
        #expect(badArgument.stderr.hasPrefix("spotify-tracks: 'nope': not a playlist id"))
        for value in ["0", "9", "x"] {
            let result = try library.tracks(["--concurrency", value, generated(1)])
            #expect(result.status == 64)
            #expect(result.stderr.hasPrefix("spotify-tracks: --concurrency must be a whole number from 1 to 8"))
        }
    }

    @Test func notLoggedIn() throws {
        let fake = try FakeSpotifyProcess()
        let result = try ToolProcess.run("spotify-tracks", [generated(3)], environment: fake.environment())
        #expect(result.status == 77)
        #expect(result.stderr == "spotify-tracks: not logged in; run 'spotify-auth login'\n")
    }

    @Test func aTableOnATerminal() throws {
        let library = try Library()
        let result = try library.tracks(["3cEYpjA9oz9GiPac4AsH4n"], environment: ["SPOTIFY_TOOLKIT_FORCE_TTY": "1", "COLUMNS": "70"])
        #expect(result.status == 0)
        let lines = result.stdoutLines
        #expect(lines.first == "spotify:playlist:3cEYpjA9oz9GiPac4AsH4n")
        #expect(lines[1].hasPrefix("#  NAME") && lines[1].hasSuffix("DURATION"))
        #expect(lines[2].hasPrefix("0  The Funeral") && lines[2].hasSuffix("5:22"))
        #expect(lines.contains { $0.hasPrefix("2  #212 — First takes") && $0.contains("The Studio Hour") })
        #expect(lines.last == "5 items, 1:06:00")
        #expect(lines.allSatisfy { $0.count <= 70 })
        let json = try library.tracks(["--json", "3cEYpjA9oz9GiPac4AsH4n"], environment: ["SPOTIFY_TOOLKIT_FORCE_TTY": "1"])
        #expect(try records(json).count == 5)
    }

    @Test func upToEightRequestsReallyInFlightOnOneHost() throws {
        let library = try Library(["--latency-ms", "150"])
        let eight = try library.tracks(["--concurrency", "8", generated(2_000)])
        #expect(eight.stdoutLines.count == 2_000)
        #expect(try library.counters()["max_in_flight"] == 8, "URLSession keeps 8 connections to one host (its default is 6)")
        _ = try library.fake.call("POST", "/_fake/reset-counters")
        let adaptive = try library.tracks([generated(3_000)])
        #expect(adaptive.stdoutLines.count == 3_000)
        let seen = try library.counters()["max_in_flight"]?.intValue ?? 0
        #expect(seen > 4 && seen <= 8, "grows from 4, never beyond 8: \(seen)")
        _ = try library.fake.call("POST", "/_fake/reset-counters")
        _ = try library.tracks(["--concurrency", "2", generated(500)])
        #expect(try library.counters()["max_in_flight"] == 2)
    }

    @Test func aClosedPipeStopsItEarlyAndQuietly() throws {
        let library = try Library(["--latency-ms", "20"])
        let result = try ToolProcess.shell("spotify-tracks \(generated(10_000)) | head -1; echo \"${PIPESTATUS[0]}\" >&2", environment: library.fake.environment())
        #expect(try JSONValue.parse(result.stdoutLines[0])["position"] == 0)
        #expect(result.stderr == "141\n", "killed by SIGPIPE, nothing said")
        let pages = try library.counters()["requests"]?["GET /v1/playlists/{id}/items"]?.intValue ?? 0
        #expect(pages < 200, "streams page by page: stopped after \(pages) of 200 pages")
    }

    @Test func progressOnlyWhenStderrIsATerminal() throws {
        let library = try Library()
        let tool = ToolProcess.url(of: "spotify-tracks").path
        // script(1) gives the tool a pseudo-terminal; stdout still goes to a file.
        let out = library.fake.home.url.appendingPathComponent("out.jsonl").path
        let result = try ToolProcess.shell("script -qec '\(tool) \(generated(10_000)) > \(out)' /dev/null", environment: library.fake.environment())
        #expect(result.stdout.contains("/10,000 items"), "\(result.stdout.suffix(200))")
        #expect(result.stdout.contains("\r10,000/10,000 items"))
        #expect(result.stdout.hasSuffix("\r\u{1B}[K"), "cleared at the end")
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 10_000, "progress never reaches stdout")
    }
}
