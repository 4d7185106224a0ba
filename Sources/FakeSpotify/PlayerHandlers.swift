import Foundation
import LoopbackHTTP
import ToolkitCore

/// The player endpoints and their test controls, driven by `PlaybackClock`.
extension FakeSpotifyService {
    static let devices: [JSONValue] = [
        [
            "id": "0d1841b0976bae2a3a310dd74c0f3df354899bc8", "is_active": true, "is_private_session": false,
            "is_restricted": false,
            "name": "Fixture MacBook Pro", "supports_volume": true, "type": "Computer", "volume_percent": 59,
        ],
        [
            "id": "a2b7e0c1d3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8", "is_active": false, "is_private_session": false,
            "is_restricted": false,
            "name": "Kitchen", "supports_volume": true, "type": "Speaker", "volume_percent": 30,
        ],
        [
            "id": .null, "is_active": false, "is_private_session": false, "is_restricted": true,
            "name": "Living Room", "supports_volume": false, "type": "Speaker", "volume_percent": .null,
        ],
    ]

    static let insufficientScope = WebAPI.error(403, "Insufficient client scope")

    func requires(_ scopes: [String], _ request: RouteRequest) -> HTTPResponse? {
        guard let token = request.token, scopes.contains(where: token.scopes.contains) else {
            return Self.insufficientScope
        }
        return nil
    }

    // MARK: Reading

    /// `GET /me/player/currently-playing` and `GET /me/player`: 204 when nothing plays.
    func playerState(_ request: RouteRequest, withDevice: Bool) -> HTTPResponse {
        if let refused = requires(
            withDevice ? ["user-read-playback-state"] : ["user-read-currently-playing", "user-read-playback-state"],
            request)
        {
            return refused
        }
        let episodes = request.http.queryValue("additional_types")?.split(separator: ",").contains("episode") ?? false
        let now = Date()
        let body: JSONValue? = state.withLock { state in
            state.playback.settle(now)
            state.playback.polls.append(state.playback.virtualMs(now))
            guard state.playback.answer != .noActiveDevice else { return nil }
            let active = Self.sessionDevices(state.playback).first { $0["is_active"] == true } ?? Self.devices[0]
            return state.playback.playerBody(withDevice: withDevice, episodes: episodes, device: active, now: now)
        }
        guard let body else { return HTTPResponse(status: 204) }
        return WebAPI.json(body)
    }

    func devicesResponse(_ request: RouteRequest) -> HTTPResponse {
        if let refused = requires(["user-read-playback-state"], request) { return refused }
        let devices = state.withLock { Self.sessionDevices($0.playback) }
        return WebAPI.json(["devices": .array(devices)])
    }

    /// `GET /me/player/recently-played`: the clock's finished plays, newest first, in cursor pages
    /// (`before`/`after` in Unix ms; `next` continues with `before`).
    func recentlyPlayed(_ request: RouteRequest) -> HTTPResponse {
        if let refused = requires(["user-read-recently-played"], request) { return refused }
        let query = request.http
        guard let limit = Int(query.queryValue("limit") ?? "20"), (1...50).contains(limit) else {
            return WebAPI.error(400, "Invalid limit")
        }
        let before = query.queryValue("before").flatMap(Double.init)
        let after = query.queryValue("after").flatMap(Double.init)
        let now = Date()
        let (plays, pageSize) = state.withLock { state -> ([(PlaybackClock.Play, Double)], Int) in
            state.playback.settle(now)
            let clock = state.playback
            return (clock.history.map { ($0, clock.epochMs(virtualMs: $0.playedAtMs)) }, clock.historyPageSize ?? limit)
        }
        let newestFirst = plays.sorted { $0.1 > $1.1 }.filter { play in
            (before.map { play.1 < $0 } ?? true) && (after.map { play.1 > $0 } ?? true)
        }
        let page = Array(newestFirst.prefix(min(pageSize, limit)))
        let base = "https://api.spotify.com/v1/me/player/recently-played"
        let oldest = page.last.map { Int($0.1) }
        let items: [JSONValue] = page.map { play, epochMs in
            [
                "track": PlaybackClock.trackObject(play.track),
                "played_at": .string(isoTimestamp(epochMs / 1000)),
                "context": play.contextURI.map(PlaybackClock.context) ?? .null,
            ]
        }
        let more = newestFirst.count > page.count
        return WebAPI.json([
            "items": .array(items),
            "next": more && oldest != nil ? .string("\(base)?before=\(oldest!)&limit=\(limit)") : .null,
            "cursors": page.isEmpty
                ? .null : ["after": .string(String(Int(page[0].1))), "before": .string(String(oldest!))],
            "limit": .int(limit),
            "href": .string("\(base)?limit=\(limit)"),
        ])
    }

