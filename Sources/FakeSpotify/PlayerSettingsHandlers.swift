import Foundation
import LoopbackHTTP
import ToolkitCore

/// `PUT /me/player/shuffle`, `/repeat`, `/volume`, `/seek` and `PUT /me/player` (transfer), as
/// Spotify's Web API reference describes them (its Player pages): the scope, the test's chosen
/// answer and the device as for every player command (`playerCommand`), then the parameters (400
/// in Spotify's error shape), then the change to the session, which `GET /me/player` and
/// `/me/player/devices` then report.
extension FakeSpotifyService {
    /// The devices as the session has them: the active one (none with answer=no_active_device)
    /// and the volumes set.
    static func sessionDevices(_ clock: PlaybackClock) -> [JSONValue] {
        devices.map { device in
            guard var object = device.objectValue else { return device }
            let id = device["id"]?.stringValue
            object["is_active"] = .bool(clock.answer != .noActiveDevice && id != nil && id == clock.activeDeviceID)
            if let id, let volume = clock.volumes[id] { object["volume_percent"] = .int(volume) }
            return .object(object)
        }
    }

    /// A 400 as Spotify words them.
    static func badRequest(_ message: String) -> HTTPResponse { WebAPI.error(400, message) }

    /// The query parameter `name`, or the 400 for its absence.
    static func required(_ name: String, _ request: RouteRequest) throws(ResponseError) -> String {
        guard let value = request.http.queryValue(name), !value.isEmpty else {
            throw ResponseError(badRequest("Missing required parameter: \(name)"))
        }
        return value
    }

    /// The query parameter `name` as a whole number of at most `digits` digits in `range`, or the
    /// 400 for its absence or for another value (`invalid`).
    static func requiredInteger(
        _ name: String, _ request: RouteRequest, digits: Int, in range: some RangeExpression<Int>, invalid: String
    ) throws(ResponseError) -> Int {
        let text = try required(name, request)
        guard text.utf8.count <= digits, let value = Int(text), range.contains(value) else {
            throw ResponseError(badRequest(invalid))
        }
        return value
    }

    struct ResponseError: Error {
        var response: HTTPResponse
        init(_ response: HTTPResponse) { self.response = response }
    }

    /// `PUT /me/player/shuffle?state=true|false`.
    func setShuffle(_ request: RouteRequest) -> HTTPResponse {
        playerCommand(request) { clock, request, _ throws(ResponseError) in
            switch try Self.required("state", request) {
            case "true": clock.shuffle = true
            case "false": clock.shuffle = false
            default: return Self.badRequest("Invalid state value: must be true or false")
            }
            clock.log("shuffle")
            return nil
        }
    }

    /// `PUT /me/player/repeat?state=track|context|off`.
    func setRepeat(_ request: RouteRequest) -> HTTPResponse {
        playerCommand(request) { clock, request, _ throws(ResponseError) in
            let state = try Self.required("state", request)
            guard ["track", "context", "off"].contains(state) else {
                return Self.badRequest("Invalid state value: must be track, context or off")
            }
            clock.repeatState = state
            clock.log("repeat")
            return nil
        }
    }

    /// `PUT /me/player/volume?volume_percent=0...100`, on `device_id` or the active device.
    func setVolume(_ request: RouteRequest) -> HTTPResponse {
        playerCommand(request) { clock, request, _ throws(ResponseError) in
            let percent = try Self.requiredInteger(
                "volume_percent", request, digits: 3, in: 0...100,
                invalid: "Invalid volume_percent: must be an integer from 0 to 100")
            let id = request.http.queryValue("device_id") ?? clock.activeDeviceID
            guard Self.devices.first(where: { $0["id"]?.stringValue == id })?["supports_volume"] == true else {
                return WebAPI.json(
                    [
                        "error": [
                            "status": 403, "message": "Player command failed: Cannot control device volume",
                            "reason": "VOLUME_CONTROL_DISALLOW",
                        ]
                    ], status: 403)
            }
            clock.volumes[id] = percent
            clock.log("volume")
            return nil
        }
    }

    /// `PUT /me/player/seek?position_ms=N`: past the end of the track, the next one starts.
    func seek(_ request: RouteRequest) -> HTTPResponse {
        playerCommand(request) { clock, request, now throws(ResponseError) in
            let position = try Self.requiredInteger(
                "position_ms", request, digits: 12, in: 0...,
                invalid: "Invalid position_ms: must be a non-negative integer")
            guard clock.mode != .nothing else {
                return Fixtures.response("error-404-no-active-device.json", status: 404)
            }
            guard let track = clock.current else { return nil }  // an ad or an episode: accepted, nothing moves
            if position >= track.durationMs {
                clock.skip(by: 1, now)
            } else {
                clock.positionMs = Double(position)
                clock.log("seek")
            }
            return nil
        }
    }

    /// `PUT /me/player` `{"device_ids": ["ID"], "play": bool}`: exactly one known, unrestricted
    /// device; `play` true starts playback there, false or absent keeps the state. The device
    /// becomes the active one (so this also ends answer=no_active_device).
    func transferPlayback(_ request: RouteRequest) -> HTTPResponse {
        playerCommand(request, needsActiveDevice: false) { clock, request, now in
            guard let body = try? JSONValue.parse(request.http.body), body.objectValue != nil else {
                return WebAPI.error(400, "Malformed json")
            }
            guard let ids = body["device_ids"]?.arrayValue else {
                return Self.badRequest("Missing required field: device_ids")
            }
            guard ids.count == 1, let id = ids[0].stringValue else {
                return Self.badRequest("Exactly one device id is supported in device_ids")
            }
            let play = body["play"]
            guard play == nil || play?.boolValue != nil else {
                return Self.badRequest("Invalid play value: must be true or false")
            }
            guard let device = Self.devices.first(where: { $0["id"]?.stringValue == id }) else {
                return WebAPI.error(404, "Device not found")
            }
            if device["is_restricted"] == true {
                return WebAPI.error(403, "Player command failed: Restriction violated")
            }
            clock.activeDeviceID = id
            if clock.answer == .noActiveDevice { clock.answer = .ok }
            clock.log("transfer")
            if play?.boolValue == true { clock.resume(now) }
            return nil
        }
    }
}
