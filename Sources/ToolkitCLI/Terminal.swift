import ToolkitCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Facts about the process's standard streams, read once at start-up.
package struct Terminal: Sendable {
    package var stdinIsTerminal: Bool
    var stdoutIsTerminal: Bool
    package var stderrIsTerminal: Bool

    package init(stdinIsTerminal: Bool, stdoutIsTerminal: Bool, stderrIsTerminal: Bool) {
        self.stdinIsTerminal = stdinIsTerminal
        self.stdoutIsTerminal = stdoutIsTerminal
        self.stderrIsTerminal = stderrIsTerminal
    }

    /// What a pipe or a file shows: no terminal anywhere.
    package static let none = Terminal(stdinIsTerminal: false, stdoutIsTerminal: false, stderrIsTerminal: false)

    package static func current(environment: ToolEnvironment) -> Terminal {
        let dumb = environment["TERM"] == "dumb"
        return Terminal(
            stdinIsTerminal: isatty(0) == 1,
            stdoutIsTerminal: isatty(1) == 1 && !dumb,
            stderrIsTerminal: isatty(2) == 1 && !dumb
        )
    }
}

/// Whether stdout gets the short human form or JSON Lines.
package enum OutputMode: Sendable, Equatable {
    case human
    case jsonLines

    /// Set to 1, it makes a pipe count as a terminal (for scripts and tests).
    package static let forceTerminalVariable = "SPOTIFY_TOOLKIT_FORCE_TTY"

    /// JSON Lines when piped or when `--json` is given; the human form on a terminal.
    /// `SPOTIFY_TOOLKIT_FORCE_TTY=1` makes a pipe count as a terminal (for scripts and tests).
    package static func resolve(forcedJSON: Bool, terminal: Terminal, environment: ToolEnvironment) -> OutputMode {
        if forcedJSON { return .jsonLines }
        if terminal.stdoutIsTerminal || environment[forceTerminalVariable] == "1" { return .human }
        return .jsonLines
    }
}
