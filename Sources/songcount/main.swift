import SpotifyToolkit

await Songcount.main()
