import ToolkitCore

/// What a login asks Spotify for, decided before any request: the app (its client id) and
/// redirect URI, each from the option, then the environment, then the config file; and the
/// scopes. Values in, values out, so each rule is tested without a browser.
package struct LoginRequest: Sendable, Equatable {
    package var clientID: String
    /// The redirect URI as given (parsed by `LoopbackRedirect.parse` after the client id is known).
    package var redirectURI: String

    /// The client id and redirect URI this login uses; without a client id, the steps that get one.
    package init(
        clientID option: String?, redirectURI redirectOption: String?, environment: ToolEnvironment,
        saved: ConfigFile.Settings
    ) throws {
        redirectURI =
            redirectOption ?? environment["SPOTIFY_REDIRECT_URI"] ?? saved.redirectURI ?? LoopbackRedirect.defaultURI
        guard let clientID = option ?? environment["SPOTIFY_CLIENT_ID"] ?? saved.clientID else {
            // The redirect URI this login would use, so the app is registered with the right one.
            var error = ToolError.config("no client id. To get one:")
            error.detailLines = [
                "1. create an app at https://developer.spotify.com/dashboard (Web API);",
                "2. in its settings, add the redirect URI \(redirectURI);",
                "3. under User Management, add the Spotify account you log in with (Development Mode allows 5 users);",
                """
                4. run: spotify-auth login --client-id YOUR_CLIENT_ID (or set SPOTIFY_CLIENT_ID); it is saved for \
                next time.
                """,
            ]
            throw error
        }
        // A client id is a token of letters and digits (Spotify's: 32 hex digits); anything else
        // would only show up as an error page in the browser.
        guard !clientID.isEmpty,
            clientID.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else {
            throw ToolError.config(
                """
                '\(clientID)' is not a client id: Spotify's are 32 hex digits, shown on your app's page at \
                https://developer.spotify.com/dashboard
                """
            )
        }
        self.clientID = clientID
    }

    /// The scopes a login asks for. They accumulate, as `gh auth refresh -s` does: the defaults,
    /// what the last login was granted (`kept`: its tokens', or the config's when Spotify ended
    /// that session and the tokens went with it) and what --scope adds (`asked`). Otherwise each
    /// hint's login would drop the scope the previous hint added. `keptExtras`: the kept ones that
    /// are neither defaults nor asked for now, which the login names.
    package static func scopes(kept: [String], asked: [String]) -> (scopes: [String], keptExtras: [String]) {
        var scopes = LoginFlow.defaultScopes
        for scope in kept + asked where !scopes.contains(scope) { scopes.append(scope) }
        let keptExtras = scopes.filter {
            kept.contains($0) && !LoginFlow.defaultScopes.contains($0) && !asked.contains($0)
        }
        return (scopes, keptExtras)
    }
}
