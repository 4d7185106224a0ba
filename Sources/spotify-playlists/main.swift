import Tools

await SpotifyPlaylists.main()
