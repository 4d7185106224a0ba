import SpotifyToolkit

await RoutineLink.main()
