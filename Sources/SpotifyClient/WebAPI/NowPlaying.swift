import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One look at the player: what `GET /me/player/currently-playing` (or `/me/player`) answered,
/// reduced to what records, change detection and poll scheduling need. Pure: no I/O.
package struct PlaybackObservation: Sendable, Equatable {
    /// The track or episode as a record (TrackRecord), nil for nothing, ads and unknown items.
    package var item: JSONObject?
    package var isPlaying: Bool
    package var progressMs: Int?
    /// `track`, `episode`, `ad`, `unknown`; nil when nothing plays (204).
    package var currentlyPlayingType: String?
    package var context: JSONValue
    /// `/me/player` only: device {id, name, type}, shuffle_state, repeat_state.
    package var device: JSONValue?
    var shuffleState: JSONValue?
    package var repeatState: JSONValue?
    /// It is a look at `/me/player` (`--with-device`): the record always carries device,
    /// shuffle_state and repeat_state, null when the answer left them out.
    package var ofWholePlayer = false

    /// Nothing plays (204, or no device).
    package static let nothing = PlaybackObservation(
        item: nil, isPlaying: false, progressMs: nil, currentlyPlayingType: nil, context: .null)

    package init(
        item: JSONObject?, isPlaying: Bool, progressMs: Int?, currentlyPlayingType: String?, context: JSONValue,
        device: JSONValue? = nil, shuffleState: JSONValue? = nil, repeatState: JSONValue? = nil
    ) {
        self.item = item
        self.isPlaying = isPlaying
        self.progressMs = progressMs
        self.currentlyPlayingType = currentlyPlayingType
        self.context = context
        self.device = device
        self.shuffleState = shuffleState
        self.repeatState = repeatState
    }

    /// From a player answer; nil body = nothing plays. Lenient: odd values become null.
    /// `ofWholePlayer`: the answer is `/me/player`'s.
    package init(_ body: JSONValue?, ofWholePlayer: Bool = false) {
        self.ofWholePlayer = ofWholePlayer
        guard let body, body.objectValue != nil else {
            self = .nothing
            self.ofWholePlayer = ofWholePlayer
            return
        }
        let playingType = body["currently_playing_type"]?.stringValue
        // An ad is never a song, even when Spotify sends an item object with it.
        item = playingType == "ad" ? nil : TrackRecord(spotify: body["item"])?.object
        isPlaying = body["is_playing"]?.boolValue ?? false
        progressMs = body["progress_ms"]?.intValue.flatMap { $0 >= 0 ? $0 : nil }
        currentlyPlayingType = playingType ?? (item == nil ? "unknown" : item?["type"]?.stringValue)
        if let context = body["context"], context.objectValue != nil {
            self.context = ["type": context["type"] ?? .null, "uri": context["uri"] ?? .null]
        } else {
            context = .null
        }
        if let device = body["device"], device.objectValue != nil {
            self.device = [
                "id": device["id"] ?? .null, "name": device["name"] ?? .null, "type": device["type"] ?? .null,
            ]
        }
        // Read whether or not a device came with them: `/me/player` may leave `device` out.
        shuffleState = body["shuffle_state"]
        repeatState = body["repeat_state"]
    }

    /// Something to report: a track or episode (playing or paused). Ads, unknown items and
    /// nothing are not, for the one shot.
    package var hasItem: Bool { item != nil }

    package var durationMs: Int? { item?["duration_ms"]?.intValue }

    /// What tells one song from the next: uri, else id, else name.
    var itemKey: String? {
        guard let item else { return nil }
        return item["uri"]?.stringValue ?? item["id"]?.stringValue ?? item["name"]?.stringValue
    }

    /// `▶ Name — Artist (1:23 / 3:45)` (⏸ when paused) for a terminal: names cleaned, since any
    /// Spotify user or podcast publisher chooses them.
    package var humanLine: String { TerminalText.clean(rawHumanLine) }

    private var rawHumanLine: String {
        guard let item else {
            switch currentlyPlayingType {
            case nil: return "nothing playing"
            case let type?: return "\(isPlaying ? "▶" : "⏸") (\(type))"
            }
        }
        let name = item["name"]?.stringValue ?? "(no name)"
        let by = (item["artists"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
        let show = item["show"]?["name"]?.stringValue
        let who = by.isEmpty ? show : by.joined(separator: ", ")
        let progress = formatClock(milliseconds: progressMs ?? 0)
        let duration = durationMs.map { formatClock(milliseconds: $0) } ?? "?"
        // With --with-device (a look at the whole player), where it plays.
        let on = device?["name"]?.stringValue.map { " on \($0)" } ?? ""
        return "\(isPlaying ? "▶" : "⏸") \(name)\(who.map { " — \($0)" } ?? "") (\(progress) / \(duration))\(on)"
    }

    /// Whether `next` is a change worth a record after `self`: another song, a play state or
    /// type change, or the same song starting again (progress back by more than half of it).
    func isChange(to next: PlaybackObservation) -> Bool {
        // hasItem too: an item without uri, id or name has no key, as nothing has none.
        if itemKey != next.itemKey || hasItem != next.hasItem || isPlaying != next.isPlaying
            || currentlyPlayingType != next.currentlyPlayingType
        {
            return true
        }
        guard let before = progressMs, let now = next.progressMs, let duration = next.durationMs, duration > 0 else {
            return false
        }
        // Clamped first: progress values from the wire cannot overflow the subtraction.
        return min(before, duration) - min(now, duration) > duration / 2
    }

    /// Where playback is `elapsedMs` after this observation, assuming it goes on: progress moves
    /// only while playing and stops at the end of the song.
    package func progress(after elapsedMs: Int) -> Int? {
        guard let progressMs else { return nil }
        guard isPlaying, elapsedMs > 0 else { return progressMs }
        let moved = progressMs.addingReportingOverflow(elapsedMs)
        let upper = durationMs ?? Int.max
        return moved.overflow ? upper : min(moved.partialValue, max(upper, progressMs))
    }
}

/// The `now_playing` record: one observation and when it was made. The item's record fields with
/// type now_playing, then is_playing, progress_ms, currently_playing_type, context, (device,
/// shuffle_state, repeat_state), observed_at; without an item (an ad, nothing) only the state
/// fields. A watch's last record is `final`.
package struct NowPlayingRecord: JSONRecord, Equatable {
    package var observation: PlaybackObservation
    /// ISO 8601, UTC.
    package var observedAt: String
    package var final: Bool

    package init(_ observation: PlaybackObservation, observedAt: String, final: Bool = false) {
        self.observation = observation
        self.observedAt = observedAt
        self.final = final
    }

    package var json: JSONValue {
        var record: JSONObject = observation.item ?? [:]
        record["type"] = "now_playing"  // replaces the item's own type in place: still the first key
        record["is_playing"] = .bool(observation.isPlaying)
        record["progress_ms"] = observation.progressMs.map(JSONValue.int) ?? .null
        record["currently_playing_type"] = observation.currentlyPlayingType.map(JSONValue.string) ?? .null
        record["context"] = observation.context
        if observation.ofWholePlayer || observation.device != nil || observation.shuffleState != nil
            || observation.repeatState != nil
        {
            record["device"] = observation.device ?? .null
            record["shuffle_state"] = observation.shuffleState ?? .null
            record["repeat_state"] = observation.repeatState ?? .null
        }
        record["observed_at"] = .string(observedAt)
        if final { record["final"] = true }
        return .object(record)
    }
}

/// When to poll next. Pure: the watch loop asks, sleeps that long, polls.
///
/// - Playing: every `interval`; but when the song ends within two intervals, just after its
///   predicted end, so a song change is seen at once, and one wait to the end replaces the last
///   one or two polls of the song. (A pause or skip can come at any moment, so any poller that
///   makes half the calls of 5-second polling sees one about 5 s late on average; song ends,
///   the changes that can be predicted, are where lag and calls are saved.)
/// - Paused: at `interval` for the first minute (most pauses are short, and a resume should be
///   seen soon), then every `idleInterval`.
/// - Nothing playing, ads and unknown items: every `idleInterval`, a minute by default, so an idle
///   hour costs 60 requests (a quota of about 1,100 a day has room for a watch left running).
/// - Errors: backoff doubling from 2 s up to `idleInterval`; Retry-After when Spotify names it.
package struct PollSchedule: Sendable, Equatable {
    package var interval: Double
    package var idleInterval: Double
    /// How long after the predicted end of a song to look: enough for the player to have moved on.
    package var endMargin: Double
    /// How long a pause is polled at the playing rate before slowing down.
    package var pauseGrace: Double
    /// false: every `interval` whatever plays (fixed polling, the benchmark's baseline).
    package var adapts: Bool

    package init(
        interval: Double = 10, idleInterval: Double = 60, endMargin: Double = 0.3, pauseGrace: Double = 60,
        adapts: Bool = true
    ) {
        self.interval = interval
        self.idleInterval = max(idleInterval, interval)
        self.endMargin = endMargin
        self.pauseGrace = pauseGrace
        self.adapts = adapts
    }

    /// Seconds until the next poll after `observation`; `inStateFor` is how long (seconds) the
    /// player has been in its current play state.
    package func delay(after observation: PlaybackObservation, inStateFor: Double = 0) -> Double {
        guard adapts else { return interval }
        guard observation.hasItem else { return idleInterval }
        guard observation.isPlaying else { return inStateFor < pauseGrace ? interval : idleInterval }
        if let duration = observation.durationMs, let progress = observation.progressMs, duration >= progress {
            let remaining = Double(duration - progress) / 1000
            if remaining < interval * 2 { return remaining + endMargin }
        }
        return interval
    }

    /// After the `failures`-th failure in a row (1, 2, ...): 2 s, 4 s, 8 s ... up to idleInterval.
    package func backoff(failures: Int) -> Double {
        let exponent = min(max(failures - 1, 0), 16)
        return min(2 * Double(1 << exponent), idleInterval)
    }
}
