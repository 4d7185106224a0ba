import SpotifyToolkit

extension FakeSpotifyService {
    /// Every endpoint fake-spotify serves. First match by path and method wins; a path that matches
    /// with another method gets 405, anything else 404 "Service not found".
    ///
    /// `.bearer` routes run only with a valid access token (`request.token`); `{name}` segments
    /// arrive as `request[parameter: "name"]`. Adding an endpoint is a line here plus, when it
    /// needs logic, a method in WebAPIHandlers.swift.
    static let routes: [Route] = [
        // Accounts service (AccountsHandlers.swift)
        Route("GET", "/authorize", .open) { service, request in service.authorize(request) },
        Route("POST", "/api/token", .open) { service, request in service.token(request) },

        // Web API
        Route("GET", "/v1/me", .bearer) { _, _ in Fixtures.response("me.json") },
        // Playlists and the library (PlaylistHandlers.swift)
        Route("GET", "/v1/me/playlists", .bearer) { service, request in service.myPlaylists(request) },
        Route("GET", "/v1/me/tracks", .bearer) { service, request in service.savedTracks(request) },
        Route("GET", "/v1/playlists/{id}", .bearer) { service, request in service.playlist(request) },
        Route("GET", "/v1/playlists/{id}/items", .bearer) { service, request in service.playlistItems(request) },
        Route("GET", "/v1/playlists/{id}/tracks", .bearer) { service, request in service.playlistItems(request, legacyEndpoint: true) },

        // Test controls (ControlHandlers.swift)
        Route("GET", "/_fake/counters", .control) { service, _ in Control.json(service.counters) },
        Route("POST", "/_fake/reset-counters", .control) { service, _ in service.resetCounters() },
        Route("POST", "/_fake/tokens", .control) { service, request in service.mintTokens(request) },
        Route("GET", "/_fake/settings", .control) { service, _ in Control.json(service.settings.json) },
        Route("POST", "/_fake/settings", .control) { service, request in service.changeSettings(request) },
        Route("POST", "/_fake/expire-access-tokens", .control) { service, _ in service.expireAccessTokens() },
        Route("POST", "/_fake/fail", .control) { service, request in service.addFailure(request) },
        Route("POST", "/_fake/advance-clock", .control) { service, request in service.advanceClock(request) },
        Route("GET", "/_fake/library", .control) { service, _ in Control.json(service.library.json) },
        Route("POST", "/_fake/library", .control) { service, request in service.libraryControls(request) },
        Route("GET", "/_fake/faults", .control) { service, _ in service.listFaults() },
        Route("POST", "/_fake/faults", .control) { service, request in service.addFault(request) },
        Route("POST", "/_fake/clear-faults", .control) { service, _ in service.clearFaults() },
        Route("POST", "/_fake/edit-playlist", .control) { service, request in service.editPlaylist(request) },
    ]
}
