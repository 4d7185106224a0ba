import Tools

await SpotifyAuth.main()
