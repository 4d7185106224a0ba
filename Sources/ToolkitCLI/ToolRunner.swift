import ToolkitCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

package enum Toolkit {
    package static let version = "0.1.0"
}

/// What a running command gets from the runner: its streams, terminal facts and environment.
package struct ToolContext {
    package let toolName: String
    package let environment: ToolEnvironment
    package let terminal: Terminal
    /// Standard output; the runner flushes it at exit and turns write errors into exit 74.
    package let stdout: JSONLinesWriter

    /// A diagnostic line on stderr: `tool: message`.
    package func warn(_ message: String) {
        StandardError.report(toolName, message)
    }
}

/// The one place where argv is parsed, help and version are answered, and errors become exit
/// statuses (SwiftPM's Entrypoint style). Each tool's `main.swift` only calls `ToolRunner.main`.
package enum ToolRunner {
    package typealias Command = (ParsedCommand, ToolContext) async throws -> ExitCode

    package static func main(_ spec: CommandSpec, run: Command) async -> Never {
        // A file-size limit (ulimit -f) makes a write fail with EFBIG (exit 74), not kill the tool.
        signal(SIGXFSZ, SIG_IGN)
        let status = await execute(spec, arguments: Array(CommandLine.arguments.dropFirst()), environment: .current, run: run)
        exit(status)
    }

    package static func execute(_ spec: CommandSpec, arguments: [String], environment: ToolEnvironment, run: Command) async -> Int32 {
        let stdout = JSONLinesWriter(fileDescriptor: 1)
        let context = ToolContext(toolName: spec.name, environment: environment, terminal: .current(environment: environment), stdout: stdout)
        do {
            let parsed = try CommandLineParser.parse(arguments, spec: spec)
            let status: ExitCode
            if parsed.wantsHelp {
                try stdout.writeText(HelpRenderer.help(for: parsed.spec, path: parsed.path, parent: parsed.path.count > 1 ? spec : nil))
                status = .success
            } else if parsed.wantsVersion {
                try stdout.writeText("\(spec.name) \(Toolkit.version)\n")
                status = .success
            } else {
                status = try await run(parsed, context)
            }
            try stdout.flush()
            return status.rawValue
        } catch let error as ToolError {
            // Keep what was already produced: records before a bad line are not lost.
            do { try stdout.flush() } catch is BrokenPipe { return 141 } catch {}
            report(error, spec: spec)
            return error.exitCode.rawValue
        } catch is BrokenPipe {
            // The reader went away (`| head -1`) while SIGPIPE was ignored: end quietly, like SIGPIPE would.
            return 141
        } catch {
            StandardError.report(spec.name, "internal error: \(error)")
            return ExitCode.software.rawValue
        }
    }

    static func report(_ error: ToolError, spec: CommandSpec) {
        var text = "\(spec.name): \(error.message)\n"
        if error.showsUsageHint {
            let path = error.commandPath ?? [spec.name]
            let command = path.count > 1 ? spec.subcommand(named: path[1]) ?? spec : spec
            text += HelpRenderer.usageLine(for: command, path: command.name == spec.name ? [spec.name] : path) + "\n"
            text += "Try '\(path.joined(separator: " ")) --help' for more information.\n"
        }
        StandardError.write(text)
    }
}
