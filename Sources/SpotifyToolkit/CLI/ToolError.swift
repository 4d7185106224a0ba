/// The one error type tools report: a message meant for a person and the exit status it implies.
/// The runner prints it as `tool: message` on stderr and exits with `exitCode`.
public struct ToolError: Error, Sendable, Equatable, CustomStringConvertible {
    public var exitCode: ExitCode
    public var message: String
    /// Usage errors also print the usage line and "Try 'tool --help'".
    public var showsUsageHint: Bool
    /// The command the usage hint is about (`["spotify-auth", "login"]`); nil means the tool itself.
    public var commandPath: [String]?
    /// Trying again cannot help (e.g. a refused redirect): the retry policy gives up at once.
    public var isPermanent = false

    public init(_ exitCode: ExitCode, _ message: String, showsUsageHint: Bool = false) {
        self.exitCode = exitCode
        self.message = message
        self.showsUsageHint = showsUsageHint
    }

    public var description: String { message }

    public static func usage(_ message: String) -> ToolError { ToolError(.usage, message, showsUsageHint: true) }
    public static func dataError(_ message: String) -> ToolError { ToolError(.dataError, message) }
    public static func noInput(_ message: String) -> ToolError { ToolError(.noInput, message) }
    public static func ioError(_ message: String) -> ToolError { ToolError(.ioError, message) }
    public static func config(_ message: String) -> ToolError { ToolError(.config, message) }
    public static func noPermission(_ message: String) -> ToolError { ToolError(.noPermission, message) }
    public static func unavailable(_ message: String) -> ToolError { ToolError(.unavailable, message) }
    public static func tempFail(_ message: String) -> ToolError { ToolError(.tempFail, message) }
    public static func software(_ message: String) -> ToolError { ToolError(.software, message) }
}
