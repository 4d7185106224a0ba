import ToolkitCLI
import Tools

await ToolRunner.main(SpotifyAuth.spec)
