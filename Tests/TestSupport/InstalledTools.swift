/// The installed tools, in the order the docs list them: what the end-to-end tests spawn, named
/// here so that they need not link the tools themselves (MultiCallTests holds this equal to
/// `ToolCatalog.names`).
package enum InstalledTools {
    package static let names = [
        "spotify-auth", "spotify-playlists", "spotify-tracks", "songcount", "spotify-nowplaying", "routine-link",
    ]
}
