import Foundation
import Testing
import ToolkitCore

/// Issue 36: every command at its fewest requests, counted at fake-spotify.
@Suite(.tags(.medium)) struct RequestEconomyTests {
    static let cacheOn = ["SPOTIFY_TOOLKIT_CACHE_SIZE": "200M"]

    static func sent(_ library: Library) async throws -> Int {
        let counted = try await library.counters()["requests"]?.objectValue?.values.compactMap(\.intValue) ?? []
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        return counted.reduce(0, +)
    }

    /// `--duration` over the library costs no more than reading every item, and from a warm cache
    /// (keyed by the listing's own snapshot_ids) no more than the listing and a few checks.
    @Test func durationsOfTheLibraryCostNoMoreThanReadingEveryItem() async throws {
        let library = try await Library(["--extra-playlists", "60"])
        defer { library.fake.stop() }
        _ = try await Self.sent(library)
        let cold = try await library.run("spotify-playlists", ["--duration"], environment: Self.cacheOn)
        #expect(cold.status == 0, "\(cold.stderr)")
        let durationCold = try await Self.sent(library)

        let listing = try await library.run("spotify-playlists", [])
        let listingCost = try await Self.sent(library)
        let everyItem = try await library.tracks(["--no-cache"], stdin: listing.stdout)
        #expect(everyItem.status == 0 || everyItem.status == 1, "\(everyItem.stderr)")
        let readingEveryItem = listingCost + (try await Self.sent(library))
        #expect(durationCold <= readingEveryItem, "--duration \(durationCold), every item \(readingEveryItem)")

        let warm = try await library.run("spotify-playlists", ["--duration"], environment: Self.cacheOn)
        #expect(warm.status == 0, "\(warm.stderr)")
        #expect(warm.stdout == cold.stdout)
        #expect(try await Self.sent(library) <= 10)
    }

    /// `--dry-run` says what the write would send, and the write then sends that.
    @Test func aDryRunSaysWhatTheWriteWillCost() async throws {
        let library = try await PlaylistWriteTests.editor()
        defer { library.fake.stop() }
        let items = try await PlaylistWriteTests.uris(library, generated(150)).map { $0 + "\n" }.joined()
        let target = generated(100)
        let cases: [(arguments: [String], requests: Int)] = [
            // The size, 2 batches, the record, 3 pages that check the order; create: the name's look-up, the create, 2 batches, the record.
            (["add", target], 7), (["create", "Economy Test"], 5),
        ]
        for (arguments, requests) in cases {
            _ = try await Self.sent(library)
            let dry = try await library.run("spotify-playlists", arguments + ["--dry-run"], stdin: items)
            #expect(dry.status == 0, "\(dry.stderr)")
            #expect(dry.stderr.contains("--dry-run: would send \(requests) requests ("), "\(dry.stderr)")
            #expect(try await Self.sent(library) == 0, "a dry run sends no write and no read")
            let real = try await library.run("spotify-playlists", arguments, stdin: items)
            #expect(real.status == 0, "\(real.stderr)")
            let counted = try await library.counters()["requests"] ?? .null
            #expect(try await Self.sent(library) == requests, "\(arguments): \(counted)")
        }
        let edit = try await library.run("spotify-playlists", ["edit", target, "--name", "Renamed", "--dry-run"])
        #expect(edit.stderr.contains("--dry-run: would send 2 requests"), "\(edit.stderr)")
        _ = try await Self.sent(library)
        #expect(try await library.run("spotify-playlists", ["edit", target, "--name", "Renamed"]).status == 0)
        #expect(try await Self.sent(library) == 2)
    }

    /// A sort's --dry-run says what the sort will send (its reads, its range moves, the read that
    /// proves it, the record), and the sort then sends exactly that.
    @Test(arguments: [30, 300])
    func aSortsDryRunSaysWhatItWillCost(size: Int) async throws {
        let library = try await PlaylistWriteTests.editor()
        defer { library.fake.stop() }
        let id = generated(size)
        _ = try await Self.sent(library)
        let dry = try await library.run(
            "spotify-playlists", ["sort", id, "--by", "duration", "--max-moves", "999", "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        let moves = dry.stdoutLines.count
        let note = try #require(dry.stderr.split(separator: "\n").first { $0.contains("--dry-run: would send") })
        let reads = try await Self.sent(library)
        let real = try await library.run("spotify-playlists", ["sort", id, "--by", "duration", "--max-moves", "999"])
        #expect(real.status == 0, "\(real.stderr)")
        let sent = try await Self.sent(library)
        #expect(note.contains("would send \(groupedThousands(sent)) requests ("), "\(note); sent \(sent)")
        #expect(note.contains("\(groupedThousands(moves)) range moves"), "\(note)")
        #expect(reads < sent, "the dry run read the playlist, and sent nothing else")
    }
}
