import Foundation
import Testing

@testable import FakeSpotify
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// What records carry for sorting, matching and moving playlists (explicit, ISRC, release dates,
/// is_playable, added_by), read at no extra request; `--format` and `--from` in process.
@Suite(.tags(.medium)) struct TrackFieldsCommandTests {
    /// A 1,000-item playlist read cold: every new field on every track, at most 21 requests, and
    /// is_playable false exactly where the server says so when it is asked with a market.
    @Test func aThousandItemsCarryEveryNewFieldAtNoExtraRequest() async throws {
        let library = try await Library()
        defer { library.fake.stop() }
        let id = generated(1_000)
        let result = try await library.tracks(["--no-cache", id])
        #expect(result.status == 0, "\(result.stderr)")
        let items = try records(result)
        #expect(items.count == 1_000)
        for item in items {
            #expect(item["explicit"]?.boolValue != nil, "\(item)")
            #expect(item["external_ids"]?["isrc"]?.stringValue?.hasPrefix("QZFAK") == true, "\(item)")
            #expect(item["album"]?["release_date"]?.stringValue != nil, "\(item)")
            #expect(
                ["year", "month", "day"].contains(item["album"]?["release_date_precision"]?.stringValue), "\(item)")
            #expect(item["is_playable"]?.boolValue != nil, "\(item)")
            #expect(item.objectValue?.keys.contains("added_by") == true, "\(item)")
        }
        let requests = try await library.counters()["requests"]?.objectValue ?? [:]
        let total = requests.values.reduce(0) { $0 + ($1.intValue ?? 0) }
        #expect(total <= 21, "\(requests)")

        // What the server says, asked with a market, item by item.
        var unplayable: Set<String> = []
        var byUser: [String: String?] = [:]
        for offset in stride(from: 0, to: 1_000, by: 50) {
            let page = try await HTTPTestClient.fetch(
                URL(
                    string: library.fake.base
                        + "/v1/playlists/\(id)/items?offset=\(offset)&limit=50&market=from_token")!,
                headers: ["Authorization": "Bearer \(library.tokens.accessToken)"])
            for entry in try JSONValue.parse(page.data)["items"]?.arrayValue ?? [] {
                let uri = entry["item"]?["uri"]?.stringValue ?? ""
                if entry["item"]?["is_playable"] == false { unplayable.insert(uri) }
                byUser[uri] = entry["added_by"]?["id"]?.stringValue
            }
        }
        #expect(!unplayable.isEmpty && unplayable.count < 100)
        #expect(Set(items.filter { $0["is_playable"] == false }.compactMap { $0["uri"]?.stringValue }) == unplayable)
        for item in items {
            let uri = item["uri"]?.stringValue ?? ""
            #expect(item["added_by"]?["id"]?.stringValue == byUser[uri] ?? nil, "\(uri)")
        }
        #expect(
            items.contains { $0["added_by"] == .null }
                && items.contains { $0["added_by"]?["id"] == "friendofthefixtureuser" })
    }

    /// Without a market Spotify leaves is_playable out; the fixture's restricted track says false with one.
    @Test func isPlayableOnlyWithAMarket() async throws {
        let library = try await Library()
        defer { library.fake.stop() }
        let headers = ["Authorization": "Bearer \(library.tokens.accessToken)"]
        let path = library.fake.base + "/v1/playlists/3cEYpjA9oz9GiPac4AsH4n/items?offset=0&limit=50"
        let without = try await HTTPTestClient.fetch(URL(string: path)!, headers: headers)
        #expect(!String(decoding: without.data, as: UTF8.self).contains("is_playable"))
        let with = try await HTTPTestClient.fetch(URL(string: path + "&market=from_token")!, headers: headers)
        #expect(String(decoding: with.data, as: UTF8.self).contains("\"is_playable\":false"))
        let result = try await library.tracks(["--no-cache", "3cEYpjA9oz9GiPac4AsH4n"])
        let restricted = try records(result).filter { $0["is_playable"] == false }
        #expect(restricted.count == 1 && restricted[0]["explicit"] == true, "\(result.stdout)")
        #expect(restricted[0]["added_by"]?["id"]?.stringValue != nil)
        let episode = try #require(try records(result).first { $0["type"] == "episode" })
        #expect(episode["release_date"]?.stringValue != nil && episode["explicit"]?.boolValue != nil, "\(episode)")
    }

    /// The liked songs, an album and a search carry the fields too (each read names the market).
    @Test func likedAlbumAndSearchRecordsCarryTheFields() async throws {
        let library = try await Library()
        defer { library.fake.stop() }
        for arguments in [["--liked"], ["--search", "Jolene"]] {
            let result = try await library.tracks(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            let first = try #require(try records(result).first)
            #expect(first["external_ids"]?["isrc"]?.stringValue != nil, "\(arguments): \(first)")
            #expect(first["album"]?["release_date"]?.stringValue != nil, "\(arguments)")
            #expect(first["is_playable"]?.boolValue != nil, "\(arguments): market sent")
        }
    }

    /// `--format` on every track read: one document for the run, as many tracks as records.
    @Test(arguments: ["m3u", "xspf", "jspf", "csv"])
    func everyFormatHoldsEveryTrackOfTheRun(_ format: String) async throws {
        let library = try await Library()
        defer { library.fake.stop() }
        let json = try await library.tracks(["--no-cache", generated(20), generated(3)])
        let uris = try records(json).compactMap { $0["uri"]?.stringValue }
        #expect(uris.count == 23)
        let result = try await library.tracks(["--format", format, generated(20), generated(3)])
        #expect(result.status == 0, "\(result.stderr)")
        let kind = try #require(PlaylistFileFormat(rawValue: format))
        let read = try PlaylistFileReader.read(Array(result.stdout.utf8), format: kind).map { try $0.get() }
        #expect(read.map(\.reference?.uri) == uris)
        let liked = try await library.tracks(["--liked", "--format", format])
        #expect(liked.status == 0 && !liked.stdout.isEmpty, "\(liked.stderr)")
    }

    /// An Exportify CSV with every row carrying its URI, name and length prints records without
    /// a single request; rows with only an ISRC or a name are looked up.
    @Test func fromCSVPrintsRecordsWithoutRequestsWhereTheFileSaysEnough() async throws {
        let library = try await Library()
        defer { library.fake.stop() }
        let exported = try await library.tracks(["--format", "csv", generated(6)])
        try await library.fake.call("POST", "/_fake/reset-counters")
        let result = try await library.tracks(["--from", "csv", "-"], stdin: exported.stdout)
        #expect(result.status == 0, "\(result.stderr)")
        let original = try records(try await library.tracks([generated(6)]))
        let read = try records(result)
        #expect(read.map { $0["uri"] } == original.map { $0["uri"] })
        #expect(read.map { $0["external_ids"] } == original.map { $0["external_ids"] })
        #expect(read.map { $0["album"]?["release_date"] } == original.map { $0["album"]?["release_date"] })
        try await library.fake.call("POST", "/_fake/reset-counters")
        let lookups = try await library.tracks(
            ["--from", "csv", "-"],
            stdin:
                "ISRC,Track Name,Artist Name(s)\r\nQZFAK1000007,,\r\n,Jolene,Dolly Parton\r\n,Nothing Like It,Nobody\r\n"
        )
        #expect(lookups.status == 1, "no match for the last: \(lookups.stderr)")
        let found = try records(lookups)
        #expect(found.count == 2)
        #expect(found[0]["external_ids"]?["isrc"] == "QZFAK1000007" && found[0]["is_playable"] == true)
        #expect(found[0]["query"] == "isrc:QZFAK1000007")
        #expect(found[1]["name"] == "Jolene" && found[1]["position"] == 1)
        #expect(lookups.stderr.contains("standard input: line 4: no match for 'Nobody - Nothing Like It'"))
        let searches = try await library.counters()["requests"]?["GET /v1/search"]?.intValue ?? 0
        #expect(searches >= 3)
    }

    @Test func aBadRowIsNamedAndTheRunGoesOnToExit65() async throws {
        let library = try await Library()
        defer { library.fake.stop() }
        let exported = try await library.tracks(["--format", "csv", generated(3)])
        var lines = exported.stdout.components(separatedBy: "\r\n")
        lines.insert("spotify:track:nope,Broken,,,,,,,,abc,,,,", at: 2)
        let result = try await library.tracks(["--from", "csv", "-"], stdin: lines.joined(separator: "\r\n"))
        #expect(result.status == 65, "\(result.stderr)")
        #expect(try records(result).count == 3)
        #expect(
            result.stderr.contains("standard input: line 3: 'spotify:track:nope' is no Spotify track URI"),
            "\(result.stderr)")
    }

    @Test func sortByReleasedOrdersByDateKeepingEveryDate() async throws {
        let library = try await PlaylistWriteTests.editor()
        defer { library.fake.stop() }
        let id = "7d2D2S200NyUE5KYs80PwO"
        let before = try records(try await library.tracks(["--no-cache", id]))
        let result = try await library.run(
            "spotify-playlists", ["sort", id, "--by", "released"], environment: PlaylistEditCommandTests.quick)
        #expect(result.status == 0, "\(result.stderr)")
        let after = try records(try await library.tracks(["--no-cache", id]))
        #expect(after.count == before.count)
        let dates = after.map { $0["album"]?["release_date"]?.stringValue ?? "" }
        #expect(dates == dates.sorted(), "\(dates)")
        for item in after {
            let was = before.first { $0["uri"] == item["uri"] }
            #expect(was?["added_at"] == item["added_at"], "dates kept")
        }
    }
}
