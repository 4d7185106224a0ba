import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

@Suite(.tags(.small)) struct PlaybackObservationTests {
    static func body(
        id: String = "4iV5W9uYEdYUVa79Axb7Rh", playing: Bool = true, progress: Int = 73_512, duration: Int = 322_506,
        type: String = "track"
    ) -> JSONValue {
        [
            "progress_ms": .int(progress), "is_playing": .bool(playing), "currently_playing_type": .string(type),
            "context": ["type": "playlist", "uri": "spotify:playlist:3cEYpjA9oz9GiPac4AsH4n", "href": "x"],
            "item": [
                "type": .string(type), "id": .string(id), "uri": .string("spotify:\(type):\(id)"),
                "name": "The Funeral",
                "duration_ms": .int(duration), "artists": [["id": "a", "name": "Band of Horses"]],
                "album": ["id": "b", "name": "Everything"],
            ],
        ]
    }

    @Test func recordHasTheTrackFieldsThenThePlayerState() {
        let record = NowPlayingRecord(PlaybackObservation(Self.body()), observedAt: "2026-11-22T10:00:00.000Z").json
        #expect(
            record.objectValue?.keys == [
                "type", "id", "uri", "name", "duration_ms", "artists", "album", "explicit", "external_ids", "is_local",
                "is_playing", "progress_ms", "currently_playing_type", "context", "observed_at",
            ])
        #expect(record["type"] == "now_playing")
        #expect(record["context"] == ["type": "playlist", "uri": "spotify:playlist:3cEYpjA9oz9GiPac4AsH4n"])
        #expect(PlaybackObservation(Self.body()).humanLine == "▶ The Funeral — Band of Horses (1:13 / 5:22)")
        #expect(PlaybackObservation(Self.body(playing: false)).humanLine.hasPrefix("⏸ The Funeral"))
    }

    /// routine-link's live display reads the watch's records back from its pipe: the line it
    /// draws is the watch's own, for a song, a pause, nothing playing, and a line that is no object.
    @Test func aRecordReadBackDrawsTheWatchsLine() throws {
        let zone = LocalTime.zone("UTC")
        for body in [Self.body(), Self.body(playing: false), nil] {
            let printed = NowPlayingRecord(PlaybackObservation(body), observedAt: "2026-11-22T10:00:00.000Z")
            let read = try #require(NowPlayingRecord(reading: try JSONValue.parse(printed.json.description)))
            #expect(read.timedHumanLine(in: zone) == printed.timedHumanLine(in: zone))
        }
        #expect(NowPlayingRecord(reading: "not an object") == nil)
    }

    @Test func nothingAndAdsHaveNoItem() {
        #expect(!PlaybackObservation(nil).hasItem)
        let ad = PlaybackObservation([
            "item": .null, "currently_playing_type": "ad", "is_playing": true, "progress_ms": 4021,
        ])
        #expect(!ad.hasItem)
        #expect(
            NowPlayingRecord(ad, observedAt: "t").json.objectValue?.keys == [
                "type", "is_playing", "progress_ms", "currently_playing_type", "context", "observed_at",
            ])
    }

    /// Issue 29, item 9: with --with-device the record always carries device, shuffle_state and
    /// repeat_state (null when `/me/player` left them out), for the one shot and the watch.
    @Test func aWholePlayerAnswerAlwaysCarriesThePlayerState() {
        for body: JSONValue? in [["item": [:]], [:], Self.body(), nil] {
            let record = NowPlayingRecord(PlaybackObservation(body, ofWholePlayer: true), observedAt: "t").json
            for key in ["device", "shuffle_state", "repeat_state"] {
                #expect(record[key] != nil, "\(key) in \(String(describing: body))")
            }
        }
        #expect(
            NowPlayingRecord(PlaybackObservation(["item": [:]]), observedAt: "t").json["device"] == nil,
            "currently-playing has none")
    }

    /// Issue 29, item 9: nothing playing and an item with no uri, id or name both have no key;
    /// going from one to the other is still a change, both ways.
    @Test func anItemWithoutAKeyIsAChangeFromNothing() {
        let nothing = PlaybackObservation([:])
        let keyless = PlaybackObservation(["currently_playing_type": "unknown", "item": [:]])
        #expect(nothing.hasItem != keyless.hasItem)
        #expect(nothing.isChange(to: keyless))
        #expect(keyless.isChange(to: nothing))
    }

    @Test func changes() {
        let a = PlaybackObservation(Self.body(progress: 10_000))
        #expect(!a.isChange(to: PlaybackObservation(Self.body(progress: 20_000))))  // same song, later
        #expect(!a.isChange(to: PlaybackObservation(Self.body(progress: 5_000))))  // a short seek back
        #expect(a.isChange(to: PlaybackObservation(Self.body(playing: false, progress: 20_000))))  // paused
        #expect(a.isChange(to: PlaybackObservation(Self.body(id: "7ouMYWpwJ422jRcDASZB7P"))))  // another song
        #expect(a.isChange(to: .nothing))
        let late = PlaybackObservation(Self.body(progress: 300_000))
        #expect(late.isChange(to: PlaybackObservation(Self.body(progress: 1_000))))  // repeat-one: starts again
        let extreme = PlaybackObservation(Self.body(progress: Int.max, duration: Int.max))
        #expect(!extreme.isChange(to: PlaybackObservation(Self.body(progress: Int.max, duration: Int.max))))
    }

    @Test func progressCarriesForwardOnlyWhilePlaying() {
        let playing = PlaybackObservation(Self.body(progress: 300_000, duration: 322_506))
        #expect(playing.progress(after: 10_000) == 310_000)
        #expect(playing.progress(after: 60_000) == 322_506)  // stops at the end
        #expect(playing.progress(after: Int.max) == 322_506)
        #expect(PlaybackObservation(Self.body(playing: false, progress: 5_000)).progress(after: 60_000) == 5_000)
    }
}

