import SpotifyToolkit

await SpotifyNowPlaying.main()
