import Foundation
import Testing

@testable import ToolkitCLI
@testable import ToolkitCore

/// `spotify-nowplaying history` (print, sync, import), the log's file and its damage, plays piped
/// into playlist writes, songcount and routine-link, and `pause --at-end`/`--after`, in process
/// against an in-process fake-spotify. Processes writing the log at once, the watch's part and
/// Ctrl-C are ListeningLogEndToEndTests.
@Suite(.tags(.medium)) struct ListeningLogCommandTests {
    static let scope =
        """
        user-read-currently-playing user-read-playback-state user-modify-playback-state user-read-recently-played \
        playlist-read-private playlist-read-collaborative playlist-modify-private playlist-modify-public
        """

    static func library() async throws -> Library { try await Library(scope: scope) }

    static func logPath(_ library: Library) -> String {
        library.fake.home.url.appendingPathComponent("data/spotify-toolkit/listening-log.jsonl").path
    }

    static func logLines(_ library: Library) -> [String] {
        ((try? String(contentsOfFile: logPath(library), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    static func nowplaying(_ library: Library, _ arguments: [String], stdin: String? = nil) async throws -> ToolRun {
        try await library.run("spotify-nowplaying", arguments, stdin: stdin, environment: ["TZ": "UTC"])
    }

    static func requests(_ library: Library, _ route: String) async throws -> Int {
        try await library.counters()["requests"]?[route]?.intValue ?? 0
    }

    // MARK: sync

    @Test func syncRunTwiceHoldsEachRecentPlayOnceAndCostsOneRequestWhenNothingIsNew() async throws {
        let library = try await Self.library()
        defer { library.fake.stop() }
        // Two 45-second songs at 200 times the speed, paused for now; pages of three plays.
        try await library.fake.call(
            "POST", "/_fake/playback",
            form: [("durations", "45,45"), ("speed", "200"), ("playing", "false"), ("page_size", "3")])
        try await library.fake.call("POST", "/_fake/playback/history", form: [("count", "8")])
        let first = try await Self.nowplaying(library, ["history", "sync"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("added 8 plays"), "\(first.stderr)")
        #expect(try await Self.requests(library, "GET /v1/me/player/recently-played") == 3)

        try await library.fake.call("POST", "/_fake/reset-counters")
        let second = try await Self.nowplaying(library, ["history", "sync"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("added 0 plays"), "\(second.stderr)")
        #expect(second.stderr.contains("(3 already there)"), "\(second.stderr)")
        #expect(try await Self.requests(library, "GET /v1/me/player/recently-played") == 1)
        #expect(Self.logLines(library).count == 8)

        // What history prints is what recent printed, with ms_played (unknown: null) and its origin.
        let recent = try records(try await Self.nowplaying(library, ["recent"]))
        let logged = try records(try await Self.nowplaying(library, ["history"]))
        #expect(logged.count == 8)
        #expect(logged.map { $0["played_at"] } == recent.map { $0["played_at"] })
        #expect(logged.map { $0["uri"] } == recent.map { $0["uri"] })
        #expect(logged.allSatisfy { $0["ms_played"] == .null && $0["logged_from"] == "recently_played" })
        #expect(logged.first?["duration_ms"] != nil)

        // Two songs played since, three a page: the first page reaches what the log has, and ends the sync.
        try await library.fake.call("POST", "/_fake/playback/resume")
        var state = try await library.fake.call("GET", "/_fake/playback")
        for _ in 0..<200 where state["mode"] != "nothing" {
            try await Task.sleep(nanoseconds: 20_000_000)
            state = try await library.fake.call("GET", "/_fake/playback")
        }
        try await library.fake.call("POST", "/_fake/reset-counters")
        let third = try await Self.nowplaying(library, ["history", "sync"])
        #expect(third.stderr.contains("added 2 plays"), "\(third.stderr)")
        #expect(try await Self.requests(library, "GET /v1/me/player/recently-played") == 1)
        #expect(Self.logLines(library).count == 10)
        let mode = try FileManager.default.attributesOfItem(atPath: Self.logPath(library))[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    // MARK: import

    static let audio = """
        [{"ts":"2024-01-31T23:59:59Z","ms_played":212000,"master_metadata_track_name":"Sunrise Drive",\
        "master_metadata_album_artist_name":"The Fixtures","master_metadata_album_album_name":"Fake Mornings",\
        "spotify_track_uri":"spotify:track:0FakeTrack000000000000","episode_name":null,"episode_show_name":null,\
        "spotify_episode_uri":null,"reason_start":"trackdone","reason_end":"trackdone","shuffle":false,\
        "skipped":false,"offline":false},
        {"ts":"2024-02-01T00:03:40Z","ms_played":9000,"master_metadata_track_name":"Coffee First",\
        "master_metadata_album_artist_name":"Mock Orchestra","master_metadata_album_album_name":"Fake Mornings",\
        "spotify_track_uri":"spotify:track:0FakeTrack000000000001","episode_name":null,"episode_show_name":null,\
        "spotify_episode_uri":null,"reason_start":"trackdone","reason_end":"fwdbtn","shuffle":false,\
        "skipped":true,"offline":false},
        {"ts":"2024-02-01T07:10:03Z","ms_played":1800000,"master_metadata_track_name":null,\
        "master_metadata_album_artist_name":null,"master_metadata_album_album_name":null,"spotify_track_uri":null,\
        "episode_name":"Episode 12","episode_show_name":"The Show",\
        "spotify_episode_uri":"spotify:episode:0FakeEpisode0000000012","reason_start":"clickrow",\
        "reason_end":"logout","shuffle":false,"skipped":null,"offline":false},
        {"ts":"2024-02-01T08:00:00Z","ms_played":3000,"master_metadata_track_name":null,\
        "master_metadata_album_artist_name":null,"master_metadata_album_album_name":null,"spotify_track_uri":null,\
        "episode_name":null,"episode_show_name":null,"spotify_episode_uri":null,"reason_start":"appload",\
        "reason_end":"fwdbtn","shuffle":true,"skipped":true,"offline":false}]
        """

    static let accountData = """
        [{"endTime":"2024-03-01 10:00","artistName":"Mock Orchestra","trackName":"Late Bus","msPlayed":238000},
        {"endTime":"2024-03-01 10:04","artistName":"The Fixtures","trackName":"Green Light","msPlayed":205000}]
        """

    @Test func importingTheDownloadTwiceHoldsEachEntryOnceWithUriTimeAndMsPlayed() async throws {
        let library = try await Self.library()
        defer { library.fake.stop() }
        let files = try TemporaryDirectory()
        let audio = try files.file("Streaming_History_Audio_2024.json", contents: Self.audio)
        let account = try files.file("StreamingHistory_music_0.json", contents: Self.accountData)
        let first = try await Self.nowplaying(library, ["history", "import", audio, account])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("imported 5 plays"), "\(first.stderr)")
        #expect(first.stderr.contains("1 entry named no track or episode"), "\(first.stderr)")
        let again = try await Self.nowplaying(library, ["history", "import", audio, account])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("imported 0 plays"), "\(again.stderr)")
        #expect(again.stderr.contains("(5 already there"), "\(again.stderr)")
        #expect(Self.logLines(library).count == 5)

        let logged = try records(try await Self.nowplaying(library, ["history"]))
        #expect(
            logged.map { $0["played_at"] } == [
                "2024-01-31T23:59:59Z", "2024-02-01T00:03:40Z", "2024-02-01T07:10:03Z", "2024-03-01T10:00:00Z",
                "2024-03-01T10:04:00Z",
            ])
        #expect(logged[0]["uri"] == "spotify:track:0FakeTrack000000000000")
        // --format: the log as a playlist file, as every command printing plays takes it.
        let m3u = try await Self.nowplaying(library, ["history", "--format", "m3u"])
        #expect(m3u.status == 0 && m3u.stdout.hasPrefix("#EXTM3U\n"), "\(m3u.stderr)")
        #expect(m3u.stdout.contains("spotify:track:0FakeTrack000000000000\n"), "\(m3u.stdout)")
        let refused = try await Self.nowplaying(library, ["history", "sync", "--format", "m3u"])
        #expect(refused.status == 64 && refused.stderr.contains("--format"), "\(refused.stderr)")
        #expect(logged[0]["ms_played"] == 212_000)
        #expect(logged[1]["skipped"] == true)
        #expect(logged[2]["uri"] == "spotify:episode:0FakeEpisode0000000012")
        #expect(logged[3]["uri"] == .null)
        #expect(logged[3]["ms_played"] == 238_000)

        // A window: the first of February (UTC), since included, until excluded.
        let february = try records(
            try await Self.nowplaying(library, ["history", "--since", "2024-02-01", "--until", "2024-02-01T07:10:03Z"]))
        #expect(february.map { $0["name"] } == ["Coffee First"])
        let none = try await Self.nowplaying(library, ["history", "--since", "2030-01-01"])
        #expect(none.status == 1)
        #expect(none.stdout.isEmpty)

        // On a terminal: a line a play.
        let human = try await library.run(
            "spotify-nowplaying", ["history", "--until", "2024-02-01"], environment: ["TZ": "UTC"],
            terminal: Terminal(stdinIsTerminal: false, stdoutIsTerminal: true, stderrIsTerminal: false))
        #expect(human.stdout == "2024-01-31 23:59:59  Sunrise Drive — The Fixtures\n")
    }

    @Test func aDamagedDownloadNamesTheFileAndEntryAndImportsNothing() async throws {
        let library = try await Self.library()
        defer { library.fake.stop() }
        let files = try TemporaryDirectory()
        let good = try files.file("Streaming_History_Audio_2024.json", contents: Self.audio)
        let badEntry = try files.file(
            "Streaming_History_Audio_2025.json",
            contents: #"[{"ts":"2025-01-01T00:00:00Z","ms_played":1},{"ts":"soon","ms_played":2}]"#)
        let notJSON = try files.file("endsong_0.json", contents: "[{\"ts\": ")
        let bad = try await Self.nowplaying(library, ["history", "import", good, badEntry])
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("Streaming_History_Audio_2025.json: entry 2: ts is not an ISO 8601 time"))
        #expect(bad.stderr.contains("nothing was imported"))
        let cut = try await Self.nowplaying(library, ["history", "import", notJSON])
        #expect(cut.status == 65)
        #expect(cut.stderr.contains("endsong_0.json: not JSON"), "\(cut.stderr)")
        let missing = try await Self.nowplaying(library, ["history", "import", files.path + "/nope.json"])
        #expect(missing.status == 66)
        #expect(Self.logLines(library).isEmpty)
    }

    @Test func aDamagedLogIsAnErrorNamingTheLineAndIsLeftAsItIs() async throws {
        let library = try await Self.library()
        defer { library.fake.stop() }
        let files = try TemporaryDirectory()
        let audio = try files.file("Streaming_History_Audio_2024.json", contents: Self.audio)
        _ = try await Self.nowplaying(library, ["history", "import", audio])
        // A line cut short (a full disk), then the log goes on.
        let handle = try #require(FileHandle(forWritingAtPath: Self.logPath(library)))
        handle.seekToEndOfFile()
        handle.write(Data((#"{"type":"played","uri":"spotify:tr"# + "\n").utf8))
        handle.write(Data((Self.logLines(library)[0] + "\n").utf8))
        handle.closeFile()
        let before = try Data(contentsOf: URL(fileURLWithPath: Self.logPath(library)))

        let shown = try await Self.nowplaying(library, ["history"])
        #expect(shown.status == 65)
        #expect(shown.stderr.contains("listening-log.jsonl: line 4: not a played record"), "\(shown.stderr)")
        try await library.fake.call("POST", "/_fake/reset-counters")
        let sync = try await Self.nowplaying(library, ["history", "sync"])
        #expect(sync.status == 65)
        #expect(try await Self.requests(library, "GET /v1/me/player/recently-played") == 0)
        let imported = try await Self.nowplaying(library, ["history", "import", audio])
        #expect(imported.status == 65)
        #expect(try Data(contentsOf: URL(fileURLWithPath: Self.logPath(library))) == before)
    }

    // MARK: Plays are items

    @Test func whatPlaysAndWhatWasPlayedGoStraightIntoAPlaylist() async throws {
        let library = try await Self.library()
        defer { library.fake.stop() }
        let target = generated(3)
        let before = try records(try await library.tracks(["--no-cache", target])).count
        try await library.fake.call("POST", "/_fake/playback", form: [("position_ms", "83000"), ("speed", "0.001")])
        // spotify-nowplaying --json | spotify-playlists add P
        let playing = try await Self.nowplaying(library, ["--json"])
        #expect(playing.status == 0, "\(playing.stderr)")
        let added = try await library.run("spotify-playlists", ["add", target], stdin: playing.stdout)
        #expect(added.status == 0, "\(added.stderr)")
        var uris = try records(try await library.tracks(["--no-cache", target])).compactMap { $0["uri"]?.stringValue }
        #expect(uris.count == before + 1)
        #expect(uris.last == "spotify:track:0FakeTrack000000000000")

        // spotify-nowplaying recent | head -2 | spotify-playlists add P
        try await library.fake.call("POST", "/_fake/playback/history", form: [("count", "5")])
        let recent = try await Self.nowplaying(library, ["recent"])
        let two = recent.stdoutLines.prefix(2).joined(separator: "\n") + "\n"
        let addedTwo = try await library.run("spotify-playlists", ["add", target], stdin: two)
        #expect(addedTwo.status == 0, "\(addedTwo.stderr)")
        uris = try records(try await library.tracks(["--no-cache", target])).compactMap { $0["uri"]?.stringValue }
        #expect(uris.count == before + 3)
        #expect(Array(uris.suffix(2)) == (try records(recent)).prefix(2).compactMap { $0["uri"]?.stringValue })

        // routine-link link takes what plays as the track to link.
        let routines = ["XDG_DATA_HOME": library.fake.home.url.appendingPathComponent("data").path]
        _ = try await library.run("routine-link", ["add", "tea", "--duration", "4m"], environment: routines)
        let linked = try await library.run(
            "routine-link", ["link", "tea"], stdin: playing.stdout, environment: routines)
        #expect(linked.status == 0, "\(linked.stderr)")
        #expect(try records(linked).first?["playlist"]?["uri"] == "spotify:track:0FakeTrack000000000000")
    }

    @Test func songcountCountsPlaysByTheirDurationAndSaysWhyImportedOnesAreSkipped() async throws {
        let library = try await Self.library()
        defer { library.fake.stop() }
        try await library.fake.call("POST", "/_fake/playback", form: [("mode", "nothing")])
        try await library.fake.call("POST", "/_fake/playback/history", form: [("count", "3")])
        _ = try await Self.nowplaying(library, ["history", "sync"])
        let files = try TemporaryDirectory()
        _ = try await Self.nowplaying(
            library, ["history", "import", try files.file("Streaming_History_Audio_2024.json", contents: Self.audio)])
        let log = try await Self.nowplaying(library, ["history"])
        let counted = try await InProcess.run("songcount", ["--label"], stdin: log.stdout)
        #expect(counted.stdout == "3 songs\n", "\(counted.stderr)")
        #expect(
            counted.stderr.contains("skipped 3 records of plays without the song's duration_ms"), "\(counted.stderr)")
        #expect(counted.stderr.contains("spotify-tracks"))
    }

    // MARK: Pausing after songs

    static func playbackState(_ library: Library) async throws -> (playing: Bool, index: Int, positionMs: Int) {
        let state = try await library.fake.call("GET", "/_fake/playback")
        return (
            state["is_playing"]?.boolValue ?? true, state["index"]?.intValue ?? -1,
            state["position_ms"]?.intValue ?? -1
        )
    }

    static let manySongs = Array(repeating: "30", count: 100).joined(separator: ",")

    @Test func pauseAtEndPausesAsThisSongEndsLookingOnlyNearIt() async throws {
        let library = try await Self.library()
        defer { library.fake.stop() }
        // 30-second songs at ten times the speed, the clock of the tool too: 1 s real a 10 s of song.
        // A hundred of them (five minutes of wall time), so a run that a loaded machine starts or
        // wakes late still finds one playing.
        try await library.fake.call(
            "POST", "/_fake/playback", form: [("durations", Self.manySongs), ("speed", "10"), ("position_ms", "12000")])
        let run = try await library.run(
            "spotify-nowplaying", ["pause", "--at-end"], environment: ["SPOTIFY_TOOLKIT_TIME_SCALE": "10"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("paused"), "\(run.stderr)")
        let state = try await Self.playbackState(library)
        #expect(!state.playing)
        // Never before the end of the first song (how soon after it is the machine's load: the end-to-end
        // test times it against the fake's clock).
        #expect((state.index == 0 && state.positionMs >= 20_000) || state.index >= 1, "\(state)")
        #expect(try await Self.requests(library, "GET /v1/me/player/currently-playing") <= 3)
        #expect(try await Self.requests(library, "PUT /v1/me/player/pause") == 1)
    }

    @Test func pauseAfterTwoSongsCountsTheOnePlayingAsTheFirst() async throws {
        let library = try await Self.library()
        defer { library.fake.stop() }
        try await library.fake.call(
            "POST", "/_fake/playback", form: [("durations", Self.manySongs), ("speed", "10"), ("position_ms", "20000")])
        let run = try await library.run(
            "spotify-nowplaying", ["pause", "--after", "2"], environment: ["SPOTIFY_TOOLKIT_TIME_SCALE": "10"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("after 2 songs"), "\(run.stderr)")
        let state = try await Self.playbackState(library)
        #expect(!state.playing)
        #expect((state.index == 1 && state.positionMs >= 20_000) || state.index >= 2, "\(state)")
        // 40 s of songs: a look at the start, after the first song, near the end of the second.
        #expect(try await Self.requests(library, "GET /v1/me/player/currently-playing") <= 4)

        try await library.fake.call("POST", "/_fake/playback", form: [("mode", "nothing")])
        let nothing = try await library.run("spotify-nowplaying", ["pause", "--at-end"])
        #expect(nothing.status == 1)
        #expect(nothing.stderr.contains("nothing playing"))
    }
}
