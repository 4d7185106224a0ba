import Foundation
import ToolkitCore

/// fake-spotify's player: a queue of tracks playing from a position at a chosen speed, so a test
/// can run a 15-minute session in 15 seconds (speed 60). Time is "virtual": real time since the
/// session started times `speed`. Every change (a song ending, a pause, a skip...) is logged with
/// its exact virtual time, and so is every poll of the player, for the benchmark's lag figures.
/// A plain value inside `FakeSpotifyState`; every method takes the real `now`.
struct PlaybackClock: Sendable {
    enum Mode: String, Sendable, CaseIterable {
        /// Tracks from the queue (paused or playing).
        case tracks
        /// No device plays: 204.
        case nothing
        /// An ad break: 200 with `item: null`.
        case ad
        /// A podcast episode (the fixture).
        case episode
    }

    struct Track: Sendable, Equatable {
        var id: String
        var name: String
        var artist: String
        var durationMs: Int
        /// The track object as the library holds it (a playlist's item, a catalogue track), so
        /// what plays reads like what was asked to play; nil for the player's own catalog.
        var object: JSONValue? = nil

        /// A playable track of a playlist entry or the catalogue; nil for a local file, an
        /// episode (the clock plays tracks only), a null item or one without a duration.
        init?(item: JSONValue) {
            guard item["type"]?.stringValue == "track", item["is_local"]?.boolValue != true,
                let id = item["id"]?.stringValue, let duration = item["duration_ms"]?.intValue, duration > 0
            else { return nil }
            self.init(
                id: id, name: item["name"]?.stringValue ?? id,
                artist: item["artists"]?.arrayValue?.first?["name"]?.stringValue ?? "", durationMs: duration,
                object: item)
        }

        init(id: String, name: String, artist: String, durationMs: Int, object: JSONValue? = nil) {
            (self.id, self.name, self.artist, self.durationMs, self.object) = (id, name, artist, durationMs, object)
        }
    }

    struct Event: Sendable {
        var atMs: Double
        var kind: String
        var trackID: String?
    }

    struct Play: Sendable {
        var track: Track
        var playedAtMs: Double
        var contextURI: String?
    }

    /// How a player command is answered (`POST /_fake/player`).
    enum Answer: String, Sendable, CaseIterable {
        case ok
        case premiumRequired = "premium_required"
        case noActiveDevice = "no_active_device"
        case restricted
    }

    var mode: Mode = .nothing
    var tracks: [Track] = []
    var contextURI: String?
    var index = 0
    /// Position in the current track at `anchor`.
    var positionMs: Double = 0
    var anchor = Date()
    var speed: Double = 1
    var isPlaying = false
    /// Real start of the session; virtual time counts from here.
    var started = Date()
    /// Unix time (s) at the start of the session: virtual "now" is this plus virtual time.
    var startEpoch = Date().timeIntervalSince1970
    var events: [Event] = []
    var polls: [Double] = []
    var history: [Play] = []
    var commands: [JSONValue] = []
    var answer: Answer = .ok
    /// Forces recently-played pages to this size (tests of cursor paging); nil: as asked.
    var historyPageSize: Int?
    /// The settings the player commands change (PlayerSettingsHandlers.swift): shuffle, repeat
    /// (off, track, context), the device playback is on, and volumes set, by device id.
    var shuffle = false
    var repeatState = "off"
    var activeDeviceID = "0d1841b0976bae2a3a310dd74c0f3df354899bc8"
    var volumes: [String: Int] = [:]

    static let defaultContext = "spotify:playlist:3cEYpjA9oz9GiPac4AsH4n"

    /// A morning playlist: real-looking lengths between 2:31 and 3:58.
    static let catalog: [Track] = [
        ("Sunrise Drive", 198), ("Coffee First", 174), ("Open Windows", 221), ("Bicycle Bell", 151),
        ("Late Bus", 238), ("Paper Planes Again", 189), ("Green Light", 205), ("Warm Tiles", 167),
        ("Down the Stairs", 212), ("Keys on the Hook", 183), ("Out the Door", 229), ("Long Way Round", 196),
    ].enumerated().map { index, entry in
        Track(
            id: fakeID(index), name: entry.0, artist: index % 2 == 0 ? "The Fixtures" : "Mock Orchestra",
            durationMs: entry.1 * 1000)
    }

    /// A 22-character base62 id, stable per number.
    static func fakeID(_ number: Int, prefix: String = "0FakeTrack") -> String {
        let digits = String(number)
        return prefix + String(repeating: "0", count: max(0, 22 - prefix.count - digits.count)) + digits
    }

    func virtualMs(_ now: Date) -> Double { max(0, now.timeIntervalSince(started)) * speed * 1000 }

    func epochMs(virtualMs: Double) -> Double { startEpoch * 1000 + virtualMs }

