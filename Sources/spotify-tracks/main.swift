import ToolkitCLI
import Tools

await ToolRunner.main(SpotifyTracks.spec)
