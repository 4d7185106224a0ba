import ToolkitCLI

/// The installed tools, in the order the docs list them.
package enum ToolCatalog {
    package static let all: [CommandSpec] = [
        SpotifyAuth.spec, SpotifyPlaylists.spec, SpotifyTracks.spec, Songcount.spec, SpotifyNowPlaying.spec,
        RoutineLink.spec,
    ]

    /// The tools' names, in `all`'s order, without building a spec (a test holds them equal).
    package static let names = [
        "spotify-auth", "spotify-playlists", "spotify-tracks", "songcount", "spotify-nowplaying", "routine-link",
    ]

    /// One tool's spec. A `switch`, not a search of `all`, so the multi-call binary builds only
    /// the spec of the tool it runs.
    package static func spec(named name: String) -> CommandSpec? {
        switch name {
        case "spotify-auth": SpotifyAuth.spec
        case "spotify-playlists": SpotifyPlaylists.spec
        case "spotify-tracks": SpotifyTracks.spec
        case "songcount": Songcount.spec
        case "spotify-nowplaying": SpotifyNowPlaying.spec
        case "routine-link": RoutineLink.spec
        default: nil
        }
    }
}

extension GeneratedDocs {
    /// The man pages and completion scripts of every installed tool.
    package static func files() -> [File] { files(for: ToolCatalog.all) }
}