    // MARK: Commands

    /// One player command: the scope, then the answer the test chose, then the device, then the change
    /// (nil: 204), which may throw the 400 for a parameter. `needsActiveDevice`: false for transfer, which
    /// is how a device becomes active.
    func playerCommand(
        _ request: RouteRequest, needsActiveDevice: Bool = true,
        _ change: @escaping (inout PlaybackClock, RouteRequest, Date) throws(ResponseError) -> HTTPResponse?
    ) -> HTTPResponse {
        if let refused = requires(["user-modify-playback-state"], request) { return refused }
        let now = Date()
        return state.withLock { state in
            var record: JSONObject = ["method": .string(request.http.method), "path": .string(request.http.path)]
            record["device_id"] = request.http.queryValue("device_id").map(JSONValue.string) ?? .null
            record["body"] =
                request.http.body.isEmpty
                ? .null : ((try? JSONValue.parse(request.http.body)) ?? .string(request.http.bodyText))
            state.playback.commands.append(.object(record))
            switch state.playback.answer {
            case .premiumRequired: return Fixtures.response("error-403-premium-required.json", status: 403)
            case .noActiveDevice where request.http.queryValue("device_id") == nil && needsActiveDevice:
                return Fixtures.response("error-404-no-active-device.json", status: 404)
            case .restricted:
                return WebAPI.json(
                    [
                        "error": [
                            "status": 403, "message": "Player command failed: Restriction violated",
                            "reason": "UNKNOWN",
                        ]
                    ], status: 403)
            case .ok, .noActiveDevice:
                break
            }
            if let id = request.http.queryValue("device_id"),
                !Self.devices.contains(where: { $0["id"]?.stringValue == id })
            {
                return WebAPI.error(404, "Device not found")
            }
            state.playback.settle(now)
            do throws(ResponseError) {
                return try change(&state.playback, request, now) ?? HTTPResponse(status: 204)
            } catch {
                return error.response
            }
        }
    }

    /// Spotify's front end refuses a play body past about 9 KB with Google's HTML 413 page (9,130
    /// bytes worked, 9,170 did not: spotify/web-api#582; 850 URIs in #1483).
    static let maxPlayBodyBytes = 9_130

    func play(_ request: RouteRequest) -> HTTPResponse {
        if request.http.body.count > Self.maxPlayBodyBytes {
            let page = """
                <!DOCTYPE html><html lang=en><meta charset=utf-8><title>Error 413 (Request Entity Too Large)!!1\
                </title><p><b>413.</b> <ins>That’s an error.</ins><p>Your client issued a request that was too \
                large. <ins>That’s all we know.</ins></html>
                """
            return HTTPResponse(
                status: 413, headers: [("Content-Type", "text/html; charset=UTF-8")], body: Array(page.utf8))
        }
        // What a context holds is read before the player's lock is taken (reading takes it too).
        let body = Self.jsonBody(request)
        let contextTracks = body?["context_uri"]?.stringValue.flatMap(playableTracks(ofContext:))
        var itemTracks: [String: PlaybackClock.Track] = [:]
        for uri in body?["uris"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
            itemTracks[uri] = FakeCatalog.item(uri).flatMap { PlaybackClock.Track(item: $0) }
        }
        return playerCommand(request) { clock, request, now in
            guard !request.http.body.isEmpty else {
                guard clock.mode != .nothing else {
                    return Fixtures.response("error-404-no-active-device.json", status: 404)
                }
                clock.resume(now)
                return nil
            }
            guard let body else { return WebAPI.error(400, "Malformed json") }
            if let context = body["context_uri"]?.stringValue {
                // The session's own context keeps its tracks (a test's durations); a playlist the
                // library holds plays its own tracks; any other (an album, an artist, a playlist
                // with no items here) plays the catalog's first five.
                let tracks =
                    context == clock.contextURI && !clock.tracks.isEmpty
                    ? clock.tracks : contextTracks ?? Array(PlaybackClock.catalog.prefix(5))
                clock.play(tracks, context: context, at: Self.offset(body["offset"], in: tracks), now)
            } else if let uris = body["uris"]?.arrayValue?.compactMap(\.stringValue), !uris.isEmpty {
                // The player's own songs, else the library's track of that URI, else a made-up one.
                let tracks = uris.map { uri in
                    clock.knownTrack(forURI: uri) ?? itemTracks[uri] ?? clock.track(forURI: uri)
                }
                clock.play(tracks, context: nil, at: Self.offset(body["offset"], in: tracks), now)
            } else {
                return WebAPI.error(400, "Missing context_uri or uris")
            }
            return nil
        }
    }

