import ToolkitCLI
import Tools

await ToolRunner.main(SpotifyPlaylists.spec)
