/// The one error type tools report: a message meant for a person and the exit status it implies.
/// The runner prints it as `tool: message` on stderr and exits with `exitCode`.
package struct ToolError: Error, Sendable, Equatable, CustomStringConvertible {
    package var exitCode: ExitCode
    package var message: String
    /// Usage errors also print the usage line and "Try 'tool --help'".
    package var showsUsageHint: Bool
    /// The command the usage hint is about (`["spotify-auth", "login"]`); nil means the tool itself.
    package var commandPath: [String]?

    package init(_ exitCode: ExitCode, _ message: String, showsUsageHint: Bool = false) {
        self.exitCode = exitCode
        self.message = message
        self.showsUsageHint = showsUsageHint
    }

    package var description: String { message }

    package static func usage(_ message: String) -> ToolError { ToolError(.usage, message, showsUsageHint: true) }
    package static func dataError(_ message: String) -> ToolError { ToolError(.dataError, message) }
    package static func noInput(_ message: String) -> ToolError { ToolError(.noInput, message) }
    package static func ioError(_ message: String) -> ToolError { ToolError(.ioError, message) }
    package static func config(_ message: String) -> ToolError { ToolError(.config, message) }
    package static func noPermission(_ message: String) -> ToolError { ToolError(.noPermission, message) }
    package static func unavailable(_ message: String) -> ToolError { ToolError(.unavailable, message) }
    package static func tempFail(_ message: String) -> ToolError { ToolError(.tempFail, message) }
    package static func software(_ message: String) -> ToolError { ToolError(.software, message) }
}
