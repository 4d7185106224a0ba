import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The streams and facts a command runs with: the process's own in `main`, files in a test that
/// runs a tool in process. Nothing below the runner reaches fd 0, 1 or 2, `isatty` or the wall
/// clock by itself.
package struct ToolStreams: Sendable {
    package var stdin: Int32
    package var stdout: Int32
    package var stderr: Int32
    package var terminal: Terminal
    /// Seconds since 1970.
    package var clock: @Sendable () -> Double

    package init(
        stdin: Int32, stdout: Int32, stderr: Int32, terminal: Terminal,
        clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    ) {
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self.terminal = terminal
        self.clock = clock
    }

    /// fd 0, 1 and 2 as they are, and the wall clock.
    package static func standard(environment: ToolEnvironment) -> ToolStreams {
        ToolStreams(stdin: 0, stdout: 1, stderr: 2, terminal: .current(environment: environment))
    }
}

/// What a running command gets from the runner: its streams, terminal facts, environment and clock.
package struct ToolContext {
    package let toolName: String
    package let environment: ToolEnvironment
    package let terminal: Terminal
    package let stdin: StandardInput
    /// Standard output; the runner flushes it at exit and turns write errors into exit 74.
    package let stdout: JSONLinesWriter
    package let stderr: DiagnosticStream
    /// Seconds since 1970.
    package let clock: @Sendable () -> Double
    /// The settings for tests and benchmarks, read from `environment` once, here; the clients get
    /// them from this, never from the environment.
    package let developer: DeveloperSettings
    /// A bad developer setting (exit 78 naming it), which the runner throws before the command runs.
    let developerProblem: ToolError?
    /// Requests this run sent to Spotify (the request ledger counts them as it writes them down).
    package let requestsSent = Locked(0)
    /// `--max-requests`: the most requests this run may send (nil: no limit); every Web API client
    /// made after it is set keeps to it.
    package let requestLimit = Locked<Int?>(nil)
    /// A line for a person at the end of the run, on a terminal only (what a costly run spent);
    /// set by whatever sends the requests, read once by the runner.
    package let endOfRunNote = Locked<(@Sendable () -> String?)?>(nil)

    package init(toolName: String, environment: ToolEnvironment, streams: ToolStreams) {
        self.toolName = toolName
        self.environment = environment
        terminal = streams.terminal
        stdin = StandardInput(fileDescriptor: streams.stdin)
        stdout = JSONLinesWriter(
            fileDescriptor: streams.stdout, flushesAtBatchEnd: Self.readerMayWait(streams))
        stderr = DiagnosticStream(fileDescriptor: streams.stderr)
        clock = streams.clock
        do {
            developer = try DeveloperSettings(environment: environment)
            developerProblem = nil
        } catch {
            developer = DeveloperSettings()
            developerProblem = error
        }
    }

    package var now: Double { clock() }

    /// How wide a table may be: `COLUMNS`, else the window size of this run's stdout, else 80.
    package var terminalWidth: Int { TextTable.terminalWidth(environment: environment, output: stdout.fileDescriptor) }

    /// The one flushing policy of every tool's output (`JSONLinesWriter.endBatch`): each page, or
    /// each record that took a request, goes on at once when standard output is a pipe, a socket
    /// or a terminal, where a reader may be waiting for it (the next stage of a pipeline, `head`,
    /// a person); into a file or /dev/null it stays buffered.
    static func readerMayWait(_ streams: ToolStreams) -> Bool {
        streams.terminal.stdoutIsTerminal || [.pipe, .socket].contains(DescriptorKind(streams.stdout))
    }

    /// The user's time zone (`TZ`), for times shown to people; records stay in UTC.
    package var timeZone: LocalZone { LocalTime.zone(environment["TZ"]) }

    /// The human form on a terminal, JSON Lines when piped or when `forcedJSON` (`--json`).
    package func outputMode(forcedJSON: Bool) -> OutputMode {
        OutputMode.resolve(forcedJSON: forcedJSON, terminal: terminal, environment: environment)
    }

    /// A diagnostic line on stderr: `tool: message`. A closure, so layers below can be handed it.
    package var warn: @Sendable (String) -> Void {
        let stderr = stderr
        let tool = toolName
        return { stderr.report(tool, $0) }
    }

    /// Whether a destructive command should go ahead (gh's rule): with `skipQuestion` (`--yes`)
    /// or standard input not a terminal, yes, so scripts and pipelines run as before; on a
    /// terminal, `question` is asked on stderr and only y or yes goes ahead (Enter, anything
    /// else or end of input keeps things as they are).
    package func confirmed(_ question: String, skipQuestion: Bool) -> Bool {
        guard !skipQuestion && terminal.stdinIsTerminal else { return true }
        stderr.write("\(TerminalText.clean(question)) [y/N] ")
        let answer = stdin.readAnswer()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return answer == "y" || answer == "yes"
    }
}

