import SpotifyClient
import ToolkitCLI
import ToolkitCore

extension SpotifyTracks {
    /// The sources of tracks spotify-tracks reads besides playlists: what it accepts, the
    /// `--include-groups` option, and the words for each source in notes and errors.
    enum Sources {
        /// What a SOURCE may name; a bare id is a playlist.
        static let kinds: [SpotifyReference.Kind] = [.playlist, .album, .artist, .show, .track, .episode]

        static let includeGroupsOption = OptionSpec(
            "include-groups", value: "GROUPS",
            help:
                """
                For an artist, the releases to read, comma-separated, as Spotify names them: album, single, \
                appears_on, compilation. Default: album,single.
                """,
            completion: .suggestions(["album,single", "album", "single", "appears_on", "compilation"]))

        /// `--include-groups`, checked: known groups only, each once, in the order given.
        static func includeGroups(_ command: ParsedCommand) throws -> String {
            guard let text = try command.value(includeGroupsOption) else { return "album,single" }
            var groups: [String] = []
            for group in text.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
                guard PlaylistItemsReader.albumGroups.contains(group) else {
                    throw ToolError.usage(
                        """
                        --include-groups takes album, single, appears_on and compilation, comma-separated, not \
                        '\(TerminalText.clean(String(group.prefix(40))))'
                        """
                    )
                }
                if !groups.contains(group) { groups.append(group) }
            }
            return groups.joined(separator: ",")
        }

        /// "playlist ID", "album ID", …: how notes and errors name a source.
        static func what(_ source: SpotifyReference) -> String { "\(source.kind) \(source.id)" }

        /// The record's `source`: the reference, with the name its answers tell (an album's or
        /// a show's from its object, a track's or an episode's its own, an artist's from its
        /// albums, a playlist's from its object or record).
        static func recordSource(_ reference: SpotifyReference, name: String?, container: JSONValue?, item: JSONValue)
            -> RecordSource
        {
            switch reference.kind {
            case .album, .show: RecordSource(reference, name: container?["name"]?.stringValue)
            case .track, .episode: RecordSource(reference, name: item["name"]?.stringValue)
            case .artist, .playlist: RecordSource(reference, name: name)
            }
        }

        /// Why Spotify would not give a source's items, to report before going on with the next
        /// source; a playlist's words are `PlaylistCommands.refusal`'s. Throws when the refusal is
        /// about the app or the user, not this source.
        static func refusal(_ body: SpotifyErrorBody, source: SpotifyReference) throws -> ToolError {
            if source.kind == .playlist { return try PlaylistCommands.refusal(body, playlist: source) }
            switch body.status {
            case 400, 404:
                return ToolError(
                    .notFound,
                    "\(what(source)): not found (\(body.status): \(body.message)); check the id, URI or URL")
            case 403 where body.isAboutTheApp:
                throw ToolError.noPermission(body.forbiddenExplanation)
            case 403:
                return ToolError.noPermission("\(what(source)): Spotify refused to show it (403: \(body.message))")
            default:
                throw ToolError.unavailable("\(what(source)): Spotify answered HTTP \(body.status): \(body.message)")
            }
        }
    }
}
