import ToolkitCore

/// The result of parsing argv against a spec.
package struct ParsedCommand: Sendable {
    /// The command chain, e.g. `["spotify-auth", "login"]`.
    package var path: [String]
    /// The spec of the innermost command chosen.
    package var spec: CommandSpec
    package var positionals: [String]
    var values: [String: [String]]
    var flagCounts: [String: Int]
    /// The options this command line could carry (the innermost command's own, its parent's
    /// global ones), by name: whether each takes a value. Reading any other is a bug, reported.
    var declared: [String: Bool] = [:]
    var wantsHelp: Bool
    var wantsVersion: Bool
    /// How values were read, to say on stderr once the command line is accepted (a bare duration
    /// taken as seconds). A box: the options are read from the command passed by value.
    let notices = Locked<[String]>([])
    /// The options read so far (by long name): every option a command offers must be read by its
    /// `Options`, which a catalog test checks. A box, as `notices` is.
    let reads = Locked<Set<String>>([])

    /// The options the command's `Options` read.
    var optionsRead: Set<String> { reads.withLock { $0 } }

    package var subcommand: String? { path.count > 1 ? path[1] : nil }

    func flag(_ long: String) -> Bool { (flagCounts[long] ?? 0) > 0 }

    /// The last value given (later occurrences win, as in most Unix tools).
    func value(_ long: String) -> String? { values[long]?.last }

    func values(_ long: String) -> [String] { values[long] ?? [] }

    var commandName: String { path.joined(separator: " ") }

    /// Lookups by the option's own spec, so its name is written once, where it is declared. An
    /// option the command does not declare cannot be read: it throws, so a handler never reads
    /// an option that was never parsed (always absent) or one of the same name that means
    /// something else.
    package func flag(_ option: OptionSpec) throws -> Bool {
        try checkDeclared(option)
        return flag(option.long)
    }
    package func value(_ option: OptionSpec) throws -> String? {
        try checkDeclared(option)
        return value(option.long)
    }
    package func values(_ option: OptionSpec) throws -> [String] {
        try checkDeclared(option)
        return values(option.long)
    }

    /// A DURATION option's value in milliseconds (`DurationReading`); a bare number under a
    /// minute is taken as seconds, and how it was read is said on stderr before the command runs.
    package func duration(_ option: OptionSpec) throws -> Int? {
        guard let text = try value(option) else { return nil }
        let reading = try DurationReading(text)
        if let note = reading.note(option: "--\(option.long)") { notices.withLock { $0.append(note) } }
        return reading.milliseconds
    }

    /// What reading the options had to say (`duration(_:)`), in order.
    var noticesGiven: [String] { notices.withLock { $0 } }

    /// Whether this command line could carry `option` (for option groups shared by commands that
    /// offer different parts of them).
    package func declares(_ option: OptionSpec) -> Bool { declared[option.long] == option.takesValue }

    func checkDeclared(_ option: OptionSpec) throws {
        guard declares(option) else {
            throw ToolError.software("\(commandName) reads --\(option.long), which it does not declare")
        }
        reads.withLock { _ = $0.insert(option.long) }
    }
}