    var current: Track? { mode == .tracks && tracks.indices.contains(index) ? tracks[index] : nil }

    // MARK: Session

    mutating func start(
        tracks: [Track], index: Int, positionMs: Double, speed: Double, playing: Bool, context: String?, mode: Mode,
        now: Date
    ) {
        self.tracks = tracks
        self.index = min(max(index, 0), max(tracks.count - 1, 0))
        self.positionMs = positionMs
        self.speed = speed
        self.isPlaying = playing
        self.contextURI = context
        self.mode = tracks.isEmpty && mode == .tracks ? .nothing : mode
        started = now
        anchor = now
        startEpoch = now.timeIntervalSince1970
        events = []
        polls = []
        commands = []
        log("start", at: 0)
    }

    /// Brings the clock up to `now`: progress moves while playing; songs that ended give way to
    /// the next (logged at the exact virtual moment); after the last, nothing plays.
    mutating func settle(_ now: Date) {
        defer { anchor = now }
        guard mode == .tracks, isPlaying else { return }
        let anchorMs = virtualMs(anchor)
        var position = positionMs + max(0, now.timeIntervalSince(anchor)) * speed * 1000
        var elapsedBase = anchorMs - positionMs  // virtual time at which the current track was at 0
        while let track = current, position >= Double(track.durationMs) {
            let endMs = elapsedBase + Double(track.durationMs)
            history.append(Play(track: track, playedAtMs: endMs, contextURI: contextURI))
            position -= Double(track.durationMs)
            elapsedBase = endMs
            index += 1
            if current == nil {
                mode = .nothing
                isPlaying = false
                position = 0
                log("end", at: endMs)
            } else {
                log("track", at: endMs)
            }
        }
        positionMs = position
    }

    mutating func log(_ kind: String, at ms: Double? = nil) {
        events.append(Event(atMs: ms ?? virtualMs(anchor), kind: kind, trackID: current?.id))
    }

    // MARK: Changes (test controls and player commands)

    mutating func pause(_ now: Date) {
        settle(now)
        guard isPlaying else { return }
        isPlaying = false
        log("pause")
    }

    mutating func resume(_ now: Date) {
        settle(now)
        guard !isPlaying, mode == .tracks || mode == .episode || mode == .ad else { return }
        isPlaying = true
        log("resume")
    }

    mutating func skip(by step: Int, _ now: Date) {
        settle(now)
        guard let track = current else { return }
        if positionMs >= 1000 { history.append(Play(track: track, playedAtMs: virtualMs(now), contextURI: contextURI)) }
        let target = index + step
        positionMs = 0
        if tracks.indices.contains(target) {
            index = target
            log(step > 0 ? "skip" : "previous")
        } else if step < 0 {
            log("restart")  // previous on the first track starts it again
        } else {
            mode = .nothing
            isPlaying = false
            log("end")
        }
    }

    mutating func setMode(_ mode: Mode, _ now: Date) {
        settle(now)
        guard mode != self.mode else { return }
        self.mode = mode
        isPlaying = mode != .nothing
        log(mode.rawValue)
    }

    mutating func play(_ tracks: [Track], context: String?, at start: Int = 0, _ now: Date) {
        settle(now)
        if let track = current, positionMs >= 1000 {
            history.append(Play(track: track, playedAtMs: virtualMs(now), contextURI: contextURI))
        }
        self.tracks = tracks
        contextURI = context
        index = tracks.indices.contains(start) ? start : 0
        positionMs = 0
        mode = tracks.isEmpty ? .nothing : .tracks
        isPlaying = !tracks.isEmpty
        log("play")
    }

    /// A new speed from now on: virtual time runs on from where it is, without a jump.
    mutating func setSpeed(_ newSpeed: Double, _ now: Date) {
        settle(now)
        let virtual = virtualMs(now)
        speed = newSpeed
        started = now.addingTimeInterval(-virtual / 1000 / newSpeed)
        log("speed")
    }

    mutating func enqueue(_ track: Track, _ now: Date) {
        settle(now)
        let position = current == nil ? tracks.endIndex : index + 1
        tracks.insert(track, at: min(position, tracks.endIndex))
    }

    // MARK: Answers

