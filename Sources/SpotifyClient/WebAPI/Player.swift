import HTTPClient
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The Web API's player: what plays now, the devices, listening history, and the playback
/// commands (Premium only). spotify-nowplaying and routine-link's `start --play` share it.
///
/// Commands answer 204 and run asynchronously on the device; their failures carry a `reason`
/// (`PREMIUM_REQUIRED`, `NO_ACTIVE_DEVICE`, ...) that `PlayerCommandError` turns into a message
/// that says what to do.
package struct SpotifyPlayer: Sendable {
    package var api: SpotifyWebAPI

    package init(api: SpotifyWebAPI) {
        self.api = api
    }

    static let controlScope = "user-modify-playback-state"
    static let historyScope = "user-read-recently-played"

    // MARK: Reading

    /// `GET /me/player/currently-playing` (or `/me/player` with `device`): nil when nothing plays
    /// (204, or a 200 without a body).
    package func current(withDevice device: Bool = false) async throws -> JSONValue? {
        let result = try await api.get(
            device ? "/me/player" : "/me/player/currently-playing",
            query: [("additional_types", "track,episode")])
        return try Self.body(of: result)
    }

    /// The body of a successful answer; nil for 204 or an empty body (never decoded).
    static func body(of result: HTTPResult) throws -> JSONValue? {
        guard result.status != 204, !result.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 })
        else { return nil }
        do {
            return try JSONValue.parse(result.body)
        } catch {
            throw ToolError.unavailable("Spotify answered something that is not JSON (HTTP \(result.status))")
        }
    }

    /// `GET /me/player/devices`: the devices Spotify knows, as Spotify's device objects.
    package func devices() async throws -> [JSONValue] {
        let body = try Self.body(of: try await api.get("/me/player/devices"))
        return body?["devices"]?.arrayValue ?? []
    }

    /// The device named `nameOrID`: an exact id, else a name (case-insensitive, exact before prefix).
    /// A restricted device accepts no commands: refused here with the fix.
    package func device(named nameOrID: String) async throws -> JSONValue {
        let all = try await devices()
        let lowered = nameOrID.lowercased()
        let match =
            all.first { $0["id"]?.stringValue == nameOrID }
            ?? all.first { $0["name"]?.stringValue?.lowercased() == lowered }
            ?? { () -> JSONValue? in
                let prefixed = all.filter { $0["name"]?.stringValue?.lowercased().hasPrefix(lowered) == true }
                // Not `? x : nil`: JSONValue is ExpressibleByNilLiteral, so that nil would be JSON null.
                return prefixed.count == 1 ? .some(prefixed[0]) : .none
            }()
        guard let match else {
            // Device names are chosen by their owners: cleaned before they reach a terminal.
            let names = all.compactMap { $0["name"]?.stringValue }.map(TerminalText.clean)
            let known =
                names.isEmpty
                ? "Spotify sees no device; open Spotify on one" : "known: \(names.joined(separator: ", "))"
            throw ToolError.unavailable(
                "no device named '\(TerminalText.clean(String(nameOrID.prefix(100))))' (\(known))")
        }
        if match["is_restricted"]?.boolValue == true || match["id"]?.stringValue == nil {
            throw PlayerCommandError.restricted(TerminalText.clean(match["name"]?.stringValue ?? nameOrID)).toolError
        }
        return match
    }

    /// Where a playback command goes: the device `nameOrID` names (found as `device(named:)`
    /// finds it), or with nil the active one. `name` is for messages, cleaned: "'Kitchen'" or
    /// "the active device". Shared by every tool with a `--device`, so they resolve alike.
    package func commandTarget(_ nameOrID: String?) async throws -> (id: String?, name: String) {
        guard let nameOrID else { return (nil, "the active device") }
        let device = try await device(named: nameOrID)
        return (device["id"]?.stringValue, "'\(TerminalText.clean(device["name"]?.stringValue ?? nameOrID))'")
    }

    /// One page of `GET /me/player/recently-played`, newest first: items played before `before`
    /// (Unix ms), or the latest ones. The page's `cursors.before` continues further back.
    package func recentlyPlayed(before: Int? = nil, limit: Int = 50) async throws -> JSONValue {
        var query = [("limit", String(min(max(limit, 1), 50)))]
        if let before { query.append(("before", String(before))) }
        let result = try await api.get("/me/player/recently-played", query: query, passing: [403])
        if result.status == 403 {
            let error = SpotifyErrorBody(result)
            if error.message.localizedCaseInsensitiveContains("scope") {
                throw await api.missingScope(SpotifyScope.Need([Self.historyScope], for: "listening history"))
            }
            throw ToolError.noPermission(error.forbiddenExplanation)
        }
        return try Self.body(of: result) ?? ["items": []]
    }

    // MARK: Commands

    /// What `PUT /me/player/play` starts: a context (playlist, album, artist, show), a list of
    /// tracks and episodes, or, with neither, a resume of whatever was paused.
    package enum PlayTarget: Sendable, Equatable {
        case resume
        case context(uri: String, offsetURI: String?)
        case items([String])

        /// The request body; nil for a resume (Spotify wants no body at all then).
        var body: JSONValue? {
            switch self {
            case .resume: return nil
            case .context(let uri, let offset):
                var object: JSONObject = ["context_uri": .string(uri)]
                if let offset { object["offset"] = ["uri": .string(offset)] }
                return .object(object)
            case .items(let uris): return ["uris": .array(uris.map(JSONValue.string))]
            }
        }

        /// The largest play body sent: Spotify's front end answers 413 past about 9 KB (9,130 bytes
        /// worked and 9,170 did not in spotify/web-api#582; 850 URIs were refused in #1483), though
        /// its description names no limit. About 230 track URIs.
        package static let maxBodyBytes = 9_000

        /// The target as sent: items cut to the first that fit in `maxBodyBytes`, and how many
        /// were left out (0 for a context or a resume).
        package var fitted: (target: PlayTarget, leftOut: Int) {
            guard case .items(let uris) = self else { return (self, 0) }
            var size = #"{"uris":[]}"#.utf8.count
            var count = 0
            for uri in uris {
                let added = JSONValue.string(uri).serialized().utf8.count + (count == 0 ? 0 : 1)
                if size + added > Self.maxBodyBytes { break }
                size += added
                count += 1
            }
            return (.items(Array(uris.prefix(count))), uris.count - count)
        }

        /// From references: one context (playlist, album, artist, show), or tracks and episodes.
        package static func from(_ references: [SpotifyReference]) throws -> PlayTarget {
            guard !references.isEmpty else { return .resume }
            let contexts = references.filter { [.playlist, .album, .artist, .show].contains($0.kind) }
            if contexts.isEmpty { return .items(references.map(\.uri)) }
            guard references.count == 1 else {
                throw ToolError.usage(
                    "play takes one playlist, album, artist or show, or any number of tracks and episodes, not both")
            }
            return .context(uri: contexts[0].uri, offsetURI: nil)
        }
    }

    package func play(_ target: PlayTarget, deviceID: String? = nil) async throws {
        let body = target.body.map { value -> Data in Data(value.serialized().utf8) }
        try await command(
            "PUT", "/me/player/play", deviceID: deviceID, body: body,
            tolerating: target == .resume ? ["ALREADY_PLAYING"] : [])
    }

    package func pause(deviceID: String? = nil) async throws {
        try await command("PUT", "/me/player/pause", deviceID: deviceID, tolerating: ["ALREADY_PAUSED"])
    }

    package func next(deviceID: String? = nil) async throws {
        try await command("POST", "/me/player/next", deviceID: deviceID)
    }

    package func previous(deviceID: String? = nil) async throws {
        try await command("POST", "/me/player/previous", deviceID: deviceID)
    }

    package func queue(uri: String, deviceID: String? = nil) async throws {
        try await command("POST", "/me/player/queue", query: [("uri", uri)], deviceID: deviceID)
    }

    // Settings: each sets an absolute state, so a retry after a lost answer is safe.

    /// How `PUT /me/player/repeat` repeats: `off`, the `track`, or the whole `context`.
    package enum RepeatState: String, Sendable, CaseIterable {
        case off, track, context
    }

    /// `PUT /me/player/shuffle?state=true|false`.
    package func setShuffle(_ on: Bool, deviceID: String? = nil) async throws {
        try await command(
            "PUT", "/me/player/shuffle", query: [("state", on ? "true" : "false")], deviceID: deviceID,
            idempotent: true)
    }

    /// `PUT /me/player/repeat?state=off|track|context`.
    package func setRepeat(_ state: RepeatState, deviceID: String? = nil) async throws {
        try await command(
            "PUT", "/me/player/repeat", query: [("state", state.rawValue)], deviceID: deviceID, idempotent: true)
    }

    /// `PUT /me/player/volume?volume_percent=N` (0...100, checked by the caller).
    package func setVolume(_ percent: Int, deviceID: String? = nil) async throws {
        try await command(
            "PUT", "/me/player/volume", query: [("volume_percent", String(min(max(percent, 0), 100)))],
            deviceID: deviceID, idempotent: true)
    }

    /// `PUT /me/player/seek?position_ms=N`: past the end of the track, Spotify skips to the next.
    package func seek(toMs position: Int, deviceID: String? = nil) async throws {
        try await command(
            "PUT", "/me/player/seek", query: [("position_ms", String(max(position, 0)))], deviceID: deviceID,
            idempotent: true)
    }

    /// `PUT /me/player` `{"device_ids": [id], "play": play}`: playback moves to that device;
    /// `play` true starts it there, false keeps the current state (playing or paused).
    package func transfer(toDeviceID id: String, play: Bool) async throws {
        let body: JSONValue = ["device_ids": [.string(id)], "play": .bool(play)]
        try await command(
            "PUT", "/me/player", deviceID: nil, body: Data(body.serialized().utf8), idempotent: true)
    }

    /// Client errors a command hands back to be explained by their `reason` (PREMIUM_REQUIRED,
    /// NO_ACTIVE_DEVICE, ...); 401 and 429 stay with the retry policy.
    static let commandRefusals = Set(400..<500).subtracting([401, 429])

    /// Sends one command; a failure becomes the `ToolError` for its reason. Reasons in
    /// `tolerating` mean the player is already where it was asked to go: success.
    /// `idempotent`: the command sets an absolute state, so a try whose answer was lost is sent again.
    func command(
        _ method: String, _ path: String, query: [(String, String)] = [], deviceID: String?,
        body: Data? = nil, tolerating: Set<String> = [], idempotent: Bool = false
    ) async throws {
        var query = query
        if let deviceID { query.append(("device_id", deviceID)) }
        let result = try await api.send(
            method: method, path: path, query: query, body: body, passing: Self.commandRefusals,
            idempotent: idempotent)
        if result.isSuccess { return }
        let error = SpotifyErrorBody(result)
        if let reason = error.reason, tolerating.contains(reason) { return }
        let refusal = PlayerCommandError(error)
        if refusal == .missingScope {
            throw await api.missingScope(SpotifyScope.Need([Self.controlScope], for: "controlling playback"))
        }
        throw refusal.toolError
    }
}