    /// The tracks a `spotify:playlist:` context plays: the playlist as the library holds it now
    /// (writes and edits included), its first `maxPlayable` playable tracks; nil when the fake
    /// has no items for it.
    func playableTracks(ofContext uri: String) -> [PlaybackClock.Track]? {
        let parts = uri.split(separator: ":")
        guard parts.count == 3, parts[0] == "spotify", parts[1] == "playlist" else { return nil }
        let id = String(parts[2])
        let entries: [JSONValue]
        if let written = writtenPlaylist(id) {
            entries = Array(written.entries.prefix(Self.maxPlayable * 2))
        } else if let playlist = GeneratedLibrary.playlist(id), playlist != .notOwned {
            let total = GeneratedLibrary.total(of: playlist)
            entries = applyingEdits(
                toEntries: GeneratedLibrary.entries(
                    of: playlist, id: id, range: 0..<min(total, Self.maxPlayable * 2), legacy: false),
                id: id, offset: 0)
        } else {
            return nil
        }
        let tracks = entries.compactMap { PlaylistEntryItem.of($0).flatMap(PlaybackClock.Track.init(item:)) }
        return tracks.isEmpty ? nil : Array(tracks.prefix(Self.maxPlayable))
    }

    /// Enough for any session (500 songs is a day of listening), and a page of work however
    /// long the playlist.
    static let maxPlayable = 500

    /// Where `offset` (`{"position": N}` or `{"uri": "spotify:track:..."}`) starts; 0 without one.
    static func offset(_ offset: JSONValue?, in tracks: [PlaybackClock.Track]) -> Int {
        if let position = offset?["position"]?.intValue { return position }
        if let uri = offset?["uri"]?.stringValue {
            return tracks.firstIndex { "spotify:track:\($0.id)" == uri } ?? 0
        }
        return 0
    }

    func pausePlayback(_ request: RouteRequest) -> HTTPResponse {
        playerCommand(request) { clock, _, now in
            guard clock.isPlaying else {
                return WebAPI.json(
                    [
                        "error": [
                            "status": 403, "message": "Player command failed: Already paused",
                            "reason": "ALREADY_PAUSED",
                        ]
                    ], status: 403)
            }
            clock.pause(now)
            return nil
        }
    }

    func skip(_ request: RouteRequest, by step: Int) -> HTTPResponse {
        playerCommand(request) { clock, _, now in
            guard clock.current != nil else { return Fixtures.response("error-404-no-active-device.json", status: 404) }
            clock.skip(by: step, now)
            return nil
        }
    }

    func enqueue(_ request: RouteRequest) -> HTTPResponse {
        playerCommand(request) { clock, request, now in
            guard let uri = request.http.queryValue("uri"),
                uri.hasPrefix("spotify:track:") || uri.hasPrefix("spotify:episode:")
            else {
                return WebAPI.error(400, "Invalid track uri")
            }
            clock.enqueue(clock.track(forURI: uri), now)
            return nil
        }
    }

    // MARK: Test controls

