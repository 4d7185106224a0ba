import ToolkitCLI
import Tools

await ToolRunner.main(Songcount.spec)
