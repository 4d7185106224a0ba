import ToolkitCore

/// How fake-spotify behaves. Set from the command line at launch; everything but the client ids and
/// redirect URIs can also be changed while it runs (`POST /_fake/settings`).
struct FakeSpotifySettings: Sendable, Equatable {
    /// Registered client ids; empty accepts any non-empty client_id.
    var clientIDs: [String] = []
    /// Registered redirect URIs. A loopback http URI without a port matches any port.
    var redirectURIs: [String] = FakeSpotifySettings.defaultRedirectURIs
    /// `expires_in` of issued access tokens, in seconds; they stop working after it.
    var accessTokenLifetime = 3600
    /// Seconds after the original authorization (not the last refresh) after which refresh answers
    /// invalid_grant "Refresh token revoked"; nil: never.
    var refreshTokenLifetime: Int?
    /// Each refresh returns a new refresh token and the old one dies.
    var rotation = true
    /// Refresh responses carry no refresh_token (and the old one keeps working). Wins over `rotation`.
    var omitRefreshToken = false
    /// /authorize answers `error=access_denied` instead of a code.
    var deny = false
    /// Sleep inside POST /api/token before answering (after the grant took effect).
    var tokenDelayMs = 0
    /// The music library's shape and the Web API's pace (PlaylistHandlers.swift).
    var library = LibrarySettings()

    static let defaultRedirectURIs = ["http://127.0.0.1/callback", "http://[::1]/callback"]

    init() {}

    /// The settings as `POST /_fake/settings` answers them.
    var json: JSONValue {
        [
            "deny": .bool(deny),
            "rotation": .bool(rotation),
            "omit_refresh_token": .bool(omitRefreshToken),
            "access_token_lifetime": .int(accessTokenLifetime),
            "refresh_token_lifetime": refreshTokenLifetime.map(JSONValue.int) ?? .null,
            "token_delay_ms": .int(tokenDelayMs),
            "client_ids": .array(clientIDs.map(JSONValue.string)),
            "redirect_uris": .array(redirectURIs.map(JSONValue.string)),
        ]
    }

    /// Applies form fields from `POST /_fake/settings`; throws a message naming the bad field.
    /// Nothing is applied when any field is bad.
    mutating func apply(_ fields: [(name: String, value: String)]) throws {
        var updated = self
        for (name, value) in fields {
            switch name {
            case "deny": updated.deny = try Self.bool(name, value)
            case "rotation": updated.rotation = try Self.bool(name, value)
            case "omit_refresh_token": updated.omitRefreshToken = try Self.bool(name, value)
            case "access_token_lifetime": updated.accessTokenLifetime = try Self.int(name, value)
            case "refresh_token_lifetime":
                updated.refreshTokenLifetime = ["", "none", "null"].contains(value) ? nil : try Self.int(name, value)
            case "token_delay_ms":
                let ms = try Self.int(name, value)
                guard ms >= 0 else { throw ControlError("token_delay_ms must not be negative") }
                updated.tokenDelayMs = ms
            default:
                throw ControlError(
                    """
                    unknown setting '\(name)'; known: deny, rotation, omit_refresh_token, access_token_lifetime, \
                    refresh_token_lifetime, token_delay_ms
                    """
                )
            }
        }
        self = updated
    }

    static func bool(_ name: String, _ value: String) throws -> Bool {
        switch value.lowercased() {
        case "true", "1", "yes", "on": return true
        case "false", "0", "no", "off": return false
        default: throw ControlError("\(name) must be true or false, not '\(value)'")
        }
    }

    static func int(_ name: String, _ value: String) throws -> Int {
        guard let number = Int(value) else { throw ControlError("\(name) must be a whole number, not '\(value)'") }
        return number
    }
}

/// A bad request to a `/_fake/` control: answered 400 `{"error":"..."}`.
struct ControlError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
