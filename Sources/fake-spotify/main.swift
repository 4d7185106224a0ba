import FakeSpotify

await FakeSpotifyCommand.main()