/// Diagnostics for people: unbuffered, each line prefixed with the tool's name.
package struct DiagnosticStream: Sendable {
    package let fileDescriptor: Int32

    package init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    /// Writes `text` as it is; a failure is dropped (there is nowhere left to complain to).
    package func write(_ text: String) {
        Array(text.utf8).withUnsafeBytes { _ = writeAll(fileDescriptor, $0) }
    }

    /// `tool: message` on its own line. The message is cleaned (`TerminalText`): it may quote a
    /// name or a server's words, which must not drive the terminal or split the line.
    package func report(_ tool: String, _ message: String) {
        write("\(tool): \(TerminalText.clean(message))\n")
    }
}

/// Standard input as commands read it: records one per line, every complaint naming its line.
package struct StandardInput: Sendable {
    package let fileDescriptor: Int32
    package static let displayName = "standard input"

    package init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    /// Whether standard input is something that was meant to carry data: a pipe, a file or a
    /// socket. Not a terminal, /dev/null (a cron job's or a service's stdin) or a closed one:
    /// for those, "nothing on standard input" means no input was given, not an empty one.
    package var carriesData: Bool {
        [.pipe, .regularFile, .socket].contains(DescriptorKind(fileDescriptor))
    }

    /// Why a line cannot be used; `forEachLine` turns it into exit 65 naming the line.
    package struct Rejection: Error {
        package var reason: String
        package init(_ reason: String) { self.reason = reason }
    }

    /// `standard input: line N: reason` (exit 65).
    package static func rejected(_ rejection: Rejection, line number: Int) -> ToolError {
        ToolError.dataError("\(displayName): line \(number): \(rejection.reason)")
    }

    /// Each non-blank line, as text. A `Rejection` thrown by `body` becomes
    /// `standard input: line N: reason` (exit 65); other errors pass through.
    package func forEachLine(_ body: (String) throws -> Void) throws {
        try forEachNumberedLine { _, line in try body(line) }
    }

    /// The same, with each line's number.
    package func forEachNumberedLine(_ body: (_ number: Int, _ line: String) throws -> Void) throws {
        var reader = JSONLinesReader(fileDescriptor: fileDescriptor, displayName: Self.displayName)
        try reader.forEachLine { number, bytes in
            do {
                try body(number, String(decoding: bytes, as: UTF8.self))
            } catch let rejection as Rejection {
                throw Self.rejected(rejection, line: number)
            }
            return true
        }
    }

    /// Each non-blank line as it arrives, turned into an element on a reading thread of its own
    /// (`LineFeed`), so a tool starts on the first line while the rest still arrives. A
    /// `Rejection` thrown by `transform` becomes `standard input: line N: reason` (exit 65), in its
    /// turn after the lines before it.
    package func feed<Element: Sendable>(_ transform: @escaping @Sendable (String) throws -> Element)
        -> LineFeed<Element>
    {
        LineFeed(fileDescriptor: fileDescriptor, displayName: Self.displayName) { number, line in
            do {
                return try transform(line)
            } catch let rejection as Rejection {
                throw Self.rejected(rejection, line: number)
            }
        }
    }

    /// Each line as a JSON object; a line that is not one is rejected with `notAnObject`.
    package func forEachObject(notAnObject: String = "not a JSON object", _ body: (JSONValue) throws -> Void) throws {
        try forEachLine { line in
            guard let value = try? JSONValue.parse(line), value.objectValue != nil else { throw Rejection(notAnObject) }
            try body(value)
        }
    }

    /// One line typed at a prompt, without its newline; nil at end of input.
    func readAnswer() -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(fileDescriptor, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }
}
