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
}
