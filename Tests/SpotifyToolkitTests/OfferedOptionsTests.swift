import Testing
import ToolkitCore

@testable import ToolkitCLI
@testable import Tools

/// Offered means read: every option a command offers in its help, man page and completions is
/// read by the command's `Options`, so none is accepted and silently ignored. For every command
/// of every tool, a command line carrying one offered option at a time is parsed and read.
@Suite(.tags(.small)) struct OfferedOptionsTests {
    /// Every runnable command of `tool`: its path, spec and parent.
    static func commands(of tool: CommandSpec) -> [(path: [String], spec: CommandSpec, parent: CommandSpec?)] {
        var result: [(path: [String], spec: CommandSpec, parent: CommandSpec?)] = []
        if tool.subcommands.isEmpty || tool.runsWithoutSubcommand { result.append(([tool.name], tool, nil)) }
        for sub in tool.subcommands { result.append(([tool.name, sub.name], sub, tool)) }
        return result
    }

    /// A value the option's own parser will take, as far as it matters here: the read is
    /// recorded before the value is checked.
    static func sampleValue(_ option: OptionSpec) -> String {
        option.choices?.first ?? "1"
    }

    /// The options `argv` (after the command's path) makes the command's `Options` read.
    static func reads(
        _ argv: [String], tool: CommandSpec, path: [String], read: (ParsedCommand) throws -> Void
    ) throws -> Set<String> {
        guard let command = try? CommandLineParser.parse(Array(path.dropFirst()) + argv, spec: tool) else { return [] }
        do {
            try read(command)
        } catch let error as ToolError where error.exitCode == .software {
            Issue.record("\(path.joined(separator: " ")): \(error.message)")  // reads what it does not offer
        } catch {}  // a usage error of this command line: what was read before it counts
        return command.optionsRead
    }

    static func words(_ option: OptionSpec) -> [String] {
        option.takesValue ? ["--\(option.long)", sampleValue(option)] : ["--\(option.long)"]
    }

    @Test(arguments: ToolCatalog.all.map(\.name))
    func everyOfferedOptionIsRead(tool name: String) throws {
        let tool = try #require(ToolCatalog.all.first { $0.name == name })
        for (path, spec, parent) in Self.commands(of: tool) {
            let read = try #require(spec.readOptions, "\(path.joined(separator: " ")) has no Options")
            // Every argument given, optional ones too: a command may check its arguments first.
            let positionals = spec.arguments.map { _ in "x" }
            let offered = spec.effectiveOptions(under: parent).filter { !["help", "version"].contains($0.long) }
            for option in offered {
                // Alone, or beside one other option it may need (`--reverse` with `--by`, `--fixed-interval`
                // with `--watch`): read on some command line, not offered in vain.
                let companions = [[String]()] + offered.filter { $0.long != option.long }.map(Self.words)
                let read = try companions.contains { companion in
                    try Self.reads(Self.words(option) + companion + positionals, tool: tool, path: path, read: read)
                        .contains(option.long)
                }
                #expect(read, "\(path.joined(separator: " ")) offers --\(option.long) but never reads it")
            }
        }
    }
}

/// The same through the runner, in process: what a user sees.
@Suite(.tags(.medium)) struct OfferedOptionsRunTests {
    /// The command lines the review found accepted with an option ignored: each is a usage error
    /// (64) naming the option, before anything is read or sent.
    @Test(arguments: [
        (["local", "list", "--concurrency", "99"], "--concurrency"),
        (["edit", "X", "--name", "y", "--concurrency", "99"], "--concurrency"),
        (["local", "show", "mix", "--yes", "--allow-empty", "--names"], "--names"),
        (["--concurrency", "2", "edit", "X", "--name", "y"], "--concurrency"),
        (["local", "show", "mix", "--yes"], "--yes"),
        (["local", "list", "--allow-empty"], "--allow-empty"),
    ])
    func anOptionACommandDoesNotReadIsAUsageError(argv: [String], named option: String) async throws {
        let run = try await InProcess.run("spotify-playlists", argv)
        #expect(run.status == 64, "\(argv): \(run.stderr)")
        #expect(run.stderr.contains(option), "\(argv): \(run.stderr)")
        let pause = try await InProcess.run("spotify-nowplaying", ["pause", "--json"])
        #expect(pause.status == 64 && pause.stderr.contains("--json"), "\(pause.stderr)")
        let logout = try await InProcess.run("spotify-auth", ["logout", "--json"])
        #expect(logout.status == 64 && logout.stderr.contains("--json"), "\(logout.stderr)")
    }
}
