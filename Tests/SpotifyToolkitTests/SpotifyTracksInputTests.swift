import Foundation
import TestSupport
import Testing

@testable import ToolkitCore

/// spotify-tracks' input, its errors and a missing login, in process (moved from the end-to-end
/// target: none of it needs a process; the closed pipes and the progress line on a terminal stay there).
@Suite(.tags(.medium)) struct SpotifyTracksInputTests {
    @Test func playlistRecordsFromStdinAndBadInput() async throws {
        let library = try await Library()
        // spotify-playlists | grep -v Top | spotify-tracks | wc -l
        let playlists = try await library.run("spotify-playlists", [])
        #expect(playlists.status == 0, "\(playlists.stderr)")
        let kept = playlists.stdoutLines.filter { !$0.contains("Top") }.map { $0 + "\n" }.joined()
        let piped = try await library.tracks([], stdin: kept)
        let expected = 5 + 143 + 0 + 10_000 + 108
        #expect(piped.stdoutLines.count == expected, "\(piped.stderr)")

        let stdin = try await library.tracks(
            [],
            stdin:
                "\(generated(2))\n\nspotify:playlist:\(generated(1))\n{\"type\":\"playlist\",\"id\":\"\(generated(3))\"}\n"
        )
        #expect(stdin.status == 0)
        #expect(stdin.stdoutLines.count == 6)

        let badLine = try await library.tracks([], stdin: "\(generated(2))\nspotify:user:someone\n")
        #expect(badLine.status == 65)
        #expect(
            badLine.stderr
                == "spotify-tracks: standard input: line 2: not a playlist, album, artist, show, track or episode id, URI or URL\n"
        )
        // Standard input is read as it arrives: the playlist before the bad line is
        // printed, as a one-at-a-time run prints it before failing; the error and status are the same.
        #expect(badLine.stdoutLines.count == 2, "the playlist before the bad line, and nothing after it")

        let badArgument = try await library.tracks(["spotify:playlist:nope"])
        #expect(badArgument.status == 64)
        #expect(
            badArgument.stderr.hasPrefix("spotify-tracks: 'spotify:playlist:nope': a playlist URI with a malformed id"))
        // Plain text is a playlist's name: one you do not have is "not found", with a hint.
        let unknownName = try await library.tracks(["nope"])
        #expect(unknownName.status == 1)
        #expect(unknownName.stderr.contains("'nope' is not a playlist id, URI or URL, and none of your"))
        for value in ["0", "9", "x"] {
            let result = try await library.tracks(["--concurrency", value, generated(1)])
            #expect(result.status == 64)
            #expect(result.stderr.hasPrefix("spotify-tracks: --concurrency must be a whole number from 1 to 8"))
        }
    }

    @Test func notLoggedIn() async throws {
        let fake = try InProcessFake()
        defer { fake.stop() }
        let result = try await fake.run("spotify-tracks", [generated(3)])
        #expect(result.status == 77)
        #expect(result.stderr == "spotify-tracks: not logged in; run 'spotify-auth login'\n")
    }
}