package enum CommandLineParser {
    /// Parses `arguments` (without argv[0]). `--help` anywhere before `--` wins over every error,
    /// so `tool --bogus --help` still shows help.
    package static func parse(_ arguments: [String], spec root: CommandSpec) throws -> ParsedCommand {
        var parse = Parse(arguments, root: root)
        while parse.index < arguments.count {
            parse.step()
        }
        return try parse.finish()
    }

    /// One pass over argv: where it is, the commands chosen so far and what they were given. The
    /// first error is kept and thrown once every argument is read, so help still wins over it.
    struct Parse {
        let arguments: [String]
        let root: CommandSpec
        /// The commands chosen so far, the root first; never empty.
        var chain: [CommandSpec]
        var result: ParsedCommand
        var firstError: ToolError?
        var index = 0
        var onlyPositionals = false
        var helpWord = false
        /// The option whose value the last argument was, if any (for the hint on `--for 1h 30m`).
        var lastValue: (option: String, value: String)?

        init(_ arguments: [String], root: CommandSpec) {
            self.arguments = arguments
            self.root = root
            chain = [root]
            result = ParsedCommand(
                path: [root.name], spec: root, positionals: [], values: [:], flagCounts: [:], wantsHelp: false,
                wantsVersion: false)
        }

        /// The innermost command chosen so far.
        var leaf: CommandSpec { chain[chain.count - 1] }

        mutating func fail(_ error: ToolError) {
            if firstError == nil { firstError = error }
        }

        func options() -> [OptionSpec] {
            leaf.effectiveOptions(under: chain.count > 1 ? chain[chain.count - 2] : nil)
        }
        func lookup(long: String) -> OptionSpec? { options().first { $0.long == long } }
        func lookup(short: Character) -> OptionSpec? { options().first { $0.short == short } }

        mutating func record(_ option: OptionSpec, value: String?) {
            lastValue = value.map { (option.long, $0) }
            switch option.long {
            case "help": result.wantsHelp = true
            case "version": result.wantsVersion = true
            default:
                if let value {
                    if let choices = option.choices, !choices.contains(value) {
                        fail(
                            .usage(
                                """
                                invalid value '\(value)' for --\(option.long); expected one of: \
                                \(choices.joined(separator: ", "))
                                """
                            ))
                    }
                    result.values[option.long, default: []].append(value)
                } else {
                    result.flagCounts[option.long, default: 0] += 1
                }
            }
        }

        mutating func nextValue(for option: OptionSpec, shown: String) -> String? {
            guard index + 1 < arguments.count else {
                fail(.usage("option '\(shown)' needs a value (\(option.valueName ?? "VALUE"))"))
                return nil
            }
            index += 1
            return arguments[index]
        }

        /// Reads the argument at `index` (and the value after it, if it takes one), and moves past it.
        mutating func step() {
            let argument = arguments[index]
            defer { index += 1 }
            if onlyPositionals {
                result.positionals.append(argument)
            } else if argument == "--" {
                onlyPositionals = true
            } else if argument.hasPrefix("--") {
                long(argument)
            } else if argument.hasPrefix("-") && argument.count > 1 {
                singleDash(argument)
            } else if result.positionals.isEmpty, !leaf.subcommands.isEmpty {
                word(argument)
            } else {
                result.positionals.append(argument)
            }
        }

        /// `--name`, `--name value`, `--name=value`.
        mutating func long(_ argument: String) {
            let (name, inlineValue) = splitInline(argument.dropFirst(2))
            guard let option = lookup(long: name) else {
                let visible = options().filter { !$0.isHidden }.map(\.long)
                fail(.usage("unknown option '--\(name)'\(suggestion(for: name, among: visible, prefix: "--"))"))
                return
            }
            if option.takesValue {
                if let value = inlineValue ?? nextValue(for: option, shown: "--\(name)") {
                    record(option, value: value)
                }
            } else if inlineValue != nil {
                fail(.usage("option '--\(name)' does not take a value"))
            } else {
                record(option, value: nil)
            }
        }

        /// `-x...`: a long option missing a dash, or a cluster of short options.
        mutating func singleDash(_ argument: String) {
            let name = splitInline(argument.dropFirst()).name
            guard name.count > 1, let option = lookup(long: name) else {
                cluster(argument)
                return
            }
            // `-target 15m` is a long option missing a dash, not `-t` with the value `arget`;
            // `-help` still shows help, as it did as the cluster `-h -e -l -p`.
            if option.long == "help" {
                record(option, value: nil)
            } else {
                fail(.usage("unknown option '-\(name)'; did you mean '--\(name)'?"))
            }
        }

        /// A cluster of short options: `-jt 15m`, `-t15m`. By scalars, as `=` is: in `-t` and a value
        /// that starts with a combining mark, the `t` is not a Character of its own.
        mutating func cluster(_ argument: String) {
            var scalars = Substring(argument.dropFirst()).unicodeScalars
            while let scalar = scalars.first {
                scalars = scalars.dropFirst()
                let character = Character(scalar)
                guard let option = lookup(short: character) else {
                    fail(.usage("unknown option '-\(character)'"))
                    return
                }
                if option.takesValue {
                    let value = scalars.isEmpty ? nextValue(for: option, shown: "-\(character)") : String(scalars)
                    if let value { record(option, value: value) }
                    return
                }
                record(option, value: nil)
            }
        }

        /// A word where a command of `leaf` may stand: `help`, a subcommand, or a mistyped one.
        mutating func word(_ argument: String) {
            if argument == CommandSpec.helpCommand, chain.count == 1, !helpWord, root.offersHelpCommand {
                // `tool help [COMMAND]` is `tool [COMMAND] --help`, as git and gh have it.
                helpWord = true
                result.wantsHelp = true
                return
            }
            guard let sub = leaf.subcommand(named: argument) else {
                fail(.usage("unknown command '\(argument)'\(unknownCommandHint(argument))"))
                result.positionals.append(argument)
                return
            }
            chain.append(sub)
            result.path.append(sub.name)
            result.spec = sub
        }

        /// What `argument`, no command of `leaf`, may have meant.
        func unknownCommandHint(_ argument: String) -> String {
            let names = leaf.subcommands.map(\.name)
            var hint = suggestion(for: argument, among: names, prefix: "")
            // `wacth`: close to no command, it may be an option without its dashes.
            if hint.isEmpty {
                let visible = options().filter { !$0.isHidden }.map(\.long)
                hint = suggestion(for: argument, among: visible, prefix: "--")
            }
            // `--for 1h 30m` unquoted: the shell made the duration two words.
            if let last = lastValue, index > 0, arguments[index - 1] == last.value,
                (try? DurationReading(last.value + " " + argument)) != nil
            {
                let joined = "--\(last.option) '\(last.value) \(argument)'"
                hint = "; did you mean \(joined)? (quote a duration with a space in it)"
            }
            return hint
        }

        /// The command line read whole: its errors in order of precedence, or the command.
        mutating func finish() throws -> ParsedCommand {
            // `tool help nosuch` names a command that is not there: say so, not the tool's help.
            if helpWord, let firstError, result.path.count == 1, !result.positionals.isEmpty {
                var error = firstError
                error.commandPath = result.path
                throw error
            }
            result.declared = Dictionary(
                options().map { ($0.long, $0.takesValue) }, uniquingKeysWith: { first, _ in first })
            // An option given before the command's name (`tool --json pause`) was the tool's; the
            // command that runs must offer it too, or it would be accepted and ignored.
            for given in Set(result.values.keys).union(result.flagCounts.keys).sorted()
            where result.declared[given] == nil {
                fail(.usage("option '--\(given)' is not an option of '\(result.commandName)'"))
            }
            if result.wantsHelp || result.wantsVersion { return result }
            do {
                if let firstError { throw firstError }
                if !leaf.subcommands.isEmpty && !leaf.runsWithoutSubcommand {
                    throw ToolError.usage(
                        "missing command; one of: \(leaf.subcommands.map(\.name).joined(separator: ", "))")
                }
                try checkPositionals(result.positionals, against: leaf.arguments)
                return result
            } catch var error as ToolError {
                error.commandPath = result.path
                throw error
            }
        }
    }

    /// `name=value` split at its first `=`, by Unicode scalars: `=` and a combining mark after it
    /// (`--device=🏻`, `--target=\u{301}15m`) are one Character, which a split by Character misses.
    static func splitInline(_ body: Substring) -> (name: String, value: String?) {
        let scalars = body.unicodeScalars
        guard let equals = scalars.firstIndex(of: "=") else { return (String(body), nil) }
        return (String(scalars[..<equals]), String(scalars[scalars.index(after: equals)...]))
    }

    static func checkPositionals(_ positionals: [String], against arguments: [ArgumentSpec]) throws {
        let required = arguments.filter { !$0.isOptional }.count
        if positionals.count < required {
            let missing = arguments.filter { !$0.isOptional }[positionals.count]
            throw ToolError.usage("missing argument \(missing.name)")
        }
        if !arguments.contains(where: \.isRepeatable), positionals.count > arguments.count {
            throw ToolError.usage("unexpected argument '\(positionals[arguments.count])'")
        }
    }

    /// "; did you mean '--target'?" (or "'A' or 'B'") when known names are close to what was typed.
    static func suggestion(for typed: String, among names: [String], prefix: String) -> String {
        let closest = Suggestions.closest(to: typed, among: names).map { prefix + $0 }
        return Suggestions.didYouMean(closest).map { "; " + $0 } ?? ""
    }
}
