import Foundation
import Testing

@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// spotify-tracks run in process against an in-process fake-spotify.
@Suite(.tags(.medium)) struct SpotifyTracksCommandTests {
    @Test(arguments: [0, 1, 50, 51, 10_000])
    func everyItemOnceInPlaylistOrder(size: Int) async throws {
        let library = try await Library()
        let result = try await library.tracks([generated(size)])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "", "no progress or notes in a pipe")
        let items = try records(result)
        #expect(items.count == size)
        #expect(items.map { $0["position"]?.intValue } == (0..<size).map { $0 })
        #expect(items.map { $0["name"]?.stringValue } == (0..<size).map { "Track \($0 + 1)" })
        #expect(Set(items.compactMap { $0["id"]?.stringValue }).count == size)
        #expect(items.allSatisfy { $0["playlist"]?["id"]?.stringValue == generated(size) && $0["type"] == "track" })
        let counters = try await library.counters()
        // The playlist object brings the first 100 entries; the items pages the rest; past 100,
        // one snapshot check after the pages.
        #expect(counters["requests"]?["GET /v1/playlists/{id}"]?.intValue == (size > 100 ? 2 : 1))
        #expect(
            counters["requests"]?["GET /v1/playlists/{id}/items"]?.intValue ?? 0 == max(0, (size - 100 + 49) / 50),
            "one request per page, no more")
        #expect((counters["max_in_flight"]?.intValue ?? 99) <= 8)
    }

    static let faults: [(String, [(String, String)], [String: String])] = [
        ("429 with Retry-After", [("kind", "rate_limit"), ("every", "4"), ("retry_after", "0")], [:]),
        ("5xx", [("kind", "server_error"), ("every", "5"), ("status", "502")], [:]),
        ("connection reset", [("kind", "reset"), ("every", "5")], [:]),
        ("truncated body", [("kind", "truncate"), ("every", "5")], [:]),
        ("unparsable body", [("kind", "garbage"), ("every", "5")], [:]),
        (
            "timeout", [("kind", "delay"), ("at", "3+9"), ("delay_ms", "2500")],
            ["SPOTIFY_TOOLKIT_REQUEST_TIMEOUT": "1"]
        ),
    ]

    @Test(arguments: faults)
    func faultsMidPaginationLeaveTheOutputOfACleanRun(
        name: String, fault: [(String, String)], environment: [String: String]
    ) async throws {
        let library = try await Library()
        let clean = try await library.tracks([generated(1_000)])
        #expect(clean.status == 0)
        #expect(clean.stdoutLines.count == 1_000)
        try await library.fault(fault)
        let faulty = try await library.tracks([generated(1_000)], environment: environment)
        #expect(faulty.status == 0, "\(name): \(faulty.stderr)")
        #expect(faulty.stdout == clean.stdout, "\(name): the same records in the same order")
        #expect((try await library.counters()["faults_fired"]?.intValue ?? 0) >= 2, "\(name) happened")
    }

    @Test func aPageThatKeepsFailingEndsTheRunSayingAfterHowManyTries() async throws {
        let library = try await Library()
        try await library.fault([("kind", "server_error"), ("at", (2...60).map(String.init).joined(separator: "+"))])
        let result = try await library.tracks(["--concurrency", "1", generated(200)])
        #expect(result.status == 69)
        #expect(result.stdoutLines.count == 100, "the first 100 went out; nothing after the failure")
        #expect(
            result.stderr.contains(
                "Spotify failed (HTTP 503: Service Unavailable) on GET /playlists/\(generated(200))/items"))
        #expect(result.stderr.contains("(gave up after 5 tries)"), "\(result.stderr)")
    }

    @Test func unreadablePagesThatStayUnreadable() async throws {
        let library = try await Library()
        try await library.fault([("kind", "garbage"), ("rate", "1")])
        let result = try await library.tracks([generated(10)])
        #expect(result.status == 69)
        #expect(result.stderr.contains("could not be read: the body is not a JSON object"), "\(result.stderr)")
        #expect(result.stderr.contains("after 5 tries"))
    }

    @Test func quotaIs69AndALongRateLimitIs75() async throws {
        let library = try await Library()
        try await library.fault([("kind", "quota"), ("at", "3"), ("retry_after", "3600")])
        let quota = try await library.tracks([generated(500)])
        #expect(quota.status == 69)
        #expect(quota.stderr.contains("quota for this app is used up (QUOTA_EXCEEDED)"), "\(quota.stderr)")
        #expect(quota.stderr.contains("(in 1 h 0 min)"), "\(quota.stderr)")
        #expect(quota.stdoutLines.count < 500)

        // The quota pause holds every run back until it is cleared.
        #expect(try await library.tracks([generated(500)]).status == 69)
        #expect(try await library.run("spotify-auth", ["usage", "--clear-pause"]).status == 0)
        _ = try await library.fake.call("POST", "/_fake/clear-faults")
        try await library.fault([("kind", "rate_limit"), ("at", "3"), ("retry_after", "3600")])
        let limited = try await library.tracks([generated(500)])
        #expect(limited.status == 75)
        #expect(
            limited.stderr.contains(
                "Spotify is rate limiting and asked to wait 60 min (more than the 30 s cap); try again later"),
            "\(limited.stderr)")
    }

    // What came is printed, but the run exits 75 (run again): items may be missing or repeated.
    @Test func theTotalChangingWhilePagingFailsTheRun() async throws {
        let library = try await Library()
        let result = try await library.tracks([generated(120, "chg"), generated(2)])
        #expect(result.status == 75)
        #expect(result.stdoutLines.count == 119 + 2, "the other playlist still prints")
        #expect(
            result.stderr
                == "spotify-tracks: playlist \(generated(120, "chg")) changed while it was read (120 → 119 items), so items may be missing or repeated; run again for a consistent copy\n"
        )
        let duration = try await library.run("spotify-playlists", ["get", "--duration", generated(120, "chg")])
        #expect(duration.status == 75, "\(duration.stderr)")
        // A later playlist that is not found (1) does not mask the edit (75): a retry-on-75
        // script must retry.
        let masked = try await Library().tracks([generated(120, "chg"), "4uLU6hMCjMI75M1A2tKUQC"])
        #expect(masked.status == 75, "\(masked.stderr)")
        #expect(
            masked.stderr.contains("changed while it was read") && masked.stderr.contains("not found"),
            "\(masked.stderr)")
    }

    /// Another client edits an item while the playlist is read, its size unchanged: the
    /// snapshot check after the pages sees it (with --no-cache too), says so, and the run exits 75.
    @Test func anEditThatKeepsTheTotalStillFailsTheRun() async throws {
        let library = try await Library()
        let id = generated(300)
        let clean = try await library.tracks(["--no-cache", id])
        #expect(clean.status == 0, "\(clean.stderr)")
        try await library.fault([
            ("kind", "delay"), ("at", "1"), ("delay_ms", "1000"), ("path_prefix", "/v1/playlists/\(id)/items"),
        ])
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        async let reading = library.tracks(["--no-cache", id])
        // Once the first items page is held, the other client edits item 250.
        for _ in 0..<500 {
            let pages = try await library.counters()["requests"]?["GET /v1/playlists/{id}/items"]?.intValue ?? 0
            if pages >= 1 { break }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        _ = try await library.fake.call("POST", "/_fake/edit-playlist", form: [("id", id), ("position", "250")])
        let run = try await reading
        #expect(run.status == 75, "\(run.stderr)")
        #expect(run.stderr.contains("changed while it was read (its snapshot_id moved)"), "\(run.stderr)")
        #expect(run.stdoutLines.count == 300, "the total held")
    }

    @Test(arguments: ["3cEYpjA9oz9GiPac4AsH4n", generated(120, "mix")])
    func the2026AndLegacyShapesGiveTheSameRecords(playlist: String) async throws {
        let current = try await Library().tracks([playlist])
        let legacy = try await Library(["--legacy"]).tracks([playlist])
        #expect(current.status == 0 && legacy.status == 0)
        #expect(!current.stdout.isEmpty)
        // A legacy track-shaped episode carries no release date (its album is the show): all else is the same.
        func withoutEpisodeDates(_ run: ToolRun) throws -> [JSONValue] {
            try records(run).map { record in
                guard record["type"] == "episode", var object = record.objectValue else { return record }
                object["release_date"] = nil
                object["release_date_precision"] = nil
                return .object(object)
            }
        }
        #expect(try withoutEpisodeDates(current) == withoutEpisodeDates(legacy))
        #expect(current.stdout.split(separator: "\n").count == legacy.stdout.split(separator: "\n").count)
    }

    @Test func localFilesEpisodesAndUnavailableItems() async throws {
        let library = try await Library()
        let playlist = generated(20, "mix")
        let all = try await library.tracks([playlist])
        #expect(all.status == 0)
        let items = try records(all)
        #expect(items.count == 18)
        #expect(
            all.stderr
                == "spotify-tracks: playlist \(playlist): skipped 2 items Spotify no longer makes available (null)\n")
        let locals = items.filter { $0["is_local"] == true }
        #expect(
            locals.count == 2
                && locals.allSatisfy {
                    $0["id"] == .null && $0["uri"]?.stringValue?.hasPrefix("spotify:local:") == true
                })
        #expect(items.filter { $0["type"] == "episode" }.count == 2)
        #expect(
            items.map { $0["position"]?.intValue ?? -1 }.contains(8) == false, "positions count the null entries too")

        let noLocal = try records(try await library.tracks(["--no-local", playlist]))
        #expect(noLocal.count == 16 && noLocal.allSatisfy { $0["is_local"] == false })
        let tracksOnly = try records(try await library.tracks(["--tracks-only", "--no-local", playlist]))
        #expect(tracksOnly.count == 14 && tracksOnly.allSatisfy { $0["type"] == "track" })

        let raw = try await library.tracks(["--raw", playlist])
        #expect(raw.status == 0)
        let entries = try records(raw)
        #expect(entries.count == 20, "raw keeps every entry, null items too")
        #expect(entries[8]["item"] == .null)
        #expect(
            entries[0].objectValue?.keys == [
                "added_at", "added_by", "is_local", "primary_color", "item", "video_thumbnail",
            ], "untouched")
    }

    @Test func playlistsSpotifyRefusesAreReportedAndTheOthersStillPrint() async throws {
        let library = try await Library()
        let result = try await library.tracks([
            generated(3), "5MlKAGFZNoN2d0Up8sQc0N", "spotify:playlist:37i9dQZF1DXcBWIGoYBM5M", generated(2),
        ])
        #expect(result.status == 77, "the first failure's status")
        #expect(
            try records(result).map { $0["playlist"]?["id"]?.stringValue } == Array(repeating: generated(3), count: 3)
                + Array(repeating: generated(2), count: 2))
        #expect(
            result.stderr == """
                spotify-tracks: playlist 5MlKAGFZNoN2d0Up8sQc0N: Spotify returns items only for playlists you own or collaborate on, and this is not one of them (403: Forbidden); logging in again will not change that
                spotify-tracks: playlist 37i9dQZF1DXcBWIGoYBM5M: not found (404: Resource not found); Spotify no longer shows its own editorial and algorithmic playlists to apps in Development Mode, or the id is wrong

                """)
        let editorial = try await library.tracks(["https://open.spotify.com/playlist/37i9dQZF1DXcBWIGoYBM5M?si=abc"])
        #expect(editorial.status == 1)
        #expect(editorial.stdout == "")
    }

    @Test func aDevelopmentModeRefusalStopsTheRun() async throws {
        let library = try await Library()
        let path = "/v1/playlists/\(generated(3))"
        _ = try await library.fake.call(
            "POST", "/_fake/fail",
            form: [
                ("path", path), ("status", "403"),
                ("body", "Check settings on developer.spotify.com/dashboard, the user may not be registered."),
            ])
        let result = try await library.tracks([generated(3), generated(2)])
        #expect(result.status == 77)
        #expect(result.stdout == "")
        #expect(result.stderr.contains("Add your Spotify account under User Management"), "\(result.stderr)")
    }

    @Test func likedSongs() async throws {
        let library = try await Library(["--saved-tracks", "75"])
        let result = try await library.tracks(["--liked"])
        #expect(result.status == 0, "\(result.stderr)")
        let items = try records(result)
        #expect(items.count == 75)
        #expect(items.map { $0["position"]?.intValue } == (0..<75).map { $0 })
        #expect(items.allSatisfy { $0["playlist"] == .null && $0["added_at"]?.stringValue != nil })
        let both = try await library.tracks(["--liked", generated(1)])
        #expect(both.status == 64)
    }

    @Test func aTableOnATerminal() async throws {
        let library = try await Library()
        let result = try await library.tracks(
            ["3cEYpjA9oz9GiPac4AsH4n"], environment: ["SPOTIFY_TOOLKIT_FORCE_TTY": "1", "COLUMNS": "70"])
        #expect(result.status == 0)
        let lines = result.stdoutLines
        // The playlist's name heads its table, its URI beside it.
        #expect(lines.first == "Morning  spotify:playlist:3cEYpjA9oz9GiPac4AsH4n")
        #expect(lines[1].hasPrefix("#  NAME") && lines[1].hasSuffix("DURATION"))
        // Positions count from 1 on a terminal; records keep Spotify's 0.
        #expect(lines[2].hasPrefix("1  The Funeral") && lines[2].hasSuffix("5:22"))
        #expect(lines.contains { $0.hasPrefix("3  #212 — First takes") && $0.contains("The Studio Hour") })
        #expect(lines.last == "5 items, 1:06:00")
        #expect(lines.allSatisfy { $0.count <= 70 })
        let json = try await library.tracks(
            ["--json", "3cEYpjA9oz9GiPac4AsH4n"], environment: ["SPOTIFY_TOOLKIT_FORCE_TTY": "1"])
        #expect(try records(json).count == 5)
        #expect(try records(json).first?["position"] == 0)
    }

    @Test func upToEightRequestsReallyInFlightOnOneHost() async throws {
        let library = try await Library(["--latency-ms", "150"])
        let eight = try await library.tracks(["--concurrency", "8", generated(2_000)])
        #expect(eight.stdoutLines.count == 2_000)
        #expect(
            try await library.counters()["max_in_flight"] == 8,
            "URLSession keeps 8 connections to one host (its default is 6)")
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        let adaptive = try await library.tracks([generated(3_000)])
        #expect(adaptive.stdoutLines.count == 3_000)
        let seen = try await library.counters()["max_in_flight"]?.intValue ?? 0
        #expect(seen > 4 && seen <= 8, "grows from 4, never beyond 8: \(seen)")
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        _ = try await library.tracks(["--concurrency", "2", generated(500)])
        #expect(try await library.counters()["max_in_flight"] == 2)
    }
}
