import SpotifyClient
import ToolkitCLI
import ToolkitCore

/// `spotify-playlists --owned` / `--not-owned`: the listing kept to the playlists whose items you
/// can read and change (yours, or collaborative), or to the others (followed ones: Spotify's own
/// editorial playlists answer 404 to their items, other people's 403), so a whole-library
/// pipeline (`spotify-playlists --owned | spotify-tracks`) reads only what it can.
extension SpotifyPlaylists {
    enum Ownership {
        case owned, notOwned

        static let ownedOption = OptionSpec(
            "owned",
            help:
                """
                List only the playlists you own or collaborate on: the ones whose items you can read and change (one \
                more request, GET /me, for your user id).
                """
        )
        static let notOwnedOption = OptionSpec(
            "not-owned",
            help:
                """
                List only the playlists you follow but neither own nor collaborate on (Spotify shows no items of them).
                """
        )
        static let options = [ownedOption, notOwnedOption]

        static func chosen(_ command: ParsedCommand) throws -> Ownership? {
            switch (try command.flag(ownedOption), try command.flag(notOwnedOption)) {
            case (true, true): throw ToolError.usage("--owned and --not-owned cannot be used together")
            case (true, false): return .owned
            case (false, true): return .notOwned
            case (false, false): return nil
            }
        }

        /// Whether the listing keeps `playlist`, for the user `userID`.
        func keeps(_ playlist: JSONValue, userID: String) -> Bool {
            LibraryReads.isOwned(playlist, byUser: userID) == (self == .owned)
        }
    }

    static let ownershipDiscussion =
        """
        --owned keeps the listing to the playlists you own or collaborate on, the ones whose items Spotify shows you \
        and lets you change; --not-owned to the others you follow (Spotify's own editorial playlists, whose items \
        answer 404, and other people's, 403). So spotify-playlists --owned | spotify-tracks reads a whole library and \
        exits 0.
        """
}
