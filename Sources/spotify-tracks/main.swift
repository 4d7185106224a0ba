import SpotifyToolkit

await SpotifyTracks.main()
