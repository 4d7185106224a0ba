import ToolkitCore

/// The scopes the toolkit asks for beyond its read-only default, the named sets `spotify-auth
/// login --scope` takes, and the one way a missing scope is reported: exit 77, naming the scope
/// and the one login command that adds it.
package enum SpotifyScope {
    static let modifyPrivatePlaylists = "playlist-modify-private"
    static let modifyPublicPlaylists = "playlist-modify-public"
    package static let modifyLibrary = "user-library-modify"
    static let modifyPlayback = "user-modify-playback-state"
    static let readRecentlyPlayed = "user-read-recently-played"
    static let readTop = "user-top-read"
    static let readFollow = "user-follow-read"

    /// The read-only set every login asks for (the README names it, under spotify-auth).
    package static let defaults = [
        "playlist-read-private", "playlist-read-collaborative", "user-read-currently-playing",
        "user-read-playback-state", "user-library-read",
    ]

    /// Names for the scopes a command family needs, so a hint is one short command and a user
    /// need not know Spotify's scope names. `all` is every set; the order is the help's.
    package static let sets: [(name: String, scopes: [String])] = [
        ("playback", [modifyPlayback]),
        // What Spotify knows about your listening: recent plays, top tracks and artists, followed artists.
        ("history", [readRecentlyPlayed, readTop, readFollow]),
        ("edit", [modifyPrivatePlaylists, modifyPublicPlaylists, modifyLibrary]),
        (
            "all",
            [
                modifyPlayback, readRecentlyPlayed, readTop, readFollow, modifyPrivatePlaylists, modifyPublicPlaylists,
                modifyLibrary,
            ]
        ),
    ]

    /// The scopes `--scope` takes by name besides the defaults (which it also accepts).
    package static let extras = [
        modifyPlayback, "user-read-playback-position", readRecentlyPlayed, readTop, readFollow,
        modifyPrivatePlaylists, modifyPublicPlaylists, modifyLibrary,
    ]

    /// `--scope` values as typed (each a scope, a set name, or a list of them split by commas or
    /// spaces) as the scopes they stand for, in order, once each. Throws a usage error naming
    /// what it takes when a value is neither.
    package static func expand(_ values: [String]) throws -> [String] {
        var scopes: [String] = []
        for word in values.flatMap({ $0.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init) }) {
            let named = sets.first { $0.name == word }?.scopes ?? ((extras + defaults).contains(word) ? [word] : nil)
            guard let named else {
                let near = Suggestions.closest(to: word, among: sets.map(\.name) + extras + defaults, limit: 1)
                let hint = Suggestions.didYouMean(near).map { " \($0)" } ?? ""
                throw ToolError.usage(
                    """
                    unknown scope '\(word)' for --scope;\(hint) expected a set \
                    (\(sets.map(\.name).joined(separator: ", "))) or a scope (\(extras.joined(separator: ", ")))
                    """
                )
            }
            for scope in named where !scopes.contains(scope) { scopes.append(scope) }
        }
        return scopes
    }

    /// The `--scope` values that ask for `scopes`: the name of the set holding each, else the
    /// scope itself. Pure.
    static func loginArguments(for scopes: [String]) -> [String] {
        var names: [String] = []
        for scope in scopes {
            let name = sets.dropLast().first { $0.scopes.contains(scope) }?.name ?? scope
            if !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// "spotify-auth login --scope edit": the one command that adds `scopes`.
    static func loginCommand(for scopes: [String]) -> String {
        (["spotify-auth login"] + loginArguments(for: scopes).map { "--scope \($0)" }).joined(separator: " ")
    }

    /// "WHAT needs the S scope; add it with: spotify-auth login --scope SET (...)".
    static func missingMessage(_ scopes: [String], for what: String) -> String {
        let names = scopes.count == 1 ? "the \(scopes[0]) scope" : "the scopes " + scopes.joined(separator: " and ")
        let pronoun = scopes.count == 1 ? "it" : "them"
        return
            "\(what) needs \(names); add \(pronoun) with: \(loginCommand(for: scopes)) (the scopes you have are kept)"
    }

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

        package var error: ToolError { .noPermission(SpotifyScope.missingMessage(scopes, for: what)) }

        /// The same, when the token came from SPOTIFY_ACCESS_TOKEN: that token is used instead of
        /// any login, so a login alone would not help.
        var environmentTokenError: ToolError {
            let names = scopes.count == 1 ? "the \(scopes[0]) scope" : "the scopes " + scopes.joined(separator: " and ")
            return .noPermission(
                """
                \(what) needs \(names), which the token in SPOTIFY_ACCESS_TOKEN lacks; set a token that has \
                \(scopes.count == 1 ? "it" : "them"), or unset SPOTIFY_ACCESS_TOKEN to use your login \
                (\(SpotifyScope.loginCommand(for: scopes)) adds \(scopes.count == 1 ? "it" : "them"))
                """
            )
        }
    }
}

extension SpotifyErrorBody {
    /// Spotify's 403 for a token that lacks a scope ("Insufficient client scope").
    var isMissingScope: Bool { status == 403 && message.localizedCaseInsensitiveContains("scope") }
}
