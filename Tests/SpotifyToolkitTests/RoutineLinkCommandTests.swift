import Foundation
import TestSupport
import Testing

@testable import LoopbackHTTP
@testable import ToolkitCore

/// routine-link's home (TestSupport), with routine-link run in process.
extension RoutineHome {
    convenience init() throws { try self.init(onPath: []) }

    @discardableResult
    func rl(_ arguments: [String], stdin: String = "", _ extra: [String: String] = [:]) async throws -> ToolRun {
        try await InProcess.run("routine-link", arguments, stdin: stdin, environment: environment(extra))
    }

    func records(_ arguments: [String], _ extra: [String: String] = [:]) async throws -> [JSONValue] {
        let result = try await rl(arguments, extra)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try result.stdoutLines.map { try JSONValue.parse($0) }
    }
}

/// routine-link's routines, links, sessions and store, in process. A terminal's question, twenty
/// writers at once and kill -9 stay end to end (RoutineLinkEndToEndTests).
@Suite(.tags(.medium)) struct RoutineLinkCommandTests {
    static let playlist = RoutineHome.playlistURI

    // MARK: Routines

    @Test func addListShowRenameRemoveWithRecordsAndExitCodes() async throws {
        let home = try RoutineHome()
        let added = try await home.records(["add", "Morning", "--duration", "15m", "--note", "stretch, then coffee"])
        #expect(added.count == 1)
        #expect(
            added[0].objectValue?.keys == [
                "type", "name", "duration_ms", "note", "playlist", "created_at", "session_count",
            ])
        #expect(added[0]["type"] == "routine")
        #expect(added[0]["duration_ms"] == 900_000)
        #expect(added[0]["playlist"] == .null)
        #expect(parseISOTimestamp(added[0]["created_at"]?.stringValue ?? "") != nil)

        let duplicate = try await home.rl(["add", "MORNING"])
        #expect(duplicate.status == 65)
        #expect(
            duplicate.stderr == "routine-link: a routine named 'Morning' already exists (names are case-insensitive)\n")
        #expect(try await home.rl(["add", "x", "--duration", "soon"]).status == 64)
        #expect(try await home.rl(["add", "x", "--duration", "0"]).status == 64)
        #expect(try await home.rl(["add", " "]).status == 64)
        #expect(try await home.records(["add", "夜のルーティン 🌙"]).first?["name"] == "夜のルーティン 🌙")

        #expect(try await home.records(["list"]).map { $0["name"]?.stringValue ?? "" } == ["Morning", "夜のルーティン 🌙"])
        #expect(try await home.records(["show", "morning"]).first?["note"] == "stretch, then coffee")
        let missing = try await home.rl(["show", "evening"])
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("routine-link: no routine named 'evening' (known: 'Morning', '夜のルーティン 🌙')"))

        let human = try await home.rl(["list"], ["SPOTIFY_TOOLKIT_FORCE_TTY": "1"])
        #expect(human.stdoutLines.first?.hasPrefix("NAME") == true)
        #expect(human.stdoutLines.count == 3)
        #expect(human.stdoutLines[1].hasPrefix("Morning ") && human.stdoutLines[1].contains(" 15:00 "))

        #expect(try await home.records(["rename", "MORNING", "Dawn"]).first?["name"] == "Dawn")
        #expect(try await home.rl(["rename", "dawn", "夜のルーティン 🌙"]).status == 65)

        let refused = try await home.rl(["remove", "dawn"], stdin: "y\n")
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("pass --yes"))
        #expect(try await home.records(["list"]).count == 2)
        let removed = try await home.rl(["remove", "dawn", "--yes"])
        #expect(removed.status == 0)
        #expect(removed.stdout == "")
        #expect(removed.stderr == "routine-link: removed 'Dawn' (no sessions)\n")
        #expect(try await home.records(["list"]).map { $0["name"]?.stringValue ?? "" } == ["夜のルーティン 🌙"])
        #expect(try await home.rl(["remove", "dawn", "--yes"]).status == 1)
    }

    // MARK: Links

    @Test func linkFromAnArgumentOrARecordUnlinkAndForget() async throws {
        let home = try RoutineHome()
        try await home.rl(["add", "a"])
        try await home.rl(["add", "b"])
        let offline = try await home.rl([
            "link", "a", "https://open.spotify.com/playlist/\(RoutineHome.playlistID)?si=abc",
        ])
        #expect(offline.status == 0)
        #expect(
            offline.stderr.hasPrefix(
                "routine-link: linked the playlist id alone, without its name and cover: not logged in"))
        let linked = try JSONValue.parse(offline.stdout)
        #expect(
            linked["playlist"] == [
                "id": .string(RoutineHome.playlistID), "uri": .string(Self.playlist), "name": .null, "image_url": .null,
                "duration_ms": .null,
            ])

        let record =
            #"{"type":"playlist","id":"37i9dQZF1DXcBWIGoYBM5M","uri":"spotify:playlist:37i9dQZF1DXcBWIGoYBM5M","name":"Today's Top Hits","images":[{"url":"https://i.scdn.co/image/small","height":60,"width":60},{"url":"https://i.scdn.co/image/large","height":640,"width":640}]}"#
        let fromStdin = try await home.rl(["link", "B"], stdin: record + "\n")
        #expect(fromStdin.status == 0, "\(fromStdin.stderr)")
        #expect(fromStdin.stderr == "")
        #expect(
            try JSONValue.parse(fromStdin.stdout)["playlist"] == [
                "id": "37i9dQZF1DXcBWIGoYBM5M", "uri": "spotify:playlist:37i9dQZF1DXcBWIGoYBM5M",
                "name": "Today's Top Hits", "image_url": "https://i.scdn.co/image/large", "duration_ms": .null,
            ])

        // A single song can be linked too (offline: the id alone); an artist cannot.
        #expect(try await home.rl(["link", "a", "spotify:track:4iV5W9uYEdYUVa79Axb7Rh"]).status == 0)
        #expect(try await home.rl(["link", "a", "spotify:artist:4iV5W9uYEdYUVa79Axb7Rh"]).status == 64)
        let twoRecords = try await home.rl(["link", "a"], stdin: record + "\n" + record + "\n")
        #expect(twoRecords.status == 65)
        let wrongType = try await home.rl(
            ["link", "a"], stdin: "{\"type\":\"artist\",\"id\":\"4iV5W9uYEdYUVa79Axb7Rh\"}\n")
        #expect(wrongType.status == 65)
        #expect(
            wrongType.stderr.contains("line 1: an artist record, not a playlist, album or track"), "\(wrongType.stderr)"
        )
        #expect(try await home.rl(["link", "a"], stdin: "").status == 1)
        #expect(try await home.rl(["link", "nobody", Self.playlist]).status == 1)

        let unlinked = try await home.records(["unlink", "a"])
        #expect(unlinked.first?["playlist"] == .null)
        try await home.rl(["link", "a", Self.playlist])
        try await home.rl(["start", "a"])
        let forgot = try await home.rl(["forget-links"])
        #expect(
            forgot.stderr == "routine-link: cleared the playlist links of 2 routines; routines and sessions are kept\n")
        let after = try await home.records(["list"])
        #expect(after.count == 2)
        #expect(after.allSatisfy { $0["playlist"] == .null })
        // History keeps what was played.
        #expect(try await home.records(["history"]).first?["playlist"]?["id"] == .string(RoutineHome.playlistID))
    }

    @Test func spotifyAuthLogoutForgetLinksClearsThemToo() async throws {
        let home = try RoutineHome()
        try await home.rl(["add", "a"])
        try await home.rl(["link", "a", Self.playlist])
        let logout = try await InProcess.run(
            "spotify-auth", ["logout", "--forget-links"], environment: home.environment())
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(logout.stderr.contains("cleared the playlist links of 1 routine; routines and sessions are kept"))
        #expect(try await home.records(["show", "a"]).first?["playlist"] == .null)
        // Without a store there is nothing to clear and nothing is created.
        let fresh = try RoutineHome()
        #expect(
            try await InProcess.run("spotify-auth", ["logout", "--forget-links"], environment: fresh.environment())
                .status
                == 0)
        #expect(fresh.storeBytes == nil)
    }

    /// GET /playlists/{id} fills in the name and cover. This branch's fake-spotify has no playlist
    /// routes yet, so a loopback stub answers with Spotify's playlist shape.
    @Test func linkWithAnIDFetchesTheNameAndCoverWhenSpotifyIsThere() async throws {
        let home = try RoutineHome()
        try await home.rl(["add", "a"])
        let hits = Locked(Data())
        let server = try LoopbackHTTPServer { request in
            let seen = request.path + "?" + request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            hits.withLock { $0 = Data(seen.utf8) }
            guard request.path == "/v1/playlists/\(RoutineHome.playlistID)" else {
                return .json(#"{"error":{"status":404,"message":"Not found."}}"#, status: 404)
            }
            return .json(
                #"{"id":"3cEYpjA9oz9GiPac4AsH4n","uri":"spotify:playlist:3cEYpjA9oz9GiPac4AsH4n","name":"Morning Mix","images":[{"url":"https://mosaic.scdn.co/640/abc","height":640,"width":640}]}"#
            )
        }
        server.start()
        defer { server.stop() }
        let env = ["SPOTIFY_API_BASE": "http://127.0.0.1:\(server.port)/v1", "SPOTIFY_ACCESS_TOKEN": "test-token"]
        let linked = try await home.rl(["link", "a", RoutineHome.playlistID], env)
        #expect(linked.status == 0, "\(linked.stderr)")
        #expect(linked.stderr == "")
        #expect(
            try JSONValue.parse(linked.stdout)["playlist"] == [
                "id": .string(RoutineHome.playlistID), "uri": .string(Self.playlist), "name": "Morning Mix",
                "image_url": "https://mosaic.scdn.co/640/abc", "duration_ms": .null,
            ])
        #expect(
            String(decoding: hits.withLock { $0 }, as: UTF8.self)
                == "/v1/playlists/\(RoutineHome.playlistID)?fields=id,uri,name,images")
        let unknown = try await home.rl(["link", "a", "0000000000000000000000"], env)
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("Spotify has no playlist 0000000000000000000000"))
        // The failed link changed nothing.
        #expect(try await home.records(["show", "a"]).first?["playlist"]?["name"] == "Morning Mix")

        // Logged in but offline: the id alone, and it says so.
        let offline = try await home.rl(["link", "a", RoutineHome.playlistID], ["SPOTIFY_ACCESS_TOKEN": "test-token"])
        #expect(offline.status == 0)
        #expect(offline.stderr.hasPrefix("routine-link: linked the playlist id alone, without its name and cover: "))
    }

    // MARK: Opening

    @Test func openHandsTheWebLinkOrTheURIToTheBrowser() async throws {
        let home = try RoutineHome()
        try await home.rl(["add", "m"])
        let none = try await home.rl(["open", "m"])
        #expect(none.status == 1)
        #expect(
            none.stderr == "routine-link: 'm' has no playlist linked; link one with: routine-link link 'm' PLAYLIST\n")
        #expect(home.browserCalls.isEmpty)

        try await home.rl(["link", "m", Self.playlist])
        #expect(try await home.rl(["open", "m"]).status == 0)
        #expect(home.browserCalls == ["https://open.spotify.com/playlist/\(RoutineHome.playlistID)"])
        try "spotify-client.desktop\n".write(toFile: home.home.path + "/handler", atomically: true, encoding: .utf8)
        #expect(try await home.rl(["open", "m"]).status == 0)
        #expect(home.browserCalls.last == Self.playlist)

        let printed = try await home.rl(["open", "m", "--print"])
        #expect(printed.stdout == Self.playlist + "\n")
        #expect(home.browserCalls.count == 2)

        // $BROWSER is a list tried in order; %s marks the link.
        #expect(try await home.rl(["open", "m"], ["BROWSER": "false:\(home.recorder) %s"]).status == 0)
        #expect(home.browserCalls.count == 3)
        // Nothing works (the fake xdg-open fails too): 69 with the link to open by hand.
        let failed = try await home.rl(["open", "m"], ["BROWSER": "false"])
        #expect(failed.status == 69)
        #expect(
            failed.stderr.contains("could not open \(Self.playlist) (false: exit status 1; xdg-open: exit status 3)"))
    }

    @Test func startRecordsASessionAndOpensThePlaylist() async throws {
        let home = try RoutineHome()
        try await home.rl(["add", "m", "--duration", "10m"])
        let bare = try await home.rl(["start", "m"])
        #expect(bare.status == 0)
        #expect(bare.stderr.contains("'m' has no playlist linked; nothing to open"))
        try await home.rl(["link", "m", Self.playlist])
        let started = try await home.rl(["start", "m"])
        #expect(started.status == 0, "\(started.stderr)")
        #expect(started.stderr.contains("closed the earlier session (started "), "\(started.stderr)")
        #expect(started.stderr.contains("which was never logged; history shows it as not logged"))
        let session = try JSONValue.parse(started.stdout)
        #expect(session["type"] == "session")
        #expect(session["ended_at"] == .null)
        #expect(session["playlist"]?["uri"] == .string(Self.playlist))
        #expect(home.browserCalls == ["https://open.spotify.com/playlist/\(RoutineHome.playlistID)"])
        // Opening failed: the session stands, the message names the link.
        let unopened = try await home.rl(["start", "m"], ["BROWSER": "false"])
        #expect(unopened.status == 0)
        #expect(unopened.stderr.contains("could not open https://open.spotify.com/playlist/"))
        #expect(try await home.records(["history", "m"]).count == 3)
    }

    // MARK: Logging

    @Test func logEndsTheRunningSessionWithTheSongCount() async throws {
        let home = try RoutineHome()
        try await home.rl(["add", "m", "--duration", "15m"])
        try await home.rl(["link", "m", Self.playlist])
        try await home.rl(["start", "m"])
        let count =
            #"{"type":"song_count","track_count":5,"total_duration_ms":1000000,"listened_ms":900000,"songs":4.38,"label":"4.5 songs"}"#
        let logged = try await home.rl(["log", "M"], stdin: count + "\n")
        #expect(logged.status == 0, "\(logged.stderr)")
        let session = try JSONValue.parse(logged.stdout)
        #expect(session["songs"] == 4.38)
        #expect(session["label"] == "4.5 songs")
        #expect(session["ended_at"] != .null)
        #expect(try await home.records(["history"]).count == 1)

        // No running session: a finished one is recorded.
        #expect(try await home.rl(["log", "m"], stdin: count + "\n").status == 0)
        let history = try await home.records(["history"])
        #expect(history.count == 2)
        #expect(history.allSatisfy { $0["label"] == "4.5 songs" })

        let nothing = try await home.rl(["log", "m"], stdin: "")
        #expect(nothing.status == 1)
        #expect(nothing.stderr == "routine-link: no song_count record on standard input; nothing logged\n")
        let forgotSongcount = try await home.rl(
            ["log", "m"], stdin: #"{"type":"now_playing","name":"x","duration_ms":1000}"# + "\n")
        #expect(forgotSongcount.status == 65)
        #expect(forgotSongcount.stderr.contains("line 1: a now_playing record, not a song_count record"))
        #expect(try await home.rl(["log", "m"], stdin: "garbage\n").status == 65)
        #expect(try await home.records(["history"]).count == 2)

        let table = try await home.rl(["history"], ["SPOTIFY_TOOLKIT_FORCE_TTY": "1"])
        #expect(table.stdoutLines.first?.hasPrefix("STARTED") == true)
        #expect(table.stdoutLines.count == 3)
        #expect(table.stdout.contains("4.5 songs"))
    }

    /// The documented pipeline, with songcount's real output.
    @Test func thePipelineIntoLogWorksAndNothingHeardLogsNothing() async throws {
        let home = try RoutineHome()
        try await home.rl(["add", "m"])
        let env = home.environment()
        let tracks =
            #"{"type":"track","id":"a","duration_ms":180000}\n{"type":"track","id":"b","duration_ms":200000}\n"#
        // printf TRACKS | songcount | routine-link log m
        let counted = try await InProcess.run(
            "songcount", [], stdin: tracks.replacingOccurrences(of: "\\n", with: "\n"), environment: env)
        let heard = try await home.rl(["log", "m"], stdin: counted.stdout)
        #expect(heard.status == 0, "\(heard.stderr)")
        #expect(try JSONValue.parse(heard.stdout)["label"] == "2 songs")
        // printf '' | songcount | routine-link log m
        let silent = try await home.rl(
            ["log", "m"], stdin: try await InProcess.run("songcount", [], stdin: "", environment: env).stdout)
        #expect(silent.status == 1)
        #expect(silent.stderr.contains("nothing logged"))
        #expect(try await home.records(["history"]).count == 1)
    }

    @Test func aCorruptOrNewerStoreIsNamedAndLeftByteIdentical() async throws {
        for (contents, status, phrase) in [
            ("{\"routines\": [ this is not json", Int32(65), "cannot be read"),
            (
                "{\"routines\":[],\"schema_version\":7,\"from\":\"the future\"}\n", Int32(78),
                "newer spotify-toolkit (schema_version 7"
            ),
        ] {
            let home = try RoutineHome()
            try FileManager.default.createDirectory(
                atPath: home.home.path + "/data/spotify-toolkit", withIntermediateDirectories: true)
            try contents.write(toFile: home.storePath, atomically: true, encoding: .utf8)
            chmod(home.storePath, 0o600)
            for arguments in [
                ["list"], ["add", "x"], ["link", "x", Self.playlist], ["forget-links"], ["history"], ["start", "x"],
            ] {
                let result = try await home.rl(arguments)
                #expect(result.status == status, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains(home.storePath) && result.stderr.contains(phrase), "\(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1)
            }
            let logout = try await InProcess.run(
                "spotify-auth", ["logout", "--forget-links"], environment: home.environment())
            #expect(logout.status == status)
            #expect(home.storeBytes == Data(contents.utf8))
        }
    }

    @Test func aVersion0StoreIsMigrated() async throws {
        let home = try RoutineHome()
        try FileManager.default.createDirectory(
            atPath: home.home.path + "/data/spotify-toolkit", withIntermediateDirectories: true)
        try
            #"{"schema_version":0,"routines":{"morning":{"duration_seconds":900,"playlist_uri":"spotify:playlist:3cEYpjA9oz9GiPac4AsH4n"}}}"#
            .write(toFile: home.storePath, atomically: true, encoding: .utf8)
        chmod(home.storePath, 0o600)
        let listed = try await home.records(["list"])
        #expect(listed.count == 1)
        #expect(listed[0]["duration_ms"] == 900_000)
        #expect(listed[0]["playlist"]?["uri"] == .string(Self.playlist))
        try await home.rl(["add", "evening"])
        let saved = try JSONValue.parse(String(decoding: home.storeBytes ?? Data(), as: UTF8.self))
        #expect(saved["schema_version"] == 1)
        #expect(saved["routines"]?.arrayValue?.count == 2)
    }

    @Test func everythingButTheNetworkWorksOffline() async throws {
        // The API base is a closed port: add, link by id, start, log and history still work.
        let home = try RoutineHome()
        try await home.rl(["add", "m"])
        #expect(try await home.rl(["link", "m", Self.playlist], ["SPOTIFY_ACCESS_TOKEN": "x"]).status == 0)
        #expect(try await home.rl(["start", "m"]).status == 0)
        #expect(
            try await home.rl(["log", "m"], stdin: #"{"type":"song_count","songs":1,"label":"1 song"}"# + "\n").status
                == 0)
        #expect(try await home.records(["history"]).count == 1)
    }
}

