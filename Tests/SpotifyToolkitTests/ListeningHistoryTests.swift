import Foundation
import Testing

@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// The listening log's pure half: Spotify's download formats read into played records, the
/// same play told apart from another, the watch's played-through songs, the time window; and
/// the pause timer's plan, and plays as items for playlist writes.
@Suite(.tags(.small)) struct ListeningHistoryTests {
    typealias History = ListeningHistory

    static func parse(_ text: String) throws -> JSONValue { try JSONValue.parse(text) }

    static func imported(_ text: String) throws -> History.Imported {
        try History.importEntries(try parse(text))
    }

    // MARK: Extended streaming history

    /// A track, a podcast episode (null track fields) and an entry that names nothing, with
    /// Spotify's own field names (Streaming_History_Audio_2024.json).
    static let extended = """
        [
        {"ts":"2024-01-31T23:59:59Z","platform":"android","ms_played":212000,"conn_country":"SE",\
        "ip_addr":"192.0.2.1","master_metadata_track_name":"Sunrise Drive",\
        "master_metadata_album_artist_name":"The Fixtures","master_metadata_album_album_name":"Fake Mornings",\
        "spotify_track_uri":"spotify:track:0FakeTrack000000000000","episode_name":null,"episode_show_name":null,\
        "spotify_episode_uri":null,"audiobook_title":null,"audiobook_uri":null,"audiobook_chapter_uri":null,\
        "audiobook_chapter_title":null,"reason_start":"trackdone","reason_end":"endplay","shuffle":false,\
        "skipped":false,"offline":false,"offline_timestamp":null,"incognito_mode":false},
        {"ts":"2024-02-01T07:10:03Z","platform":"ios","ms_played":1800000,"conn_country":"SE",\
        "master_metadata_track_name":null,"master_metadata_album_artist_name":null,\
        "master_metadata_album_album_name":null,"spotify_track_uri":null,"episode_name":"Episode 12",\
        "episode_show_name":"The Show","spotify_episode_uri":"spotify:episode:0FakeEpisode0000000012",\
        "reason_start":"clickrow","reason_end":"logout","shuffle":false,"skipped":null,"offline":false},
        {"ts":"2024-02-01T08:00:00Z","ms_played":3000,"master_metadata_track_name":null,\
        "master_metadata_album_artist_name":null,"master_metadata_album_album_name":null,"spotify_track_uri":null,\
        "episode_name":null,"episode_show_name":null,"spotify_episode_uri":null,"reason_start":"appload",\
        "reason_end":"fwdbtn","shuffle":true,"skipped":true,"offline":false}
        ]
        """

    @Test func extendedStreamingHistoryBecomesPlayedRecordsWithUriTimeAndMsPlayed() throws {
        let result = try Self.imported(Self.extended)
        #expect(result.records.count == 2)
        #expect(result.empty == 1)
        let track = JSONValue.object(result.records[0])
        #expect(
            result.records[0].keys == [
                "type", "id", "uri", "name", "artists", "album", "played_at", "ms_played", "context", "reason_start",
                "reason_end", "shuffle", "skipped", "offline", "logged_from",
            ])
        #expect(track["type"] == "played")
        #expect(track["uri"] == "spotify:track:0FakeTrack000000000000")
        #expect(track["id"] == "0FakeTrack000000000000")
        #expect(track["name"] == "Sunrise Drive")
        #expect(track["artists"] == [["id": .null, "name": "The Fixtures"]])
        #expect(track["album"] == ["id": .null, "name": "Fake Mornings"])
        #expect(track["played_at"] == "2024-01-31T23:59:59Z")
        #expect(track["ms_played"] == 212_000)
        #expect(track["reason_end"] == "endplay")
        #expect(track["logged_from"] == "extended_streaming_history")
        // Nothing about where the user was: no ip address, no country.
        #expect(track["ip_addr"] == nil && track["conn_country"] == nil)

        let episode = JSONValue.object(result.records[1])
        #expect(episode["uri"] == "spotify:episode:0FakeEpisode0000000012")
        #expect(episode["name"] == "Episode 12")
        #expect(episode["show"] == ["id": .null, "name": "The Show"])
        #expect(episode["artists"] == [])
        #expect(episode["album"] == .null)
        #expect(episode["skipped"] == .null)
        #expect(episode["ms_played"] == 1_800_000)
    }

    /// The older download (endsong_*.json) has the same fields, and more of them.
    @Test func olderEndsongFilesReadTheSame() throws {
        let endsong = """
            [{"ts":"2019-06-01T10:00:00Z","username":"someone","platform":"OS X","ms_played":180000,\
            "conn_country":"US","ip_addr_decrypted":"192.0.2.7","user_agent_decrypted":"unknown",\
            "master_metadata_track_name":"Late Bus","master_metadata_album_artist_name":"Mock Orchestra",\
            "master_metadata_album_album_name":"Fake Mornings","spotify_track_uri":"spotify:track:0FakeTrack000000000004",\
            "episode_name":null,"episode_show_name":null,"spotify_episode_uri":null,"reason_start":"fwdbtn",\
            "reason_end":"trackdone","shuffle":true,"skipped":null,"offline":false,"offline_timestamp":0,\
            "incognito_mode":false}]
            """
        let record = JSONValue.object(try #require(try Self.imported(endsong).records.first))
        #expect(record["uri"] == "spotify:track:0FakeTrack000000000004")
        #expect(record["played_at"] == "2019-06-01T10:00:00Z")
        #expect(record["ms_played"] == 180_000)
        #expect(record["shuffle"] == true)
        #expect(record["ip_addr_decrypted"] == nil)
    }

    // MARK: Account data

    @Test func accountDataHasNamesTimesToTheMinuteAndNoUri() throws {
        let music = """
            [{"endTime":"2024-01-31 23:59","artistName":"The Fixtures","trackName":"Sunrise Drive","msPlayed":212000},
             {"endTime":"2024-02-01 00:03","artistName":"Mock Orchestra","trackName":"Coffee First","msPlayed":0}]
            """
        let result = try Self.imported(music)
        #expect(result.records.count == 2)
        let first = JSONValue.object(result.records[0])
        #expect(first["played_at"] == "2024-01-31T23:59:00Z")
        #expect(first["uri"] == .null)
        #expect(first["id"] == .null)
        #expect(first["name"] == "Sunrise Drive")
        #expect(first["artists"] == [["id": .null, "name": "The Fixtures"]])
        #expect(first["ms_played"] == 212_000)
        #expect(first["logged_from"] == "account_data")
        #expect(JSONValue.object(result.records[1])["ms_played"] == 0)

        let podcast = """
            [{"endTime":"2024-03-01 06:30","podcastName":"The Show","episodeName":"Episode 13","msPlayed":60000}]
            """
        let episode = JSONValue.object(try #require(try Self.imported(podcast).records.first))
        #expect(episode["name"] == "Episode 13")
        #expect(episode["show"] == ["id": .null, "name": "The Show"])
        #expect(episode["played_at"] == "2024-03-01T06:30:00Z")
    }

    @Test func aDamagedDownloadNamesTheEntry() throws {
        let cases: [(String, String)] = [
            (#"{"ts":"2024-01-31T23:59:59Z"}"#, "not a Spotify streaming history file"),
            (#"[{"ts":"2024-01-31T23:59:59Z","ms_played":1}, 7]"#, "entry 2: not a JSON object"),
            (#"[{"ts":"yesterday","ms_played":1}]"#, "entry 1: ts is not an ISO 8601 time"),
            (#"[{"ts":null,"ms_played":1}]"#, "entry 1: ts is not an ISO 8601 time"),
            (
                #"[{"endTime":"2024-01-31 23:59","trackName":"a","msPlayed":1},{"endTime":"31/01/2024","trackName":"b"}]"#,
                "entry 2: endTime is not a time"
            ),
            (#"[{"ts":"2024-01-31T23:59:59Z","ms_played":-5}]"#, "entry 1: ms_played is not a count of milliseconds"),
            (#"[{"ts":"2024-01-31T23:59:59Z","ms_played":"lots"}]"#, "entry 1: ms_played is not a count"),
            (#"[{"name":"x"}]"#, "entry 1: neither a streaming history entry"),
        ]
        for (text, expected) in cases {
            do {
                _ = try Self.imported(text)
                Issue.record("\(text) was read")
            } catch {
                let message = (error as? History.ImportError)?.message ?? "\(error)"
                #expect(message.hasPrefix(expected), "\(text): \(message)")
            }
        }
    }

    // MARK: The same play

    static func record(_ uri: String?, _ name: String = "Song", at time: String, from origin: String = "watch")
        -> JSONObject
    {
        var record = History.identity(uri: uri, name: name)
        record["artists"] = [["id": .null, "name": "Artist"]]
        record["played_at"] = .string(time)
        record["logged_from"] = .string(origin)
        return record
    }

    @Test func aBatchAddedTwiceIsKnownTheSecondTime() throws {
        let batch = [
            Self.record("spotify:track:a", at: "2024-01-01T10:00:00Z"),
            Self.record("spotify:track:b", at: "2024-01-01T10:03:00Z"),
        ]
        let first = History.newRecords([batch], known: History.PlayIndex())
        #expect(first.new.count == 2 && first.known == 0)
        let index = History.PlayIndex(first.new.compactMap { History.Play(.object($0)) })
        let second = History.newRecords([batch], known: index)
        #expect(second.new.isEmpty && second.known == 2)
        // The same file named twice in one run: the second copy is the first's.
        let twice = History.newRecords([batch, batch], known: History.PlayIndex())
        #expect(twice.new.count == 2 && twice.known == 2)
    }

    @Test func entriesOfOneBatchAreDistinctPlaysHoweverAlike() {
        let same = Self.record("spotify:track:a", at: "2024-01-01T10:00:00Z")
        let result = History.newRecords([[same, same]], known: History.PlayIndex())
        #expect(result.new.count == 2)
    }

    @Test func sourcesAFewSecondsApartAreOnePlayAndARepeatIsTwo() throws {
        let watched = try #require(
            History.Play(.object(Self.record("spotify:track:a", at: "2024-01-01T10:00:01.500Z"))))
        let index = History.PlayIndex([watched])
        let synced = Self.record("spotify:track:a", at: "2024-01-01T10:00:09Z", from: "recently_played")
        #expect(History.newRecords([[synced]], known: index).new.isEmpty)
        // The same song played again after it (30 s is the shortest play Spotify lists).
        let again = Self.record("spotify:track:a", at: "2024-01-01T10:00:35Z", from: "recently_played")
        #expect(History.newRecords([[again]], known: index).new.count == 1)
        // Another song at the same moment.
        let other = Self.record("spotify:track:b", "Other", at: "2024-01-01T10:00:01Z")
        #expect(History.newRecords([[other]], known: index).new.count == 1)
        // Account data: no uri, the minute only; matched by name and artist within a minute.
        let account = Self.record(nil, at: "2024-01-01T10:00:00Z", from: "account_data")
        #expect(History.newRecords([[account]], known: index).new.isEmpty)
        let accountLater = Self.record(nil, at: "2024-01-01T10:02:00Z", from: "account_data")
        #expect(History.newRecords([[accountLater]], known: index).new.count == 1)
    }

    // MARK: Played through

    static func observation(_ uri: String?, progress: Int = 0, duration: Int = 200_000, playing: Bool = true)
        -> PlaybackObservation
    {
        guard let uri else { return .nothing }
        let item: JSONObject = [
            "type": "track", "id": .string(String(uri.split(separator: ":").last!)), "uri": .string(uri),
            "name": "Song", "duration_ms": .int(duration),
        ]
        return PlaybackObservation(
            item: item, isPlaying: playing, progressMs: progress, currentlyPlayingType: "track", context: .null)
    }

    @Test func aSongFollowedByAnotherAfterItsEndWasPlayedThrough() throws {
        var watch = History.PlayedThrough()
        #expect(watch.observe(Self.observation("spotify:track:a", progress: 150_000), at: 1000) == nil)
        // 50 s left at 1000: it ends at 1050; the next song is seen at 1050.8.
        let seen = watch.observe(Self.observation("spotify:track:b", progress: 800), at: 1050.8)
        let played = try #require(seen)
        let record = JSONValue.object(played)
        #expect(record["type"] == "played")
        #expect(record["uri"] == "spotify:track:a")
        #expect(record["played_at"] == .string(isoTimestamp(1050)))
        #expect(record["logged_from"] == "watch")
        #expect(record["ms_played"] == .null)
        // Skipped halfway: not played through.
        #expect(watch.observe(Self.observation("spotify:track:c"), at: 1100) == nil)
        // Paused, then nothing plays long after: a paused song did not play through.
        #expect(watch.observe(Self.observation("spotify:track:c", progress: 10_000, playing: false), at: 1110) == nil)
        #expect(watch.observe(Self.observation(nil), at: 2000) == nil)
    }

    @Test func aRepeatedSongAndTheLastSongOfAContextArePlayedThrough() throws {
        var watch = History.PlayedThrough()
        _ = watch.observe(Self.observation("spotify:track:a", progress: 190_000), at: 0)
        let repeated = watch.observe(Self.observation("spotify:track:a", progress: 1_000), at: 11)
        #expect(repeated.map { JSONValue.object($0)["played_at"] } == .string(isoTimestamp(10)))
        _ = watch.observe(Self.observation("spotify:track:a", progress: 195_000), at: 200)
        let last = watch.observe(Self.observation(nil), at: 205.5)
        #expect(last.map { JSONValue.object($0)["uri"] } == "spotify:track:a")
    }

    // MARK: The window

    @Test func theWindowIsSinceInclusiveUntilExclusiveOldestFirst() {
        let lines: [(time: Double, line: Substring)] = [(30, "c"), (10, "a"), (20, "b"), (10, "a2"), (40, "d")]
        #expect(History.window(lines, since: nil, until: nil) == ["a", "a2", "b", "c", "d"])
        #expect(History.window(lines, since: 20, until: 40) == ["b", "c"])
    }

    @Test func aDateAloneIsItsMidnightInTheZone() throws {
        let utc = LocalTime.zone("UTC")
        #expect(LocalTime.parse("2025-01-01", now: 0, in: utc) == parseISOTimestamp("2025-01-01T00:00:00Z"))
        #expect(LocalTime.parse("2025-13-01", now: 0, in: utc) == nil)
        let options = try SpotifyNowPlaying.HistoryOptions(
            CommandLineParser.parse(
                ["history", "--since", "2025-01-01", "--until", "2h"], spec: SpotifyNowPlaying.spec))
        #expect(try options.since?.seconds(now: 0, in: utc) == parseISOTimestamp("2025-01-01T00:00:00Z"))
        #expect(try options.until?.seconds(now: 1_000_000, in: utc) == 1_000_000 - 7200)
    }

    @Test func historyUsageErrors() throws {
        for arguments in [
            ["history", "import"], ["history", "sync", "x.json"], ["history", "purge"],
            ["history", "sync", "--since", "1h"],
        ] {
            #expect(throws: ToolError.self, "\(arguments)") {
                try SpotifyNowPlaying.HistoryOptions(CommandLineParser.parse(arguments, spec: SpotifyNowPlaying.spec))
            }
        }
    }

    // MARK: Pausing after songs

    @Test func theLastSongIsLookedAtNearItsEndThenPausedJustBefore() {
        var plan = SongStop(songs: 1)
        // 60 s left: look again 5 s before the end.
        #expect(plan.next(Self.observation("spotify:track:a", progress: 140_000)) == .look(after: 55))
        // 4.5 s left: pause 0.4 s before the end.
        let step = plan.next(Self.observation("spotify:track:a", progress: 195_500))
        guard case .pause(let after) = step else {
            Issue.record("\(step)")
            return
        }
        #expect(abs(after - 4.1) < 1e-9)
    }

    @Test func songsBeforeTheLastAreLookedAtJustAfterTheirEnd() {
        var plan = SongStop(songs: 3)
        #expect(plan.next(Self.observation("spotify:track:a", progress: 100_000)) == .look(after: 101.5))
        // Seeked back meanwhile: still the first song, further from its end.
        #expect(plan.next(Self.observation("spotify:track:a", progress: 100_000)) == .look(after: 101.5))
        #expect(plan.ended == 0)
        #expect(plan.next(Self.observation("spotify:track:b", progress: 1_000)) == .look(after: 200.5))
        #expect(plan.ended == 1 && plan.songsLeft == 2)
        // A skip counts as a song; now the last: looked at 5 s before its end.
        #expect(plan.next(Self.observation("spotify:track:c", progress: 0)) == .look(after: 195))
        #expect(plan.songsLeft == 1)
        // Paused by hand: looked at now and then; the song is still the last.
        #expect(plan.next(Self.observation("spotify:track:c", progress: 50_000, playing: false)) == .look(after: 30))
        // It ended while we slept: pause at once, the next one has begun.
        #expect(plan.next(Self.observation("spotify:track:d", progress: 2_000)) == .pause(after: 0))
        #expect(plan.songsLeft == 0)
    }

    @Test func nothingPlayingAndAdsAreSaidOrWaitedOut() {
        var plan = SongStop(songs: 1)
        #expect(plan.next(.nothing) == .nothingPlays)
        let ad = PlaybackObservation(
            item: nil, isPlaying: true, progressMs: 0, currentlyPlayingType: "ad", context: .null)
        #expect(plan.next(ad) == .look(after: 30))
    }

    @Test func pauseOptionsAreCheckedBeforeAnythingRuns() throws {
        func options(_ arguments: [String]) throws -> SpotifyNowPlaying.PauseOptions {
            try SpotifyNowPlaying.PauseOptions(CommandLineParser.parse(arguments, spec: SpotifyNowPlaying.spec))
        }
        #expect(try options(["pause"]).songs == nil)
        #expect(try options(["pause", "--at-end"]).songs == 1)
        #expect(try options(["pause", "--after", "3", "--device", "Kitchen"]).songs == 3)
        for bad in ["0", "1001", "-1", "2.5", "99999999999999999999", "three", ""] {
            #expect(throws: ToolError.self, "\(bad)") { try options(["pause", "--after", bad]) }
        }
        #expect(throws: ToolError.self) { try options(["pause", "--after", "2", "--at-end"]) }
    }

    // MARK: Plays are items

    @Test func nowPlayingAndPlayedRecordsAreItemsByTheirUri() throws {
        var items = ItemInput()
        let playing =
            #"{"type":"now_playing","id":"a1","uri":"spotify:track:0FakeTrack000000000001","name":"x","is_playing":true}"#
        try items.add(line: playing)
        // The watch's records of one song (paused, resumed, final) are one item.
        try items.add(line: playing.replacingOccurrences(of: "true", with: "false"))
        try items.add(line: #"{"type":"now_playing","is_playing":false,"currently_playing_type":null}"#)
        try items.add(line: #"{"type":"played","uri":"spotify:track:0FakeTrack000000000002","played_at":"x"}"#)
        try items.add(line: #"{"type":"played","uri":"spotify:track:0FakeTrack000000000002","played_at":"y"}"#)
        try items.add(line: #"{"type":"played","uri":"spotify:episode:0FakeEpisode0000000012"}"#)
        try items.add(line: #"{"type":"played","uri":null,"name":"From account data"}"#)
        try items.add(line: #"{"type":"now_playing","uri":"spotify:local:a:b:c:180","is_local":true}"#)
        #expect(
            items.uris == [
                "spotify:track:0FakeTrack000000000001", "spotify:track:0FakeTrack000000000002",
                "spotify:track:0FakeTrack000000000002", "spotify:episode:0FakeEpisode0000000012",
            ])
        #expect(items.withoutURI == 1 && items.local == 1)
        #expect(items.skippedSummary == "1 local file and 1 play without a uri")
        #expect(throws: StandardInput.Rejection.self) {
            try items.add(line: #"{"type":"played","uri":"spotify:album:0FakeAlbum000000000001"}"#)
        }
    }
}