extension SpotifyPlayer {
    /// Most pages to walk back through: Spotify keeps about 50 plays, so this is a safety net.
    static let maxRecentPages = 50

    /// Recently played tracks as `played` records, newest first, back to (not including) `after`
    /// (seconds since 1970), and how many plays were left out for having no track or no
    /// `played_at`, so the caller can say so rather than drop them silently.
    /// `wholePages`: a page that reaches `after` is kept whole and is the last one read (a sync
    /// checks every play on it against its log: one request when nothing is new, and a play that
    /// reached Spotify late is still found).
    package func playedRecords(after: Double?, wholePages: Bool = false) async throws -> (
        plays: [PlayedRecord], skipped: Int
    ) {
        var plays: [PlayedRecord] = []
        var skipped = 0
        var before: Int?
        pages: for _ in 0..<Self.maxRecentPages {
            let page = try await recentlyPlayed(before: before)
            let items = page["items"]?.arrayValue ?? []
            var reached = false
            for item in items {
                guard let playedAt = item["played_at"]?.stringValue else {
                    skipped += 1
                    continue
                }
                if let after, let time = parseISOTimestamp(playedAt), time <= after {
                    guard wholePages else { break pages }
                    reached = true
                }
                guard let record = PlayedRecord(track: item["track"], playedAt: playedAt, context: item["context"])
                else {
                    skipped += 1
                    continue
                }
                plays.append(record)
            }
            // Cursor paging backwards in time; stop when Spotify has no more or the cursor stalls.
            let cursor = page["cursors"]?["before"].flatMap { $0.intValue ?? $0.stringValue.flatMap { Int($0) } }
            guard !reached, !items.isEmpty, page["next"]?.stringValue != nil, let cursor, cursor != before else {
                break
            }
            before = cursor
        }
        return (plays, skipped)
    }
}