@Suite(.tags(.small)) struct PollScheduleTests {
    let schedule = PollSchedule(interval: 10, idleInterval: 30, endMargin: 0.3, pauseGrace: 60)

    func observation(progress: Int, duration: Int, playing: Bool = true) -> PlaybackObservation {
        PlaybackObservation(PlaybackObservationTests.body(playing: playing, progress: progress, duration: duration))
    }

    @Test func playingPollsEveryIntervalOrJustAfterTheSongEnds() {
        #expect(schedule.delay(after: observation(progress: 0, duration: 200_000)) == 10)
        #expect(schedule.delay(after: observation(progress: 180_000, duration: 200_000)) == 10)  // 2 intervals left
        #expect(abs(schedule.delay(after: observation(progress: 181_000, duration: 200_000)) - 19.3) < 1e-9)
        #expect(abs(schedule.delay(after: observation(progress: 186_000, duration: 200_000)) - 14.3) < 1e-9)
        #expect(abs(schedule.delay(after: observation(progress: 196_000, duration: 200_000)) - 4.3) < 1e-9)
        #expect(abs(schedule.delay(after: observation(progress: 200_000, duration: 200_000)) - 0.3) < 1e-9)
    }

    @Test func pausedPollsAtTheIntervalForAMinuteThenSlower() {
        let paused = observation(progress: 5_000, duration: 200_000, playing: false)
        #expect(schedule.delay(after: paused, inStateFor: 0) == 10)
        #expect(schedule.delay(after: paused, inStateFor: 59) == 10)
        #expect(schedule.delay(after: paused, inStateFor: 60) == 30)
        #expect(schedule.delay(after: .nothing) == 30)
        #expect(
            schedule.delay(
                after: PlaybackObservation(["item": .null, "currently_playing_type": "ad", "is_playing": true])) == 30)
    }

    /// The default watch, left running with nothing playing or paused: about a request a minute,
    /// 60 in an idle hour (120 when it polled every 30 s), and a paused hour the same after its grace minute.
    @Test func theDefaultWatchSpendsAtMostSixtyRequestsAnIdleHour() {
        let watch = PollSchedule()
        func polls(in seconds: Double, after observation: PlaybackObservation) -> Int {
            var now = 0.0
            var count = 0
            while now < seconds && count < 10_000 {
                count += 1
                now += watch.delay(after: observation, inStateFor: now)
            }
            return count
        }
        #expect(polls(in: 3600, after: .nothing) == 60)
        let paused = observation(progress: 5_000, duration: 200_000, playing: false)
        #expect(polls(in: 3600, after: paused) <= 66)  // 6 at the interval in the first minute, then 1 a minute
        #expect(watch.delay(after: observation(progress: 0, duration: 200_000)) == 10, "playing is unchanged")
    }

    @Test func fixedPollingIgnoresEverything() {
        let fixed = PollSchedule(interval: 5, idleInterval: 5, endMargin: 0, pauseGrace: 0, adapts: false)
        #expect(fixed.delay(after: .nothing) == 5)
        #expect(fixed.delay(after: observation(progress: 199_000, duration: 200_000)) == 5)
    }

    @Test func backoffDoublesUpToTheIdleInterval() {
        #expect((1...6).map { schedule.backoff(failures: $0) } == [2, 4, 8, 16, 30, 30])
        #expect(schedule.backoff(failures: Int.max) == 30)
        #expect(schedule.backoff(failures: 0) == 2)
    }
}

