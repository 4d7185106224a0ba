import SpotifyClient
import ToolkitCLI

/// Which Spotify a tool talks to, and with which token: the variables every tool that reads
/// the Web API describes the same way in its help and man page, written once here.
enum SpotifyEnvironment {
    static let accessToken = EnvironmentSpec(
        TokenProvider.accessTokenVariable, "Use this access token as is instead of the stored login.")
    static let apiBase = EnvironmentSpec(
        SpotifyWebAPI.baseVariable,
        """
        The Web API: https, or http only to a loopback address (127.0.0.1, [::1]). A stored login is sent only to \
        the services it was made against. Default: \(SpotifyWebAPI.defaultBase).
        """
    )
}
