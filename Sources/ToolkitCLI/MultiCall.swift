import ToolkitCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `spotify-toolkit`, the one executable that ships: it runs the tool its own name says (a link
/// `songcount -> spotify-toolkit`, busybox's way and the Swift toolchain's, where `swift-build`
/// is a link to `swift-package`) or the tool its first argument names
/// (`spotify-toolkit songcount --target 15m`). One binary instead of six identical copies of
/// the Swift runtime and Foundation.
package enum MultiCall {
    package static let programName = "spotify-toolkit"

    /// What an invocation asks for.
    package enum Choice: Equatable {
        /// Run `tool` with `arguments` (what follows the tool's name).
        case tool(String, arguments: [String])
        case help
        case version
        /// No tool named: the usage line on stderr, exit 64; `unknown` is a name that is no tool.
        case usage(unknown: String?)
    }

    /// Decides from argv alone. The name the binary was run as wins (a link named after a tool),
    /// so `songcount --help` through a link is songcount's help, never this program's.
    package static func choose(_ argv: [String], tools: [String]) -> Choice {
        let invokedAs = argv.first.map(baseName) ?? programName
        let rest = Array(argv.dropFirst())
        if tools.contains(invokedAs) { return .tool(invokedAs, arguments: rest) }
        guard let first = rest.first else { return .usage(unknown: nil) }
        if tools.contains(first) { return .tool(first, arguments: Array(rest.dropFirst())) }
        switch first {
        case "-h", "--help": return .help
        case "--version": return .version
        default: return .usage(unknown: first)
        }
    }

    /// The one line printed when no tool is named.
    static func usageLine(tools: [String]) -> String {
        "Usage: \(programName) TOOL [ARGUMENTS]   (TOOL: \(tools.joined(separator: ", ")))"
    }

    /// `--help`: how to call it, and each tool's one-line abstract.
    package static func help(tools: [(name: String, abstract: String)]) -> String {
        var text = "\(programName): the spotify-toolkit tools in one executable\n\n"
        text += "Usage: \(programName) TOOL [ARGUMENTS]\n"
        text += "       TOOL [ARGUMENTS]   (through a link named after the tool, as make install sets up)\n\n"
        text += "Tools:\n"
        let width = tools.map(\.name.count).max() ?? 0
        for tool in tools {
            text +=
                "  " + tool.name + String(repeating: " ", count: width - tool.name.count) + "  " + tool.abstract + "\n"
        }
        text += "\nEach tool has its own --help and man page: '\(programName) TOOL --help', 'man TOOL'.\n"
        return text
    }

    /// Runs what `argv` asks for and exits. `spec(name)` builds only the named tool's spec: a
    /// tool's start-up does not pay for the other five.
    package static func main(
        tools: [String], spec: (String) -> CommandSpec?, argv: [String] = CommandLine.arguments
    ) async -> Never {
        switch choose(argv, tools: tools) {
        case .tool(let name, let arguments):
            guard let spec = spec(name) else {
                write("\(programName): \(name) has no command spec\n", to: 2)
                exit(ExitCode.software.rawValue)
            }
            await ToolRunner.main(spec, arguments: arguments)
        case .help:
            let described = tools.map { (name: $0, abstract: spec($0)?.abstract ?? "") }
            exit(write(help(tools: described), to: 1) ? 0 : ExitCode.ioError.rawValue)
        case .version:
            exit(write("\(programName) \(Toolkit.version)\n", to: 1) ? 0 : ExitCode.ioError.rawValue)
        case .usage(let unknown):
            var text =
                unknown.map { name in
                    let hint =
                        Suggestions.didYouMean(Suggestions.closest(to: name, among: tools)).map { "; \($0)" } ?? ""
                    return "\(programName): '\(TerminalText.clean(String(name.prefix(200))))' is not a tool\(hint)\n"
                } ?? ""
            text += usageLine(tools: tools) + "\nTry '\(programName) --help' for more information.\n"
            write(text, to: 2)
            exit(ExitCode.usage.rawValue)
        }
    }

    static func baseName(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
    }

    @discardableResult
    static func write(_ text: String, to descriptor: Int32) -> Bool {
        var text = text
        return text.withUTF8 { writeAll(descriptor, UnsafeRawBufferPointer($0)) } == 0
    }
}
