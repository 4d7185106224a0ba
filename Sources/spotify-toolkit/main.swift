import ToolkitCLI
import Tools

// The one executable that ships: the tool its name (a link) or its first argument names.
await MultiCall.main(tools: ToolCatalog.names, spec: ToolCatalog.spec(named:))