/// Why a playback command failed, read from Spotify's answer, with what to do about it.
package enum PlayerCommandError: Error, Sendable, Equatable {
    case missingScope
    case premiumRequired
    case noActiveDevice
    case restricted(String?)
    case other(status: Int, reason: String?, message: String)

    package init(_ error: SpotifyErrorBody) {
        let message = error.message
        switch (error.status, error.reason) {
        case (_, "PREMIUM_REQUIRED"): self = .premiumRequired
        case (_, "NO_ACTIVE_DEVICE"): self = .noActiveDevice
        case (_, "DEVICE_NOT_CONTROLLABLE"), (_, "REMOTE_CONTROL_DISALLOW"): self = .restricted(nil)
        case (403, _) where message.localizedCaseInsensitiveContains("scope"): self = .missingScope
        case (403, _) where message.localizedCaseInsensitiveContains("restriction violated"): self = .restricted(nil)
        default: self = .other(status: error.status, reason: error.reason, message: message)
        }
    }

    /// The message and exit status: 77 for what a login or an account fixes, 69 for the device side.
    package var toolError: ToolError {
        switch self {
        case .missingScope:
            return .noPermission(
                SpotifyScope.missingMessage([SpotifyPlayer.controlScope], for: "controlling playback"))
        case .premiumRequired:
            return .noPermission(
                """
                controlling playback needs Spotify Premium (PREMIUM_REQUIRED); with a Free account, start music in \
                the Spotify app instead
                """
            )
        case .noActiveDevice:
            return .unavailable(
                """
                no active device (NO_ACTIVE_DEVICE): start Spotify on a phone, computer or speaker, or name one with \
                --device (see: spotify-nowplaying devices)
                """
            )
        case .restricted(let name):
            let device = name.map { "the device '\($0)'" } ?? "the active device"
            return .unavailable(
                """
                \(device) does not accept remote commands (a restricted device); pick another with --device (see: \
                spotify-nowplaying devices)
                """
            )
        case .other(let status, let reason, let message):
            return .unavailable(
                "Spotify refused the command (HTTP \(status)\(reason.map { ", \($0)" } ?? "")): \(message)")
        }
    }
}
