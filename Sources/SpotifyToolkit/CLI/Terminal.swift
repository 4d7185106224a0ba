#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Facts about the process's standard streams, read once at start-up.
public struct Terminal: Sendable {
    public var stdinIsTerminal: Bool
    public var stdoutIsTerminal: Bool
    public var stderrIsTerminal: Bool

    public static func current(environment: ToolEnvironment) -> Terminal {
        let dumb = environment["TERM"] == "dumb"
        return Terminal(
            stdinIsTerminal: isatty(0) == 1,
            stdoutIsTerminal: isatty(1) == 1 && !dumb,
            stderrIsTerminal: isatty(2) == 1 && !dumb
        )
    }
}

/// Whether stdout gets the short human form or JSON Lines.
public enum OutputMode: Sendable, Equatable {
    case human
    case jsonLines

    /// JSON Lines when piped or when `--json` is given; the human form on a terminal.
    /// `SPOTIFY_TOOLKIT_FORCE_TTY=1` makes a pipe count as a terminal (for scripts and tests).
    public static func resolve(forcedJSON: Bool, terminal: Terminal, environment: ToolEnvironment) -> OutputMode {
        if forcedJSON { return .jsonLines }
        if terminal.stdoutIsTerminal || environment["SPOTIFY_TOOLKIT_FORCE_TTY"] == "1" { return .human }
        return .jsonLines
    }
}

/// Diagnostics for people: unbuffered, on stderr, each line prefixed with the tool's name.
public enum StandardError {
    public static func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { raw in
                #if canImport(Glibc)
                Glibc.write(2, raw.baseAddress! + offset, raw.count - offset)
                #else
                Darwin.write(2, raw.baseAddress! + offset, raw.count - offset)
                #endif
            }
            if written < 0 {
                if errno == EINTR { continue }
                return  // nowhere left to complain to
            }
            offset += written
        }
        bytes.removeAll()
    }

    /// `tool: message` on its own line.
    public static func report(_ tool: String, _ message: String) {
        write("\(tool): \(message)\n")
    }
}

/// The text for an errno value, for messages like "cannot open 'x': No such file or directory".
public func systemErrorMessage(_ code: Int32) -> String {
    String(cString: strerror(code))
}
