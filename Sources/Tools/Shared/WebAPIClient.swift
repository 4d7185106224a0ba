import SpotifyClient
import ToolkitCLI
import ToolkitCore

extension ToolContext {
    /// The Web API client for the logged-in user (or `SPOTIFY_ACCESS_TOKEN`): the one way a tool
    /// makes one. `store` is the token store when the caller already holds it (spotify-auth).
    func webAPI(store: TokenStore? = nil) throws -> SpotifyWebAPI {
        try SpotifyWebAPI(environment: environment, tokens: try TokenProvider(environment: environment, store: store))
            .validated()
    }

    /// The player, through the same client.
    func player() throws -> SpotifyPlayer {
        SpotifyPlayer(api: try webAPI())
    }
}