    /// The body of `GET /me/player/currently-playing` (`withDevice`: `GET /me/player`); nil = 204.
    func playerBody(withDevice: Bool, episodes: Bool, device: JSONValue, now: Date) -> JSONValue? {
        let timestamp = JSONValue.int(Int(epochMs(virtualMs: virtualMs(now))))
        var body: JSONObject
        switch mode {
        case .nothing:
            return nil
        case .ad, .episode:
            let name =
                mode == .ad
                ? "currently-playing-ad.json"
                : (episodes ? "currently-playing-episode.json" : "currently-playing-episode-no-additional-types.json")
            guard let bytes = Fixtures.files[name], let fixture = try? JSONValue.parse(bytes),
                let object = fixture.objectValue
            else { return nil }
            body = object
            body["timestamp"] = timestamp
            body["is_playing"] = .bool(isPlaying)
        case .tracks:
            guard let track = current else { return nil }
            body = [
                "timestamp": timestamp,
                "context": contextURI.map(Self.context) ?? .null,
                "progress_ms": .int(Int(positionMs)),
                "item": Self.trackObject(track),
                "currently_playing_type": "track",
                "actions": ["disallows": isPlaying ? ["resuming": true] : ["pausing": true]],
                "is_playing": .bool(isPlaying),
            ]
        }
        guard withDevice else { return .object(body) }
        var state: JSONObject = [
            "device": device, "shuffle_state": .bool(shuffle), "smart_shuffle": false,
            "repeat_state": .string(repeatState),
        ]
        for (key, value) in body { state[key] = value }
        return .object(state)
    }

    static func context(_ uri: String) -> JSONValue {
        let parts = uri.split(separator: ":")
        let type = parts.count >= 3 ? String(parts[parts.count - 2]) : "playlist"
        let id = parts.last.map(String.init) ?? ""
        return [
            "external_urls": ["spotify": .string("https://open.spotify.com/\(type)/\(id)")],
            "href": .string("https://api.spotify.com/v1/\(type)s/\(id)"),
            "type": .string(type),
            "uri": .string(uri),
        ]
    }

    /// A TrackObject in Spotify's shape (the fields the toolkit reads, and a few it does not).
    static func trackObject(_ track: Track) -> JSONValue {
        if let object = track.object { return object }
        let artistID = fakeID(track.artist.count, prefix: "0FakeArtist")
        let artist: JSONValue = [
            "external_urls": ["spotify": .string("https://open.spotify.com/artist/\(artistID)")],
            "href": .string("https://api.spotify.com/v1/artists/\(artistID)"),
            "id": .string(artistID), "name": .string(track.artist), "type": "artist",
            "uri": .string("spotify:artist:\(artistID)"),
        ]
        let albumID = fakeID(1, prefix: "0FakeAlbum")
        return [
            "album": [
                "album_type": "album", "artists": [artist], "id": .string(albumID),
                "images": [
                    [
                        "height": 640, "url": "https://i.scdn.co/image/ab67616d0000b273fake0000000000000000000001",
                        "width": 640,
                    ]
                ],
                "name": "Fake Mornings", "release_date": "2026-01-01", "release_date_precision": "day",
                "total_tracks": 12,
                "type": "album", "uri": .string("spotify:album:\(albumID)"),
            ],
            "artists": [artist],
            "disc_number": 1,
            "duration_ms": .int(track.durationMs),
            "explicit": false,
            "external_urls": ["spotify": .string("https://open.spotify.com/track/\(track.id)")],
            "href": .string("https://api.spotify.com/v1/tracks/\(track.id)"),
            "id": .string(track.id),
            "is_local": false,
            "name": .string(track.name),
            "preview_url": .null,
            "track_number": 1,
            "type": "track",
            "uri": .string("spotify:track:\(track.id)"),
        ]
    }

    /// The track a URI names: from the catalog or the queue, else a made-up 3:20 one.
    func track(forURI uri: String) -> Track {
        let id = String(uri.split(separator: ":").last ?? "")
        return knownTrack(forURI: uri)
            ?? Track(id: id, name: "Track \(id.prefix(6))", artist: "Someone", durationMs: 200_000)
    }

    /// The track a URI names in the queue or the catalog, if it is there.
    func knownTrack(forURI uri: String) -> Track? {
        let id = String(uri.split(separator: ":").last ?? "")
        return (tracks + Self.catalog).first { $0.id == id }
    }

    /// What the session looks like, for tests and the benchmark (`GET /_fake/playback`).
    func json(_ now: Date) -> JSONValue {
        [
            "mode": .string(mode.rawValue),
            "is_playing": .bool(isPlaying),
            "index": .int(index),
            "track": current.map {
                ["id": .string($0.id), "name": .string($0.name), "duration_ms": .int($0.durationMs)]
            } ?? .null,
            "position_ms": .int(Int(positionMs)),
            "speed": .double(speed),
            "virtual_ms": .int(Int(virtualMs(now))),
            "answer": .string(answer.rawValue),
            "shuffle_state": .bool(shuffle),
            "repeat_state": .string(repeatState),
            "device_id": .string(activeDeviceID),
            "volumes": .object(
                JSONObject(volumes.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.int($0.value)) })),
            "events": .array(
                events.map {
                    [
                        "at_ms": .int(Int($0.atMs)), "kind": .string($0.kind),
                        "track_id": $0.trackID.map(JSONValue.string) ?? .null,
                    ]
                }),
            "polls": .array(polls.map { .int(Int($0)) }),
            "commands": .array(commands),
            "history": .int(history.count),
        ]
    }
}
