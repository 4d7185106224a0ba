import Foundation
import Testing

@testable import FakeSpotify
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// Issue 30, item 3 (review finding 15): typos get the suggestion a person meant.
@Suite(.tags(.medium)) struct SuggestionCommandTests {
    @Test(arguments: [
        (["hist"], "routine-link: unknown command 'hist'; did you mean 'history'?"),
        (["lsit"], "routine-link: unknown command 'lsit'; did you mean 'list'?"),
        (["lint"], "routine-link: unknown command 'lint'; did you mean 'list' or 'link'?"),
        (["fit", "--liekd"], "routine-link: unknown option '--liekd'; did you mean '--liked'?"),
    ])
    func routineLinkSuggestsWhatWasMeant(arguments: [String], firstLine: String) async throws {
        let result = try await InProcess.run("routine-link", arguments)
        #expect(result.status == 64)
        #expect(result.stderr.split(separator: "\n").first.map(String.init) == firstLine, "\(result.stderr)")
    }

    @Test func spotifyTracksSuggestsLikedForATypo() async throws {
        let result = try await InProcess.run("spotify-tracks", ["--liekd"])
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix("spotify-tracks: unknown option '--liekd'; did you mean '--liked'?\n"),
            "\(result.stderr)")
    }

    @Test func aPlaylistNameATypoAwayIsSuggested() throws {
        let library = [
            PlaylistNames.Listed(id: "id1", name: "Mixed Bag"), PlaylistNames.Listed(id: "id2", name: "Morning"),
            PlaylistNames.Listed(id: "id3", name: "Mixed Bags"), PlaylistNames.Listed(id: "id4", name: "Evening"),
        ]
        let error = try #require(throws: ToolError.self) { try PlaylistNames.match("Mixd Bag", among: library) }
        #expect(error.exitCode == .notFound)
        #expect(error.message.hasSuffix("; did you mean 'Mixed Bag'?"), "\(error.message)")
        // Containment still counts, and two suggestions read "A or B".
        let both = try #require(throws: ToolError.self) { try PlaylistNames.match("mixed ba", among: library) }
        #expect(both.message.hasSuffix("; did you mean 'Mixed Bag' or 'Mixed Bags'?"), "\(both.message)")
        let none = try #require(throws: ToolError.self) { try PlaylistNames.match("Jazz", among: library) }
        #expect(none.message.hasSuffix("; spotify-playlists lists them"), "\(none.message)")
    }

    @Test func spotifyTracksSuggestsMixedBagForMixdBag() async throws {
        let library = try await Library()
        let result = try await library.tracks(["Mixd Bag"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("did you mean 'Mixed Bag'?"), "\(result.stderr)")
    }
}
