/// The installed tools, in the order the docs list them.
public enum ToolCatalog {
    public static let all: [CommandSpec] = [SpotifyAuth.spec, SpotifyPlaylists.spec, SpotifyTracks.spec, Songcount.spec, SpotifyNowPlaying.spec, RoutineLink.spec]
}
