import Foundation
import Testing

@testable import FakeSpotify
@testable import HTTPClient
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// Requests that Spotify refuses though its description names no limit (a search `q` past 100
/// characters, a body past its front end's size), one it describes as impossible, and server-given ids kept out of file
/// names. In-process against fake-spotify, which refuses as Spotify does.
@Suite(.tags(.medium)) struct RequestConformanceTests {
    static let classical =
        #"""
        Wiener Philharmoniker, Herbert von Karajan - Symphony No. 9 in D Minor, Op. 125 "Choral": IV. Presto - \#
        Allegro assai - Allegro assai vivace (Alla marcia)
        """#

    /// A long classical line, line 2 of 3: cut to 100 characters, and the lines
    /// around it still print.
    @Test func aLongQueryIsCutToSpotifysLimitAndTheBatchGoesOn() async throws {
        let library = try await Library()
        let result = try await library.tracks(["--search"], stdin: "Jolene\n\(Self.classical)\nSabotage\n")
        #expect(result.status == 1, "\(result.stderr)")
        #expect(try records(result).map { $0["name"]?.stringValue } == ["Jolene", "Sabotage"], "\(result.stderr)")
        #expect(result.stderr.contains("line 2: no match for 'Wiener Philharmoniker"), "\(result.stderr)")
    }

    /// Pure: every `q` sent fits in 100 characters, title words going first.
    @Test func searchTextsFitInAHundredCharacters() throws {
        let texts = try SearchQuery.parse(Self.classical).searchTexts
        #expect(texts.count == 2)
        for text in texts { #expect(text.utf16.count <= 100, "\(text.utf16.count): \(text)") }
        #expect(texts[0].hasPrefix(#"track:"symphony no 9 in d minor"#), "\(texts[0])")
        #expect(texts[0].hasSuffix(#"artist:"wiener philharmoniker""#), "\(texts[0])")
        let word = try SearchQuery.parse(String(repeating: "x", count: 3_000_000)).searchTexts
        #expect(word.map(\.utf16.count) == [100])
        let artist = try SearchQuery.parse(String(repeating: "y", count: 500) + " - Song").searchTexts
        #expect(artist.allSatisfy { $0.utf16.count <= 100 }, "\(artist)")
        #expect(artist[0].hasPrefix(#"track:"song" artist:"yyy"#), "\(artist)")
    }

    /// 1,000 tracks are a 39 KB body, which Spotify's front end refuses (413, an HTML page):
    /// the first that fit are played, and stderr names the limit and what was left out.
    @Test func playOfAThousandTracksPlaysTheFirstThatFitAndSaysSo() async throws {
        let session = try await PlayerControlTests.Session()
        let uris = (0..<1000).map { "spotify:track:" + GeneratedLibrary.objectID(seed: "play", index: $0) }
        let result = try await session.fake.run(
            "spotify-nowplaying", ["play"], stdin: uris.map { $0 + "\n" }.joined(), environment: session.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("<html") && !result.stderr.contains("413"), "no HTML: \(result.stderr)")
        let commands = try #require(try await session.playback()["commands"]?.arrayValue)
        let played = try #require(commands.last?["body"]?["uris"]?.arrayValue)
        #expect(played.count > 200 && played.count < 1000, "\(played.count)")
        #expect(played.map(\.stringValue) == uris.prefix(played.count).map(Optional.some))
        #expect(
            result.stderr.contains(
                "the first \(played.count) are played and the other \(1000 - played.count) were not sent"),
            "\(result.stderr)")
    }

    /// An HTML error page becomes its title, not its markup.
    @Test func anHTMLErrorPageIsNamedByItsTitle() {
        let page = #"<!DOCTYPE html><html lang=en><title>Error 413 (Request Entity Too Large)!!1</title><p>…</html>"#
        let body = SpotifyErrorBody(HTTPResult(status: 413, headers: [:], body: Data(page.utf8)))
        #expect(body.message == "HTTP 413: Error 413 (Request Entity Too Large)!!1")
        let json = SpotifyErrorBody(
            HTTPResult(status: 404, headers: [:], body: Data(#"{"error":{"message":"x"}}"#.utf8)))
        #expect(json.message == "x")
    }

    /// `edit --public` of a collaborative playlist is refused as create refuses --public
    /// --collaborative, and nothing is sent.
    @Test func editPublicOfACollaborativePlaylistIsRefused() async throws {
        let library = try await PlaylistWriteTests.editor()
        let uri = try #require(try await PlaylistWriteTests.uris(library, generated(10)).first)
        let made = try await library.run(
            "spotify-playlists", ["create", "Collab one", "--collaborative"], stdin: uri + "\n")
        #expect(made.status == 0, "\(made.stderr)")
        let id = try #require(try records(made).first?["id"]?.stringValue)
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        let refused = try await library.run("spotify-playlists", ["edit", id, "--public"])
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(
            refused.stderr.contains("is collaborative, and a collaborative playlist is private"), "\(refused.stderr)")
        #expect(try await library.counters()["requests"]?["PUT /v1/playlists/{id}"]?.intValue ?? 0 == 0)
        let renamed = try await library.run("spotify-playlists", ["edit", id, "--name", "Collab two"])
        #expect(renamed.status == 0, "\(renamed.stderr)")
    }

    /// A name made from what a server sent never leads out of its directory.
    @Test func aFileNameWithASlashOrDotsIsRefused() throws {
        let home = try TemporaryDirectory()
        let directory = PrivateDirectory(home.url.appendingPathComponent("undo").path)
        for name in ["../../config/x.json", "../x.json", "..", ".", "a/b.json", ""] {
            #expect(throws: ToolError.self, "\(name)") { try directory.write(Data("{}".utf8), to: name) }
            #expect(throws: ToolError.self, "\(name)") { try directory.read(name, trust: .file) }
        }
        #expect(!FileManager.default.fileExists(atPath: home.url.appendingPathComponent("x.json").path))
        try directory.write(Data("{}".utf8), to: "gen0000000000000000010.json")
        #expect(try directory.read("gen0000000000000000010.json", trust: .file) == Data("{}".utf8))
    }
}
