import ToolkitCLI
import Tools

await ToolRunner.main(SpotifyNowPlaying.spec)
