extension FakeSpotifyService {
    /// Every endpoint fake-spotify serves. First match by path and method wins; a path that matches
    /// with another method gets 405, anything else 404 "Service not found".
    ///
    /// `.bearer` routes run only with a valid access token (`request.token`); `{name}` segments
    /// arrive as `request[parameter: "name"]`. Adding an endpoint is a line here plus, when it
    /// needs logic, a method in the handlers file of its family (PlaylistHandlers.swift,
    /// PlayerHandlers.swift, MeHandlers.swift, SearchHandlers.swift...).
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
        Route("GET", "/v1/playlists/{id}/tracks", .bearer) { service, request in
            service.playlistItems(request, legacyEndpoint: true)
        },
        // What Spotify knows about the user (MeHandlers.swift)
        Route("GET", "/v1/me/top/{type}", .bearer) { service, request in service.topItems(request) },
        Route("GET", "/v1/me/albums", .bearer) { service, request in service.savedAlbums(request) },
        Route("GET", "/v1/me/following", .bearer) { service, request in service.followedArtists(request) },
        // Playlist writes (PlaylistWrites.swift)
        Route("POST", "/v1/me/playlists", .bearer) { service, request in service.createPlaylist(request) },
        Route("PUT", "/v1/playlists/{id}", .bearer) { service, request in service.changePlaylistDetails(request) },
        Route("POST", "/v1/playlists/{id}/items", .bearer) { service, request in service.addItems(request) },
        Route("PUT", "/v1/playlists/{id}/items", .bearer) { service, request in service.replaceOrReorderItems(request)
        },
        Route("DELETE", "/v1/playlists/{id}/items", .bearer) { service, request in service.removeItems(request) },
        // Write endpoints removed for apps in Development Mode: 403.
        // Reading another user's playlists is gone too, as "Service not found" (the list's next links name it).
        Route("GET", "/v1/users/{user}/playlists", .bearer) { _, _ in WebAPI.notFound },
        Route("POST", "/v1/users/{user}/playlists", .bearer) { service, request in service.removedWriteEndpoint(request)
        },
        Route("POST", "/v1/playlists/{id}/tracks", .bearer) { service, request in service.removedWriteEndpoint(request)
        },
        Route("PUT", "/v1/playlists/{id}/tracks", .bearer) { service, request in service.removedWriteEndpoint(request)
        },
        Route("DELETE", "/v1/playlists/{id}/tracks", .bearer) { service, request in
            service.removedWriteEndpoint(request)
        },
        Route("PUT", "/v1/playlists/{id}/followers", .bearer) { service, request in
            service.removedWriteEndpoint(request)
        },
        Route("DELETE", "/v1/playlists/{id}/followers", .bearer) { service, request in
            service.removedWriteEndpoint(request)
        },
        // The catalogue (CatalogHandlers.swift)
        Route("GET", "/v1/albums/{id}", .bearer) { service, request in service.album(request) },
        Route("GET", "/v1/albums/{id}/tracks", .bearer) { service, request in service.albumTracks(request) },
        Route("GET", "/v1/artists/{id}", .bearer) { service, request in service.artist(request) },
        Route("GET", "/v1/artists/{id}/albums", .bearer) { service, request in service.artistAlbums(request) },
        Route("GET", "/v1/shows/{id}", .bearer) { service, request in service.show(request) },
        Route("GET", "/v1/shows/{id}/episodes", .bearer) { service, request in service.showEpisodes(request) },
        Route("GET", "/v1/tracks/{id}", .bearer) { service, request in service.catalogueTrack(request) },
        Route("GET", "/v1/episodes/{id}", .bearer) { service, request in service.catalogueEpisode(request) },
        // Search (SearchHandlers.swift)
        Route("GET", "/v1/search", .bearer) { service, request in service.search(request) },
        // Player (PlayerHandlers.swift)
        Route("GET", "/v1/me/player/currently-playing", .bearer) { service, request in
            service.playerState(request, withDevice: false)
        },
        Route("GET", "/v1/me/player", .bearer) { service, request in service.playerState(request, withDevice: true) },
        Route("GET", "/v1/me/player/devices", .bearer) { service, request in service.devicesResponse(request) },
        Route("GET", "/v1/me/player/recently-played", .bearer) { service, request in service.recentlyPlayed(request) },
        Route("GET", "/v1/me/player/queue", .bearer) { service, request in service.playerQueue(request) },
        Route("PUT", "/v1/me/player/play", .bearer) { service, request in service.play(request) },
        Route("PUT", "/v1/me/player/pause", .bearer) { service, request in service.pausePlayback(request) },
        Route("POST", "/v1/me/player/next", .bearer) { service, request in service.skip(request, by: 1) },
        Route("POST", "/v1/me/player/previous", .bearer) { service, request in service.skip(request, by: -1) },
        Route("POST", "/v1/me/player/queue", .bearer) { service, request in service.enqueue(request) },
        Route("PUT", "/v1/me/player/shuffle", .bearer) { service, request in service.setShuffle(request) },
        Route("PUT", "/v1/me/player/repeat", .bearer) { service, request in service.setRepeat(request) },
        Route("PUT", "/v1/me/player/volume", .bearer) { service, request in service.setVolume(request) },
        Route("PUT", "/v1/me/player/seek", .bearer) { service, request in service.seek(request) },
        Route("PUT", "/v1/me/player", .bearer) { service, request in service.transferPlayback(request) },
        // The library's writes (LibraryWrites.swift)
        Route("PUT", "/v1/me/library", .bearer) { service, request in service.writeLibrary(request, save: true) },
        Route("DELETE", "/v1/me/library", .bearer) { service, request in service.writeLibrary(request, save: false) },
        Route("GET", "/v1/me/library/contains", .bearer) { service, request in service.libraryContains(request) },

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
        Route("POST", "/_fake/other-client", .control) { service, request in service.otherClientEdit(request) },
        Route("GET", "/_fake/playback", .control) { service, _ in service.playbackReport() },
        Route("POST", "/_fake/playback", .control) { service, request in service.startPlayback(request) },
        Route("POST", "/_fake/playback/{action}", .control) { service, request in service.changePlayback(request) },
        Route("GET", "/_fake/saved-items", .control) { service, _ in service.savedItemsReport() },
    ]
}
