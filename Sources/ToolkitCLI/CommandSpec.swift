import ToolkitCore

/// A command's options and arguments, read from its parsed command line and checked in one
/// place, so a handler reads fields, never option names. `Songcount.Options` is the model.
package protocol CommandOptions: Sendable {
    init(_ command: ParsedCommand) throws
}

/// For a command that takes no options and no arguments.
package struct NoOptions: CommandOptions {
    package init(_ command: ParsedCommand) {}
}

/// The one handler shape: a command's options, and the context it runs in; the exit status, or a
/// thrown `ToolError`.
package typealias Handler<Options: CommandOptions> = @Sendable (Options, ToolContext) async throws -> ExitCode

/// A handler with its options type erased, as the spec keeps it.
typealias CommandHandler = @Sendable (ParsedCommand, ToolContext) async throws -> ExitCode

/// The one declaration of a command. The parser, `--help`, the man page and the bash, zsh and
/// fish completion scripts are all derived from it, so none of them can drift from the others;
/// and it carries its handler, so a subcommand's name is written in exactly one place.
package struct CommandSpec: Sendable {
    package var name: String
    /// One line: the NAME line of the man page and the first line of `--help`.
    package var abstract: String
    /// Paragraphs for DESCRIPTION: what the command does for its user, and its common uses.
    package var discussion: [String]
    /// Paragraphs on how it does it (paging, scheduling, caching, retries): the man page's HOW IT
    /// WORKS and the end of `--help`, after everything a user needs first; never in `-h`.
    package var notes: [String]
    /// Other names the command answers to as a subcommand (`ls` for `list`): parsed, shown in
    /// help and completed; the records and messages use its name.
    package var aliases: [String]
    package var arguments: [ArgumentSpec]
    package var options: [OptionSpec]
    package var subcommands: [CommandSpec]
    /// What the command reads and writes, for the INPUT and OUTPUT subsections.
    package var input: [String]
    package var output: [String]
    package var environment: [EnvironmentSpec]
    package var files: [FileSpec]
    /// Exit statuses that mean something particular for this command; the shared ones are added.
    package var exitCodes: [ExitCodeSpec]
    package var examples: [ExampleSpec]
    package var seeAlso: [String]
    /// A command with subcommands that also does something on its own (spotify-nowplaying's one shot).
    package var runsWithoutSubcommand = false
    /// A development tool (fake-spotify): never installed and without a man page, so its help
    /// points nowhere else.
    package var developmentOnly = false
    /// Runs the command (for a tool with subcommands: the tool alone, if `runsWithoutSubcommand`);
    /// set by `running(_:)`.
    var run: CommandHandler?
    /// Reads the command's `Options` from a parsed command line without running it, so a test can
    /// prove that every option the command offers is read; set by `running(_:)`.
    var readOptions: (@Sendable (ParsedCommand) throws -> Void)?

    package init(
        name: String,
        abstract: String,
        discussion: [String] = [],
        notes: [String] = [],
        aliases: [String] = [],
        arguments: [ArgumentSpec] = [],
        options: [OptionSpec] = [],
        subcommands: [CommandSpec] = [],
        input: [String] = [],
        output: [String] = [],
        environment: [EnvironmentSpec] = [],
        files: [FileSpec] = [],
        exitCodes: [ExitCodeSpec] = [],
        examples: [ExampleSpec] = [],
        seeAlso: [String] = [],
        runsWithoutSubcommand: Bool = false,
        developmentOnly: Bool = false
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.notes = notes
        self.aliases = aliases
        self.arguments = arguments
        self.options = options
        self.subcommands = subcommands
        self.input = input
        self.output = output
        self.environment = environment
        self.files = files
        self.exitCodes = exitCodes
        self.examples = examples
        self.seeAlso = seeAlso
        self.runsWithoutSubcommand = runsWithoutSubcommand
        self.developmentOnly = developmentOnly
    }

    /// The same spec with its handler: `CommandSpec(name: "list", ...).running(list)`, where
    /// `list` takes the command's `Options` and the context. The options are read before the
    /// handler runs, so a usage error never leaves half a command done.
    package func running<Options: CommandOptions>(_ handler: @escaping Handler<Options>) -> CommandSpec {
        var spec = self
        spec.readOptions = { command in _ = try Options(command) }
        spec.run = { command, context in
            let options = try Options(command)
            for notice in command.noticesGiven { context.warn(notice) }
            return try await handler(options, context)
        }
        return spec
    }

    /// The same spec offering `shared` as well, after its own options: a subcommand's way to offer
    /// an option its tool declares once (`--json`), because its `Options` read it.
    package func offering(_ shared: OptionSpec...) -> CommandSpec {
        var spec = self
        spec.options += shared
        return spec
    }

    /// The subcommand called `name`, or that has it as an alias.
    package func subcommand(named name: String) -> CommandSpec? {
        subcommands.first { $0.name == name } ?? subcommands.first { $0.aliases.contains(name) }
    }

    /// `list, ls`: the name and its aliases, as help lists a command.
    var namesShown: String { ([name] + aliases).joined(separator: ", ") }

    /// `tool help [COMMAND]` is `tool [COMMAND] --help`, for a tool with commands (none is called help).
    var offersHelpCommand: Bool {
        !subcommands.isEmpty
            && !subcommands.contains { $0.name == Self.helpCommand || $0.aliases.contains(Self.helpCommand) }
    }

    static let helpCommand = "help"
}