/// start --play against an in-process fake-spotify; `run`, which spawns the watch and songcount,
/// stays end to end (RoutineLinkSpotifyTests).
@Suite(.tags(.medium)) struct RoutineLinkPlayCommandTests {
    static let allScopes =
        "user-read-currently-playing user-read-playback-state user-modify-playback-state user-read-recently-played"

    /// A fake, a routine home and a routine 'morning' linked to a playlist with a name.
    struct Setup {
        let fake: InProcessFake
        let home: RoutineHome
        let environment: [String: String]

        init(scope: String = RoutineLinkPlayCommandTests.allScopes) async throws {
            fake = try InProcessFake()
            let minted = try await fake.call("POST", "/_fake/tokens", form: [("scope", scope)])
            home = try RoutineHome()
            let homeEnvironment = home.environment()
            environment = [
                "SPOTIFY_ACCESS_TOKEN": minted["access_token"]?.stringValue ?? "",
                "BROWSER": homeEnvironment["BROWSER"] ?? "", "PATH": homeEnvironment["PATH"] ?? "",
            ]
            _ = try await rl(["add", "morning", "--duration", "15m"])
            // A record with a name: no GET /playlists/{id}.
            let record =
                #"{"type":"playlist","id":"3cEYpjA9oz9GiPac4AsH4n","uri":"spotify:playlist:3cEYpjA9oz9GiPac4AsH4n","name":"Morning Mix","images":[]}"#
            let linked = try await rl(["link", "morning"], stdin: record + "\n")
            #expect(linked.status == 0, "\(linked.stderr)")
        }

        func rl(_ arguments: [String], stdin: String = "") async throws -> ToolRun {
            try await fake.run("routine-link", arguments, stdin: stdin, environment: environment)
        }
    }

    @Test func startPlayAsksSpotifyAndFallsBackToOpeningWhenRefused() async throws {
        let setup = try await Setup()
        let (fake, home) = (setup.fake, setup.home)
        defer { fake.stop() }
        let played = try await setup.rl(["start", "morning", "--play"])
        #expect(played.status == 0, "\(played.stderr)")
        #expect(played.stderr.contains("playing"))
        #expect(home.browserCalls.isEmpty)
        let commands = try #require(try await fake.call("GET", "/_fake/playback")["commands"]?.arrayValue)
        #expect(commands.last?["body"] == ["context_uri": .string(RoutineHome.playlistURI)])

        for (answer, why) in [("premium_required", "PREMIUM_REQUIRED"), ("no_active_device", "NO_ACTIVE_DEVICE")] {
            try await fake.call("POST", "/_fake/playback/answer", form: [("answer", answer)])
            let before = home.browserCalls.count
            let fellBack = try await setup.rl(["start", "morning", "--play"])
            #expect(fellBack.status == 0, "\(answer): \(fellBack.stderr)")
            #expect(
                fellBack.stderr.contains("could not start playback, opening the playlist instead: ")
                    && fellBack.stderr.contains(why), "\(fellBack.stderr)")
            #expect(home.browserCalls.count == before + 1)
        }
        #expect(try JSONValue.parse(try await setup.rl(["history"]).stdoutLines.first ?? "")["type"] == "session")
        #expect(try await setup.rl(["history"]).stdoutLines.count == 3)
    }

    @Test func startPlayWithoutTheScopeOpensInstead() async throws {
        let setup = try await Setup(scope: "user-read-currently-playing")
        defer { setup.fake.stop() }
        let result = try await setup.rl(["start", "morning", "--play"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("spotify-auth login --scope playback"))
        #expect(setup.home.browserCalls == ["https://open.spotify.com/playlist/\(RoutineHome.playlistID)"])
    }
}
