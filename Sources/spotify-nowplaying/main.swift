import Tools

await SpotifyNowPlaying.main()
