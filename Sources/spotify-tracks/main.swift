import Tools

await SpotifyTracks.main()