    /// `POST /_fake/playback` [durations=S,S,...] [tracks=N] [index] [position_ms] [speed] [playing]
    /// [context] [mode] [page_size]: a new session (the default: the 12-track catalog, playing at speed 1).
    func startPlayback(_ request: RouteRequest) -> HTTPResponse {
        do {
            var tracks = PlaybackClock.catalog
            if let text = request.field("durations") {
                let seconds = try text.split(separator: ",").map { part -> Int in
                    guard let value = Int(part.trimmingCharacters(in: .whitespaces)), (1...86_400).contains(value)
                    else {
                        throw ControlError("durations must be seconds, 1...86400, separated by commas")
                    }
                    return value
                }
                tracks = seconds.enumerated().map { index, duration in
                    let base = PlaybackClock.catalog[index % PlaybackClock.catalog.count]
                    return PlaybackClock.Track(
                        id: PlaybackClock.fakeID(index), name: base.name, artist: base.artist,
                        durationMs: duration * 1000)
                }
            }
            let index = try request.field("index").map { try FakeSpotifySettings.int("index", $0) } ?? 0
            let position = try request.field("position_ms").map { try FakeSpotifySettings.int("position_ms", $0) } ?? 0
            let speed = request.field("speed").flatMap(Double.init) ?? 1
            guard speed.isFinite, speed > 0, speed <= 10_000 else {
                throw ControlError("speed must be above 0 and at most 10000")
            }
            let playing = try request.field("playing").map { try FakeSpotifySettings.bool("playing", $0) } ?? true
            let modeText = request.field("mode") ?? "tracks"
            guard let mode = PlaybackClock.Mode(rawValue: modeText) else {
                throw ControlError(
                    "mode must be one of: \(PlaybackClock.Mode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let pageSize = try request.field("page_size").map { try FakeSpotifySettings.int("page_size", $0) }
            let context = request.field("context") ?? PlaybackClock.defaultContext
            let now = Date()
            return Control.json(
                state.withLock { state in
                    state.playback.start(
                        tracks: tracks, index: index, positionMs: Double(max(position, 0)), speed: speed,
                        playing: playing,
                        context: context.isEmpty ? nil : context, mode: mode, now: now)
                    state.playback.historyPageSize = pageSize
                    return state.playback.json(now)
                })
        } catch {
            return Control.error(error)
        }
    }

    /// `POST /_fake/playback/{action}`: pause, resume, next, previous, nothing, ad, episode, tracks;
    /// `answer` with answer=ok|premium_required|no_active_device|restricted; `speed` with speed=X
    /// (the session kept, virtual time running on from where it is); `history` with count=N
    /// (N finished plays of the catalog, ending now, for recently-played).
    func changePlayback(_ request: RouteRequest) -> HTTPResponse {
        let action = request[parameter: "action"]
        let now = Date()
        if action == "answer" {
            guard let text = request.field("answer"), let answer = PlaybackClock.Answer(rawValue: text) else {
                return Control.error(
                    ControlError(
                        """
                        answer must be one of: \(PlaybackClock.Answer.allCases.map(\.rawValue).joined(separator: ", "))
                        """
                    ))
            }
            return Control.json(
                state.withLock { state in
                    state.playback.answer = answer
                    return state.playback.json(now)
                })
        }
        if action == "speed" {
            // A faster (or slower) player from now on, the session kept: the sandbox's way to
            // hear a playlist in seconds.
            guard let speed = request.field("speed").flatMap(Double.init), speed.isFinite, speed > 0, speed <= 10_000
            else {
                return Control.error(ControlError("speed must be above 0 and at most 10000"))
            }
            return Control.json(
                state.withLock { state in
                    state.playback.setSpeed(speed, now)
                    return state.playback.json(now)
                })
        }
        if action == "history" {
            guard let count = request.field("count").flatMap(Int.init), (0...500).contains(count) else {
                return Control.error(ControlError("count must be 0...500"))
            }
            return Control.json(
                state.withLock { state in
                    state.playback.settle(now)
                    var endMs = state.playback.virtualMs(now)
                    var plays: [PlaybackClock.Play] = []
                    for number in 0..<count {
                        let track = PlaybackClock.catalog[number % PlaybackClock.catalog.count]
                        plays.append(
                            PlaybackClock.Play(
                                track: track, playedAtMs: endMs, contextURI: PlaybackClock.defaultContext))
                        endMs -= Double(track.durationMs)
                    }
                    state.playback.history = plays.reversed() + state.playback.history
                    return state.playback.json(now)
                })
        }
        return Control.json(
            state.withLock { state in
                switch action {
                case "pause": state.playback.pause(now)
                case "resume": state.playback.resume(now)
                case "next": state.playback.skip(by: 1, now)
                case "previous": state.playback.skip(by: -1, now)
                default:
                    guard let mode = PlaybackClock.Mode(rawValue: action) else {
                        return [
                            "error": .string(
                                """
                                unknown action '\(action)'; known: pause, resume, next, previous, nothing, ad, \
                                episode, tracks, answer, speed, history
                                """
                            )
                        ]
                    }
                    state.playback.setMode(mode, now)
                }
                state.playback.settle(now)
                return state.playback.json(now)
            })
    }

    func playbackReport() -> HTTPResponse {
        let now = Date()
        return Control.json(
            state.withLock { state in
                state.playback.settle(now)
                return state.playback.json(now)
            })
    }
}
