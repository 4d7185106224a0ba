import Foundation
import SpotifyClient
import ToolkitCore

/// What the tools and a fake-spotify at `base` share, whether the fake runs in process
/// (`InProcessFake`) or as a process (`FakeSpotifyProcess`).
package enum FakeHome {
    package static let clientID = "test-client"
    package static let userID = "31kx7ufdeznvfbgxsw2ocqc2ql4e"

    /// The environment that points the tools at the fake, with config, cache and state under
    /// `home` (the data home is the caller's choice: several end-to-end homes bring their own). The snapshot cache is off unless a test turns it on: request counts and
    /// fault schedules then stay those of plain fetches, and nothing reaches ~/.cache.
    package static func environment(base: String, home: URL, _ extra: [String: String] = [:]) -> [String: String] {
        var env = [
            "SPOTIFY_ACCOUNTS_BASE": base,
            "SPOTIFY_API_BASE": base + "/v1",
            "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
            "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
            "XDG_STATE_HOME": home.appendingPathComponent("state").path,
            // A watch adds what it hears to the listening log there: never the runner's own.
            "XDG_DATA_HOME": home.appendingPathComponent("data").path,
            // Where a watch publishes what it sees: the runner's own would let tests read each other's.
            "XDG_RUNTIME_DIR": home.appendingPathComponent("runtime").path,
            "SPOTIFY_TOOLKIT_CACHE_SIZE": "0",
            // Nor are playlists' versions kept (no snapshot check after a read), unless a test turns it on.
            "SPOTIFY_TOOLKIT_HISTORY_SIZE": "0",
            "SPOTIFY_TOOLKIT_TOKEN_STORE": "file",
            "SPOTIFY_CLIENT_ID": clientID,
            "SPOTIFY_ACCESS_TOKEN": "",
            "BROWSER": "",
        ]
        for (key, value) in extra { env[key] = value }
        return env
    }

    package static func configDirectory(home: URL) -> String {
        home.appendingPathComponent("config/spotify-toolkit").path
    }

    /// The form that asks the fake (`POST /_fake/tokens`) for tokens living `expiresIn` seconds.
    package static func tokenForm(expiresIn: Int, scope: String?) -> [(String, String)] {
        var form = [("expires_in", String(expiresIn)), ("client_id", clientID)]
        if let scope { form.append(("scope", scope)) }
        return form
    }

    /// The tokens a login would store, from what the fake minted; the store says they expire in
    /// `storeExpiresIn` seconds (default: as minted).
    package static func tokens(minted: JSONValue, expiresIn: Int, storeExpiresIn: Int? = nil) -> StoredTokens {
        let now = Date().timeIntervalSince1970
        return StoredTokens(
            accessToken: minted["access_token"]?.stringValue ?? "", scope: minted["scope"]?.stringValue ?? "",
            expiresAt: now + Double(storeExpiresIn ?? expiresIn), refreshToken: minted["refresh_token"]?.stringValue,
            clientID: clientID, authorizedAt: now, userID: userID, displayName: "Fixture User")
    }
}
