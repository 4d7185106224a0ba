import ToolkitCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place where argv is parsed, help and version are answered, and errors become exit
/// statuses (SwiftPM's Entrypoint style). Each tool's `main.swift` only calls `ToolRunner.main`.
package enum ToolRunner {
    /// `arguments`: what follows the tool's name (the multi-call binary hands over what follows
    /// `spotify-toolkit TOOL`).
    package static func main(_ spec: CommandSpec, arguments: [String] = Array(CommandLine.arguments.dropFirst()))
        async -> Never
    {
        // A file-size limit (ulimit -f) makes a write fail with EFBIG (exit 74), not kill the tool.
        signal(SIGXFSZ, SIG_IGN)
        let environment = ToolEnvironment.current
        let status = await execute(
            spec, arguments: arguments, environment: environment, streams: .standard(environment: environment))
        exit(status)
    }

    /// Runs a command to its exit status with the given streams: the process's own from `main`,
    /// files from a test.
    package static func execute(
        _ spec: CommandSpec, arguments: [String], environment: ToolEnvironment, streams: ToolStreams
    ) async -> Int32 {
        let context = ToolContext(toolName: spec.name, environment: environment, streams: streams)
        let stdout = context.stdout
        // Last on stderr, whatever the outcome, so a costly run says what it cost where a person reads it.
        defer {
            if context.terminal.stderrIsTerminal, let note = context.endOfRunNote.withLock({ $0 })?() {
                context.warn(note)
            }
        }
        // The command that runs, once parsed: a usage error its handler throws (a bad argument)
        // shows that command's usage line, as the parser's own errors do.
        var commandPath: [String]?
        do {
            if let problem = environment.sandboxProblem { throw ToolError.config(problem) }
            if let problem = context.developerProblem { throw problem }
            let parsed = try CommandLineParser.parse(arguments, spec: spec)
            commandPath = parsed.path
            let status: ExitCode
            if parsed.wantsHelp {
                // -h is the short form (what to type); --help the whole text (ripgrep's way).
                let short = arguments.contains("-h") && !arguments.contains("--help")
                let width =
                    context.terminal.stdoutIsTerminal
                    ? HelpRenderer.width(forTerminalColumns: context.terminalWidth) : HelpRenderer.standardWidth
                try stdout.writeText(
                    HelpRenderer.$width.withValue(width) {
                        HelpRenderer.help(
                            for: parsed.spec, path: parsed.path, parent: parsed.path.count > 1 ? spec : nil,
                            short: short)
                    })
                status = .success
            } else if parsed.wantsVersion {
                try stdout.writeText("\(spec.name) \(Toolkit.version)\n")
                status = .success
            } else {
                guard let run = parsed.spec.run else {
                    throw ToolError.software("\(parsed.commandName) has no handler")
                }
                status = try await run(parsed, context)
            }
            try stdout.flush()
            return status.rawValue
        } catch let convertible as any ToolErrorConvertible {
            // A typed failure (an HTTP failure, a refused write) becomes its message and status here,
            // at the last boundary; nothing above the tool branches on it any more.
            var error = convertible.toolError
            if error.commandPath == nil { error.commandPath = commandPath }
            // Keep what was already produced: records before a bad line are not lost.
            do { try stdout.flush() } catch is BrokenPipe { return 141 } catch {}
            report(error, spec: spec, to: context.stderr)
            return error.exitCode.rawValue
        } catch is BrokenPipe {
            // The reader went away (`| head -1`) while SIGPIPE was ignored: end quietly, like SIGPIPE would.
            return 141
        } catch {
            context.stderr.report(spec.name, "internal error: \(error)")
            return ExitCode.software.rawValue
        }
    }

    static func report(_ error: ToolError, spec: CommandSpec, to stderr: DiagnosticStream) {
        // Messages quote names and server text: whatever they hold, one clean line on the terminal.
        var text = "\(spec.name): \(TerminalText.clean(error.message))\n"
        for line in error.detailLines { text += "  \(TerminalText.clean(line))\n" }
        if error.showsUsageHint {
            let path = error.commandPath ?? [spec.name]
            let command = path.count > 1 ? spec.subcommand(named: path[1]) ?? spec : spec
            text += HelpRenderer.usageLine(for: command, path: command.name == spec.name ? [spec.name] : path) + "\n"
            text += "Try '\(path.joined(separator: " ")) --help' for more information.\n"
        }
        stderr.write(text)
    }
}