@Suite(.tags(.small)) struct PlayerTests {
    @Test func playTargets() throws {
        #expect(try SpotifyPlayer.PlayTarget.from([]) == .resume)
        let playlist = SpotifyReference(kind: .playlist, id: "3cEYpjA9oz9GiPac4AsH4n")
        let track = SpotifyReference(kind: .track, id: "4iV5W9uYEdYUVa79Axb7Rh")
        #expect(try SpotifyPlayer.PlayTarget.from([playlist]) == .context(uri: playlist.uri, offsetURI: nil))
        #expect(try SpotifyPlayer.PlayTarget.from([track, track]) == .items([track.uri, track.uri]))
        #expect(throws: ToolError.self) { try SpotifyPlayer.PlayTarget.from([playlist, track]) }
        #expect(SpotifyPlayer.PlayTarget.resume.body == nil)
        #expect(
            SpotifyPlayer.PlayTarget.items([track.uri]).body?.serialized()
                == #"{"uris":["spotify:track:4iV5W9uYEdYUVa79Axb7Rh"]}"#)
    }

    static func error(_ status: Int, _ body: String) -> SpotifyErrorBody {
        SpotifyErrorBody(HTTPResult(status: status, headers: [:], body: Data(body.utf8)))
    }

    @Test func commandErrorsSayWhatToDo() {
        let premium = PlayerCommandError(
            Self.error(
                403,
                #"{"error":{"status":403,"message":"Player command failed: Premium required","reason":"PREMIUM_REQUIRED"}}"#
            ))
        #expect(premium == .premiumRequired)
        #expect(premium.toolError.exitCode == .noPermission)
        let device = PlayerCommandError(
            Self.error(
                404,
                #"{"error":{"status":404,"message":"Player command failed: No active device found","reason":"NO_ACTIVE_DEVICE"}}"#
            ))
        #expect(device == .noActiveDevice)
        #expect(device.toolError.exitCode == .unavailable)
        #expect(device.toolError.message.contains("--device"))
        let scope = PlayerCommandError(
            Self.error(403, #"{"error":{"status":403,"message":"Insufficient client scope"}}"#))
        #expect(scope == .missingScope)
        #expect(scope.toolError.message.contains("spotify-auth login --scope playback"))
        let restricted = PlayerCommandError(
            Self.error(
                403,
                #"{"error":{"status":403,"message":"Player command failed: Restriction violated","reason":"UNKNOWN"}}"#)
        )
        #expect(restricted == .restricted(nil))
        #expect(PlayerCommandError(Self.error(403, "plain text")).toolError.exitCode == .unavailable)
    }

    @Test func referencesOfSeveralKinds() throws {
        let kinds: [SpotifyReference.Kind] = [.track, .episode, .playlist, .album]
        #expect(
            try SpotifyReference.parse("spotify:album:4aawyAB9vmqN3uQ7FjRGTy", expectingOneOf: kinds).kind == .album)
        #expect(try SpotifyReference.parse("4aawyAB9vmqN3uQ7FjRGTy", expectingOneOf: kinds).kind == .track)
        #expect(
            try SpotifyReference.parse(
                "https://open.spotify.com/episode/512ojhOuo1ktJprKbVcKyQ?si=x", expectingOneOf: kinds
            ).kind == .episode)
        #expect(
            try SpotifyReference.parse(
                #"{"type":"played","uri":"spotify:track:4iV5W9uYEdYUVa79Axb7Rh"}"#, expectingOneOf: kinds
            ).kind == .track)
        #expect(
            throws: SpotifyReference.ParseError(description: "not a track, episode, playlist or album id, URI or URL")
        ) {
            try SpotifyReference.parse("spotify:show:38bS44xjbVVZ3No3ByF1dJ", expectingOneOf: kinds)
        }
    }

    @Test func isoTimes() {
        #expect(isoTimestamp(0) == "1970-01-01T00:00:00.000Z")
        #expect(parseISOTimestamp("2026-11-22T08:00:00Z") == 1_795_334_400)
        #expect(parseISOTimestamp("2026-11-22T08:00:00.500Z") == 1_795_334_400.5)
        #expect(parseISOTimestamp("yesterday") == nil)
        #expect(isoTimestamp(.infinity) == "1970-01-01T00:00:00.000Z")
    }
}
