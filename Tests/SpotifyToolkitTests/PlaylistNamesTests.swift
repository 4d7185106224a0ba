import Foundation
import Testing

@testable import FakeSpotify
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// Playlists named by their names.
@Suite(.tags(.medium)) struct PlaylistNamesTests {
    typealias Listed = PlaylistNames.Listed
    static let library = [
        Listed(id: "id1", name: "Morning"), Listed(id: "id2", name: "morning run"), Listed(id: "id3", name: "Évening"),
        Listed(id: "id4", name: "Dup"), Listed(id: "id5", name: "Dup"), Listed(id: "id6", name: "CASE"),
        Listed(id: "id7", name: "case"),
    ]

    @Test func exactFirstThenAnyCase() throws {
        #expect(try PlaylistNames.match("Morning", among: Self.library) == "id1")
        #expect(try PlaylistNames.match("MORNING", among: Self.library) == "id1")
        #expect(try PlaylistNames.match("évening", among: Self.library) == "id3")
        #expect(try PlaylistNames.match("case", among: Self.library) == "id7", "the exact one wins")
    }

    @Test func severalOrNoneAreErrors() {
        #expect(throws: ToolError.self) { try PlaylistNames.match("Dup", among: Self.library) }
        #expect(throws: ToolError.self) { try PlaylistNames.match("Case", among: Self.library) }
        do {
            _ = try PlaylistNames.match("Dup", among: Self.library)
        } catch let error as ToolError {
            #expect(error.exitCode == .usage)
            #expect(error.message.contains("id4 Dup") && error.message.contains("id5 Dup"), "\(error.message)")
        } catch {}
        do {
            _ = try PlaylistNames.match("mornin", among: Self.library)
        } catch let error as ToolError {
            #expect(error.exitCode == .notFound)
            #expect(error.message.contains("did you mean 'Morning'"), "\(error.message)")
        } catch {}
    }

    @Test func theToolsTakeANameForAPlaylist() async throws {
        let library = try await Library()
        let byID = try await library.tracks([GeneratedLibrary.fixturePlaylistID])
        #expect(byID.status == 0)
        for name in ["Morning", "morning"] {
            let byName = try await library.tracks([name])
            #expect(byName.status == 0, "\(byName.stderr)")
            #expect(byName.stdout == byID.stdout)
        }
        let get = try await library.run("spotify-playlists", ["get", "Morning"])
        #expect(try records(get).first?["id"]?.stringValue == GeneratedLibrary.fixturePlaylistID, "\(get.stderr)")
        _ = try await library.run("routine-link", ["add", "morning", "--duration", "15m"])
        let linked = try await library.run("routine-link", ["link", "morning", "Morning"])
        #expect(linked.status == 0, "\(linked.stderr)")
        #expect(try records(linked).first?["playlist"]?["id"]?.stringValue == GeneratedLibrary.fixturePlaylistID)

        let unknown = try await library.tracks(["Mornin"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("none of your"), "\(unknown.stderr)")
        #expect(unknown.stderr.contains("did you mean 'Morning'"), "\(unknown.stderr)")
        // An id is an id, never looked up by name.
        let requests = try await library.counters()["requests"]?["GET /v1/me/playlists"]?.intValue ?? 0
        _ = try await library.tracks([GeneratedLibrary.fixturePlaylistID])
        #expect(try await library.counters()["requests"]?["GET /v1/me/playlists"]?.intValue ?? 0 == requests)
    }

    /// A playlist's name on standard input is read as an argument's is, when standard
    /// input holds all the sources (read as it arrives) and when `-` stands among arguments, whose
    /// sources are read too, in order.
    @Test func aNameOnStandardInputIsAPlaylistAsAnArgumentIs() async throws {
        let library = try await Library()
        let morning = try await library.tracks(["Morning"])
        let mixed = try await library.tracks(["Mixed Bag"])
        #expect(morning.status == 0 && mixed.status == 0 && !morning.stdout.isEmpty && !mixed.stdout.isEmpty)

        let piped = try await library.tracks([], stdin: "Morning\n")
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout == morning.stdout)
        let both = try await library.tracks(["Mixed Bag", "-"], stdin: "morning\n")
        #expect(both.status == 0, "\(both.stderr)")
        #expect(both.stdout == mixed.stdout + morning.stdout, "both playlists' items, in order")
        let get = try await library.run("spotify-playlists", ["get"], stdin: "Morning\n")
        #expect(try records(get).first?["id"]?.stringValue == GeneratedLibrary.fixturePlaylistID, "\(get.stderr)")

        let unknown = try await library.tracks([], stdin: "Mornin\n")
        #expect(unknown.status == 1, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("did you mean 'Morning'"), "\(unknown.stderr)")
        // What looks like a URI but is none is still bad input naming its line.
        let bad = try await library.tracks(["Mixed Bag", "-"], stdin: "spotify:playlist:nope\n")
        #expect(bad.status == 65, "\(bad.stderr)")
        #expect(bad.stderr.contains("standard input: line 1:"), "\(bad.stderr)")
    }

    /// `--offline` with a name makes no request: the name comes from the listing the last
    /// online run kept beside the cache; with none kept, it says how to get one (69), still offline.
    @Test func offlineResolvesANameFromTheKeptListingWithoutARequest() async throws {
        let library = try await Library()
        let cacheOn = ["SPOTIFY_TOOLKIT_CACHE_SIZE": ""]
        let notYet = try await library.tracks(["--offline", "Mixed Bag"], environment: cacheOn)
        #expect(notYet.status == 69, "\(notYet.stderr)")
        #expect(notYet.stderr.contains("names are not cached yet"), "\(notYet.stderr)")
        #expect(try await library.counters()["requests"]?["GET /v1/me/playlists"] == nil, "no request")

        let online = try await library.tracks(["Mixed Bag"], environment: cacheOn)
        #expect(online.status == 0, "\(online.stderr)")
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        let offline = try await library.tracks(["--offline", "Mixed Bag"], environment: cacheOn)
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(offline.stdout == online.stdout)
        let requests = try await library.counters()["requests"]?.objectValue ?? [:]
        #expect(requests.keys.filter { $0.contains("/v1/") }.isEmpty, "\(requests)")
    }

    @Test func aNameOfSeveralPlaylistsListsThem() async throws {
        let library = try await PlaylistWriteTests.editor()
        let first = try records(try await library.run("spotify-playlists", ["create", "--allow-empty", "Twice"]))
        let second = try records(try await library.run("spotify-playlists", ["create", "--allow-empty", "Twice"]))
        let run = try await library.tracks(["Twice"])
        #expect(run.status == 64)
        for record in first + second {
            #expect(run.stderr.contains(record["id"]?.stringValue ?? "?"), "\(run.stderr)")
        }
    }

    @Test func playTakesAPlaylistName() async throws {
        let fake = try InProcessFake()
        let minted = try await fake.call(
            "POST", "/_fake/tokens",
            form: [("scope", "playlist-read-private user-read-playback-state user-modify-playback-state")])
        let environment = ["SPOTIFY_ACCESS_TOKEN": minted["access_token"]?.stringValue ?? ""]
        try await fake.call("POST", "/_fake/playback", form: [("playing", "false")])
        let played = try await fake.run("spotify-nowplaying", ["play", "Morning"], environment: environment)
        #expect(played.status == 0, "\(played.stderr)")
        let commands = try await fake.call("GET", "/_fake/playback")["commands"]?.arrayValue ?? []
        let uri = commands.last?["body"]?["context_uri"]?.stringValue
        #expect(uri == "spotify:playlist:\(GeneratedLibrary.fixturePlaylistID)", "\(commands)")
    }
}
