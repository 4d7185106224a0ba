import SpotifyToolkit

await SpotifyPlaylists.main()
