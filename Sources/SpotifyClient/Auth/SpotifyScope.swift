import ToolkitCore

/// The scopes the toolkit asks for beyond its read-only default, and the one way a missing scope
/// is reported: exit 77, naming the scope and the login that adds it.
package enum SpotifyScope {
    package static let modifyPrivatePlaylists = "playlist-modify-private"
    package static let modifyPublicPlaylists = "playlist-modify-public"
    package static let modifyLibrary = "user-library-modify"
    package static let modifyPlayback = "user-modify-playback-state"
    package static let readRecentlyPlayed = "user-read-recently-played"

    /// What a write needs, to say so when Spotify refuses it for want of a scope.
    package struct Need: Sendable, Equatable {
        /// The scope(s) that would allow it, the first the one to name.
        package var scopes: [String]
        /// What was being done ("editing playlists").
        package var what: String

        package init(_ scopes: [String], for what: String) {
            self.scopes = scopes
            self.what = what
        }

        package var error: ToolError {
            let login = "spotify-auth login " + scopes.map { "--scope \($0)" }.joined(separator: " ")
            let names = scopes.count == 1 ? "the \(scopes[0]) scope" : "the scopes " + scopes.joined(separator: " and ")
            return .noPermission("\(what) needs \(names); log in again with it: \(login)")
        }
    }
}

extension SpotifyErrorBody {
    /// Spotify's 403 for a token that lacks a scope ("Insufficient client scope").
    package var isMissingScope: Bool { status == 403 && message.localizedCaseInsensitiveContains("scope") }
}
