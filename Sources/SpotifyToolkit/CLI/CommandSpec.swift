/// The one declaration of a command. The parser, `--help`, the man page and the bash, zsh and
/// fish completion scripts are all derived from it, so none of them can drift from the others.
public struct CommandSpec: Sendable {
    public var name: String
    /// One line: the NAME line of the man page and the first line of `--help`.
    public var abstract: String
    /// Paragraphs for DESCRIPTION.
    public var discussion: [String]
    public var arguments: [ArgumentSpec]
    public var options: [OptionSpec]
    public var subcommands: [CommandSpec]
    /// What the command reads and writes, for the INPUT and OUTPUT subsections.
    public var input: [String]
    public var output: [String]
    public var environment: [EnvironmentSpec]
    public var files: [FileSpec]
    /// Exit statuses that mean something particular for this command; the shared ones are added.
    public var exitCodes: [ExitCodeSpec]
    public var examples: [ExampleSpec]
    public var seeAlso: [String]
    /// A command with subcommands that also does something on its own (spotify-nowplaying's one shot).
    public var runsWithoutSubcommand = false

    public init(
        name: String,
        abstract: String,
        discussion: [String] = [],
        arguments: [ArgumentSpec] = [],
        options: [OptionSpec] = [],
        subcommands: [CommandSpec] = [],
        input: [String] = [],
        output: [String] = [],
        environment: [EnvironmentSpec] = [],
        files: [FileSpec] = [],
        exitCodes: [ExitCodeSpec] = [],
        examples: [ExampleSpec] = [],
        seeAlso: [String] = []
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
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
    }

    public func subcommand(named name: String) -> CommandSpec? {
        subcommands.first { $0.name == name }
    }
}

public enum CompletionKind: Sendable, Equatable {
    case none
    case file
    case directory
    case choices([String])
}

public struct OptionSpec: Sendable {
    public var long: String
    public var short: Character?
    /// nil for a flag; otherwise the placeholder shown in help (`DURATION`).
    public var valueName: String?
    public var help: String
    public var defaultValue: String?
    public var repeatable: Bool
    public var completion: CompletionKind
    /// Hidden options are parsed but not documented (e.g. test hooks).
    public var isHidden: Bool

    public init(
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

    public var takesValue: Bool { valueName != nil }

    public var choices: [String]? {
        if case .choices(let values) = completion { return values }
        return nil
    }

    /// `-t, --target DURATION` as shown in help and man pages.
    public var displayName: String {
        var text = short.map { "-\($0), " } ?? ""
        text += "--\(long)"
        if let valueName { text += " \(valueName)" }
        return text
    }

    public static let help = OptionSpec("help", short: "h", help: "Show this help and exit.")
    public static let version = OptionSpec("version", help: "Show the version and exit.")
}

public struct ArgumentSpec: Sendable {
    public var name: String
    public var help: String
    public var isOptional: Bool
    public var isRepeatable: Bool
    public var completion: CompletionKind

    public init(_ name: String, help: String, optional: Bool = false, repeatable: Bool = false, completion: CompletionKind = .none) {
        self.name = name
        self.help = help
        self.isOptional = optional
        self.isRepeatable = repeatable
        self.completion = completion
    }

    /// `[FILE...]`, `ID`.
    public var synopsis: String {
        let core = isRepeatable ? "\(name)..." : name
        return isOptional ? "[\(core)]" : core
    }
}

public struct EnvironmentSpec: Sendable {
    public var name: String
    public var help: String
    public init(_ name: String, _ help: String) {
        self.name = name
        self.help = help
    }
}

public struct FileSpec: Sendable {
    public var path: String
    public var help: String
    public init(_ path: String, _ help: String) {
        self.path = path
        self.help = help
    }
}

public struct ExitCodeSpec: Sendable {
    public var code: ExitCode
    public var meaning: String
    public init(_ code: ExitCode, _ meaning: String) {
        self.code = code
        self.meaning = meaning
    }
}

public struct ExampleSpec: Sendable {
    public var command: String
    public var explanation: String
    public init(_ command: String, _ explanation: String) {
        self.command = command
        self.explanation = explanation
    }
}

extension CommandSpec {
    /// Options as the user can type them: the spec's own, then for a subcommand its parent's
    /// (global) ones, then the built-in `--help`, and `--version` at the top level.
    func effectiveOptions(under parent: CommandSpec? = nil) -> [OptionSpec] {
        var result = options
        if let parent { result += parent.options }
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
