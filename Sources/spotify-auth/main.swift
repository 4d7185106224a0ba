import SpotifyToolkit

await SpotifyAuth.main()
