import ToolkitCLI
import Tools

await ToolRunner.main(RoutineLink.spec)
