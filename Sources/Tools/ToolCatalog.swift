import HTTPClient
import SpotifyClient
import ToolkitCLI
import ToolkitCore

/// The installed tools, in the order the docs list them.
package enum ToolCatalog {
    package static let all: [CommandSpec] = [
        SpotifyAuth.spec, SpotifyPlaylists.spec, SpotifyTracks.spec, Songcount.spec, SpotifyNowPlaying.spec,
        RoutineLink.spec,
    ]
}

extension GeneratedDocs {
    /// The man pages and completion scripts of every installed tool.
    package static func files() -> [File] { files(for: ToolCatalog.all) }
}