package enum CompletionKind: Sendable, Equatable {
    case none
    case file
    case directory
    /// Completed from these, and no other value is accepted.
    case choices([String])
    /// Completed from these, but the parser takes any value: the command checks it (a comma
    /// list of choices, or a name completion cannot know).
    case suggestions([String])
    /// Completed from the lines this command prints when completion runs (the data only the
    /// tool knows: routine names, local playlists, devices); any value is accepted.
    case command(String)
}

package struct OptionSpec: Sendable {
    package var long: String
    package var short: Character?
    /// nil for a flag; otherwise the placeholder shown in help (`DURATION`).
    var valueName: String?
    package var help: String
    var defaultValue: String?
    package var repeatable: Bool
    package var completion: CompletionKind
    /// Hidden options are parsed but not documented (e.g. test hooks).
    package var isHidden: Bool

    package init(
        _ long: String,
        short: Character? = nil,
        value valueName: String? = nil,
        help: String,
        default defaultValue: String? = nil,
        repeatable: Bool = false,
        completion: CompletionKind = .none,
        isHidden: Bool = false
    ) {
        self.long = long
        self.short = short
        self.valueName = valueName
        self.help = help
        self.defaultValue = defaultValue
        self.repeatable = repeatable
        self.completion = completion
        self.isHidden = isHidden
    }

    var takesValue: Bool { valueName != nil }

    package var choices: [String]? {
        if case .choices(let values) = completion { return values }
        return nil
    }

    /// `-t, --target DURATION` as shown in help and man pages.
    package var displayName: String {
        var text = short.map { "-\($0), " } ?? ""
        text += "--\(long)"
        if let valueName { text += " \(valueName)" }
        return text
    }

    package static let help = OptionSpec("help", short: "h", help: "Show this help and exit.")
    package static let version = OptionSpec("version", help: "Show the version and exit.")
    /// `--json`, the one declaration: JSON Lines even on a terminal. Each command that prints
    /// records offers it (a command offers only what its `Options` read); `help` says what the
    /// records are where a tool needs to.
    package static func json(help: String = "Write records as JSON Lines even on a terminal.") -> OptionSpec {
        OptionSpec("json", short: "j", help: help)
    }
    package static let jsonRecords = json()
}

package struct ArgumentSpec: Sendable {
    package var name: String
    package var help: String
    var isOptional: Bool
    var isRepeatable: Bool
    package var completion: CompletionKind

    package init(
        _ name: String, help: String, optional: Bool = false, repeatable: Bool = false,
        completion: CompletionKind = .none
    ) {
        self.name = name
        self.help = help
        self.isOptional = optional
        self.isRepeatable = repeatable
        self.completion = completion
    }

    /// `[FILE...]`, `ID`.
    var synopsis: String {
        let core = isRepeatable ? "\(name)..." : name
        return isOptional ? "[\(core)]" : core
    }
}

/// A name and what it is: an environment variable (ENVIRONMENT) or a path (FILES).
package struct NamedHelp: Sendable {
    package var name: String
    package var help: String
    package init(_ name: String, _ help: String) {
        (self.name, self.help) = (name, help)
    }
}

package typealias EnvironmentSpec = NamedHelp
package typealias FileSpec = NamedHelp

extension EnvironmentSpec {
    /// SPOTIFY_TOOLKIT_FORCE_TTY, described once; `form` is what a terminal gets from the tool.
    package static func forcedTerminal(writes form: String = "the human form") -> EnvironmentSpec {
        EnvironmentSpec(
            OutputMode.forceTerminalVariable, "Set to 1 to write \(form) even when stdout is not a terminal.")
    }
}

package struct ExitCodeSpec: Sendable {
    package var code: ExitCode
    package var meaning: String
    package init(_ code: ExitCode, _ meaning: String) {
        (self.code, self.meaning) = (code, meaning)
    }
}

package struct ExampleSpec: Sendable {
    package var command: String
    var explanation: String
    package init(_ command: String, _ explanation: String) {
        (self.command, self.explanation) = (command, explanation)
    }
}

extension CommandSpec {
    /// Options as the user can type them: the spec's own (a subcommand offers a parent's option,
    /// such as `--json`, only by declaring it itself: offered means read), then the built-in
    /// `--help`, and `--version` at the top level.
    func effectiveOptions(under parent: CommandSpec? = nil) -> [OptionSpec] {
        var result = options
        result.append(.help)
        if parent == nil { result.append(.version) }
        return result
    }

    /// The exit statuses to document: the command's own meanings first, then the shared ones it can reach.
    var documentedExitCodes: [ExitCodeSpec] {
        var result = [ExitCodeSpec(.success, ExitCode.success.meaning)]
        let own = Set(exitCodes.map(\.code.rawValue))
        result.append(contentsOf: exitCodes.filter { $0.code != .success })
        for shared in [ExitCode.usage, .ioError, .software] where !own.contains(shared.rawValue) {
            result.append(ExitCodeSpec(shared, shared.meaning))
        }
        return result.sorted { $0.code.rawValue < $1.code.rawValue }
    }

    /// Environment and files documented on the command and all its subcommands (man pages describe the whole tool).
    var allEnvironment: [EnvironmentSpec] {
        var seen = Set<String>()
        return ([self] + subcommands).flatMap(\.environment).filter { seen.insert($0.name).inserted }
    }
}
