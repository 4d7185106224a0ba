#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// bash, zsh and fish completion scripts, derived from the spec.
enum Shell: String, Sendable, CaseIterable {
    case bash, zsh, fish

    /// Where the generated script lives in the repository and, under PREFIX/share, once installed.
    func scriptPath(for tool: String) -> String {
        switch self {
        case .bash: "completions/bash/\(tool)"
        case .zsh: "completions/zsh/_\(tool)"
        case .fish: "completions/fish/\(tool).fish"
        }
    }
}

enum CompletionRenderer {
    static func render(_ spec: CommandSpec, for shell: Shell) -> String {
        switch shell {
        case .bash: bash(spec)
        case .zsh: zsh(spec)
        case .fish: fish(spec)
        }
    }

    static func functionName(_ tool: String) -> String {
        "_" + tool.replacingOccurrences(of: "-", with: "_")
    }

    static func visibleOptions(_ spec: CommandSpec, parent: CommandSpec?) -> [OptionSpec] {
        spec.effectiveOptions(under: parent).filter { !$0.isHidden }
    }

    static func completesFiles(_ spec: CommandSpec) -> Bool {
        spec.arguments.contains { $0.completion == .file }
    }

    /// How each positional argument completes, in order (the last one for any further words).
    static func positionalKinds(_ spec: CommandSpec) -> [CompletionKind] {
        spec.arguments.map(\.completion)
    }

    /// The words that name a command: each name, then its aliases, then `help` where the tool takes it.
    static func commandWords(_ spec: CommandSpec) -> [String] {
        spec.subcommands.flatMap { [$0.name] + $0.aliases } + (spec.offersHelpCommand ? [CommandSpec.helpCommand] : [])
    }

    static let helpAbstract = "show the help of COMMAND"

    // MARK: bash

    static func bash(_ spec: CommandSpec) -> String {
        let function = functionName(spec.name)
        let commands: [(name: String, spec: CommandSpec, parent: CommandSpec?)] =
            [("", spec, nil)] + spec.subcommands.map { ($0.name, $0, spec) }
        var out = """
            # bash completion for \(spec.name); generated from its command spec by toolkit-docs, do not edit.
            \(function)() {
                local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" command="" i n word

            """
        if !spec.subcommands.isEmpty {
            out += """
                    for ((i = 1; i < COMP_CWORD; i++)); do
                        case "${COMP_WORDS[i]}" in
                            \(commandWords(spec).joined(separator: "|"))) command="${COMP_WORDS[i]}"; break ;;
                        esac
                    done

                """
            // An alias completes as the command it stands for.
            let aliased = spec.subcommands.filter { !$0.aliases.isEmpty }
            if !aliased.isEmpty {
                out += "    case \"$command\" in\n"
                for command in aliased {
                    out += "        \(command.aliases.joined(separator: "|"))) command=\(command.name) ;;\n"
                }
                out += "    esac\n"
            }
        }
        // Values of options that take one.
        out += "    case \"$command:$prev\" in\n"
        for command in commands {
            for option in visibleOptions(command.spec, parent: command.parent) where option.takesValue {
                let names = ([option.short.map { "-\($0)" }, "--\(option.long)"] as [String?]).compactMap { $0 }
                let patterns = names.map { "\(command.name):\($0)" }.joined(separator: "|")
                out += "        \(patterns)) \(bashValueCompletion(option.completion)); return ;;\n"
            }
        }
        out += "    esac\n"
        out += "    case \"$command\" in\n"
        for command in commands {
            let options = visibleOptions(command.spec, parent: command.parent).flatMap { option in
                [option.short.map { "-\($0)" }, "--\(option.long)"].compactMap { $0 }
            }
            var words = "\(options.joined(separator: " "))"
            if command.parent == nil && !spec.subcommands.isEmpty {
                out +=
                    """
                            "") if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "\(words)" -- "$cur")); \
                    else COMPREPLY=($(compgen -W "\(commandWords(spec).joined(separator: " "))" -- "$cur")); fi ;;\n
                    """
                if spec.offersHelpCommand {
                    out +=
                        """
                                \(CommandSpec.helpCommand)) COMPREPLY=($(compgen -W \
                        "\(spec.subcommands.map(\.name).joined(separator: " "))" -- "$cur")) ;;\n
                        """
                }
                continue
            }
            words = "\"\(words)\""
            let positional = bashPositional(command.spec, offset: command.parent == nil ? 0 : 1)
            out +=
                """
                        \(command.parent == nil ? "\"\"" : command.name)) if [[ "$cur" == -* ]]; then \
                COMPREPLY=($(compgen -W \(words) -- "$cur")); else \(positional); fi ;;\n
                """
        }
        out += "    esac\n}\ncomplete -o filenames -F \(function) \(spec.name)\n"
        return out
    }

    /// The positional words: by how many come before the cursor, each argument's completion.
    /// `offset`: words before the first argument (1 for a subcommand: the command's name).
    static func bashPositional(_ spec: CommandSpec, offset: Int) -> String {
        let kinds = positionalKinds(spec)
        guard kinds.contains(where: { $0 != .none }) else { return "COMPREPLY=()" }
        if Set(kinds.map { "\($0)" }).count == 1 { return bashValueCompletion(kinds[0]) }
        var out = "n=0; for ((i = 1; i < COMP_CWORD; i++)); do [[ \"${COMP_WORDS[i]}\" != -* ]] && n=$((n + 1)); done; "
        out += "case $n in "
        for (index, kind) in kinds.enumerated() {
            let label = index == kinds.count - 1 ? "*" : String(index + offset)
            out += "\(label)) \(bashValueCompletion(kind)) ;; "
        }
        return out + "esac"
    }

    static func bashValueCompletion(_ kind: CompletionKind) -> String {
        switch kind {
        case .command(let command):
            """
            COMPREPLY=(); while IFS= read -r word; do [[ "$word" == "$cur"* ]] && COMPREPLY+=("$word"); done < \
            <(\(command) 2>/dev/null)
            """
        case .none: "COMPREPLY=()"
        // One name per line, never split on spaces or glob-expanded.
        case .file: "COMPREPLY=(); while IFS= read -r word; do COMPREPLY+=(\"$word\"); done < <(compgen -f -- \"$cur\")"
        case .directory:
            "COMPREPLY=(); while IFS= read -r word; do COMPREPLY+=(\"$word\"); done < <(compgen -d -- \"$cur\")"
        case .choices(let values), .suggestions(let values):
            "COMPREPLY=($(compgen -W \"\(values.joined(separator: " "))\" -- \"$cur\"))"
        }
    }

    // MARK: zsh

    static func zsh(_ spec: CommandSpec) -> String {
        let function = functionName(spec.name)
        var out =
            """
            #compdef \(spec.name)\n# zsh completion for \(spec.name); generated from its command spec by \
            toolkit-docs, do not edit.\n\n
            """
        if spec.subcommands.isEmpty {
            out += "\(function)() {\n    _arguments -s -S \\\n"
            out += zshSpecs(spec, parent: nil).map { "        \($0)" }.joined(separator: " \\\n") + "\n}\n\n"
        } else {
            // -A: the tool's own options end at its command, so `play --device <Tab>` reaches
            // play's --device (and its values), not one of the tool's own options.
            out += "\(function)() {\n    local curcontext=\"$curcontext\" state line\n    _arguments -C -A '-*' \\\n"
            let root = zshSpecs(spec, parent: nil) + ["'1: :->command'", "'*:: :->arguments'"]
            out += root.map { "        \($0)" }.joined(separator: " \\\n") + "\n"
            out += "    case $state in\n        command)\n            local -a commands\n            commands=(\n"
            for command in spec.subcommands {
                for name in [command.name] + command.aliases {
                    out += "                '\(zshEscape(name)):\(zshEscape(command.abstract))'\n"
                }
            }
            if spec.offersHelpCommand {
                out += "                '\(CommandSpec.helpCommand):\(zshEscape(helpAbstract))'\n"
            }
            out += "            )\n            _describe -t commands '\(spec.name) command' commands ;;\n"
            out += "        arguments)\n            case $line[1] in\n"
            if spec.offersHelpCommand {
                out += "                \(CommandSpec.helpCommand))\n                    _arguments -s -S "
                out += "':command:(\(spec.subcommands.map(\.name).joined(separator: " ")))' ;;\n"
            }
            for command in spec.subcommands {
                out +=
                    """
                                    \
                    \(([command.name] + command.aliases).joined(separator: "|")))\n                    _arguments -s \
                    -S \\\n
                    """
                out +=
                    zshSpecs(command, parent: spec).map { "                        \($0)" }.joined(separator: " \\\n")
                    + " ;;\n"
            }
            out += "            esac ;;\n    esac\n}\n\n"
        }
        out += "\(function) \"$@\"\n"
        return out
    }

    static func zshSpecs(_ spec: CommandSpec, parent: CommandSpec?) -> [String] {
        var specs: [String] = []
        for option in visibleOptions(spec, parent: parent) {
            let help = "[\(zshEscape(option.help))]"
            var value = ""
            if let name = option.valueName {
                let action: String =
                    switch option.completion {
                    case .none: " "
                    case .file: "_files"
                    case .directory: "_files -/"
                    case .choices(let values), .suggestions(let values): "(\(values.joined(separator: " ")))"
                    case .command(let command): zshCommandAction(command)
                    }
                value = ":\(zshEscape(name.lowercased())):\(action)"
            }
            let repetition = option.repeatable ? "*" : ""
            if let short = option.short {
                let exclusion = option.repeatable ? "" : "'(-\(short) --\(option.long))'"
                specs.append("\(exclusion)\(repetition){-\(short),--\(option.long)}'\(help)\(value)'")
            } else {
                specs.append("'\(repetition)--\(option.long)\(help)\(value)'")
            }
        }
        for argument in spec.arguments {
            let action: String =
                switch argument.completion {
                case .file: "_files"
                case .choices(let values): "(\(values.joined(separator: " ")))"
                case .command(let command): zshCommandAction(command)
                case .none, .directory, .suggestions: " "
                }
            let position = argument.isRepeatable ? "*" : (argument.isOptional ? ":" : "")
            specs.append("'\(position):\(zshEscape(argument.name.lowercased())):\(action)'")
        }
        return specs
    }

    /// The lines `command` prints, one completion each (names may hold spaces).
    static func zshCommandAction(_ command: String) -> String {
        "{compadd -- ${(f)\"$(\(command) 2>/dev/null)\"}}"
    }

    static func zshEscape(_ text: String) -> String {
        text.replacingOccurrences(of: "'", with: "'\\''")
            .replacingOccurrences(of: "[", with: "\\[")
            .replacingOccurrences(of: "]", with: "\\]")
            .replacingOccurrences(of: ":", with: "\\:")
    }

    // MARK: fish

    static func fish(_ spec: CommandSpec) -> String {
        var out = "# fish completion for \(spec.name); generated from its command spec by toolkit-docs, do not edit.\n"
        let tool = spec.name
        let commands = spec.subcommands.isEmpty ? [spec] : spec.subcommands
        if commands.contains(where: { fishNeedsPositions($0) }) {
            // The words before the cursor that are not options: the tool, its command, arguments.
            out += "function \(fishWordsFunction(tool))\n    count (commandline -poc | string match -rv -- '^-')\nend\n"
        }
        if spec.subcommands.isEmpty {
            if !completesFiles(spec) { out += "complete -c \(tool) -f\n" }
            out += visibleOptions(spec, parent: nil).map { fishOption($0, tool: tool, condition: nil) }.joined()
            out += fishPositionals(spec, tool: tool, condition: nil, wordsBefore: 1)
            return out
        }
        out += "complete -c \(tool) -f\n"
        // The tool's own options before a command; after one, that command's, as bash and zsh
        // offer them (its own, the tool's global ones, --help): one list, `visibleOptions`.
        out += visibleOptions(spec, parent: nil).map { fishOption($0, tool: tool, condition: "__fish_use_subcommand") }
            .joined()
        for command in spec.subcommands {
            for name in [command.name] + command.aliases {
                out +=
                    "complete -c \(tool) -n '__fish_use_subcommand' -a \(name) -d '\(fishEscape(command.abstract))'\n"
            }
        }
        if spec.offersHelpCommand {
            let help = CommandSpec.helpCommand
            out += "complete -c \(tool) -n '__fish_use_subcommand' -a \(help) -d '\(fishEscape(helpAbstract))'\n"
            out +=
                """
                complete -c \(tool) -n '__fish_seen_subcommand_from \(help)' -a \
                '\(spec.subcommands.map(\.name).joined(separator: " "))'\n
                """
        }
        for command in spec.subcommands {
            let condition = "__fish_seen_subcommand_from \(([command.name] + command.aliases).joined(separator: " "))"
            out += visibleOptions(command, parent: spec).map { fishOption($0, tool: tool, condition: condition) }
                .joined()
            if completesFiles(command) { out += "complete -c \(tool) -n '\(condition)' -F\n" }
            out += fishPositionals(command, tool: tool, condition: condition, wordsBefore: 2)
        }
        return out
    }

    static func fishWordsFunction(_ tool: String) -> String {
        "__\(tool.replacingOccurrences(of: "-", with: "_"))_words"
    }

    /// Whether a command's arguments complete differently by position (`local ACTION NAME`),
    /// so each needs a condition on how many words come before it.
    static func fishNeedsPositions(_ spec: CommandSpec) -> Bool {
        let kinds = positionalKinds(spec).filter { $0 != .file }
        return kinds.count > 1 && kinds.contains { $0 != .none }
    }

    /// Each argument's values, offered at its own position only when the arguments differ
    /// (`wordsBefore`: the tool's name, and its command's): a name list never mixes with the
    /// words of the argument before it.
    static func fishPositionals(_ spec: CommandSpec, tool: String, condition: String?, wordsBefore: Int) -> String {
        let kinds = positionalKinds(spec)
        let byPosition = fishNeedsPositions(spec)
        var out = ""
        for (index, kind) in kinds.enumerated() {
            var conditions = condition.map { [$0] } ?? []
            if byPosition {
                let words = fishWordsFunction(tool)
                let test = index == kinds.count - 1 ? "-ge" : "-eq"
                conditions.append("test (\(words)) \(test) \(wordsBefore + index)")
            }
            let when = conditions.isEmpty ? "" : " -n '\(conditions.joined(separator: "; and "))'"
            switch kind {
            case .command(let source):
                out += "complete -c \(tool)\(when) -f -a '(\(source) 2>/dev/null)'\n"
            case .choices(let values):
                out += "complete -c \(tool)\(when) -f -a '\(values.joined(separator: " "))'\n"
            default: break
            }
        }
        return out
    }

    /// An option, and when it takes values from a list, a second line for them: its description
    /// is shown once, beside the option, not again beside each of its values.
    static func fishOption(_ option: OptionSpec, tool: String, condition: String?) -> String {
        var parts = ["complete -c \(tool)"]
        if let condition { parts.append("-n '\(condition)'") }
        if let short = option.short { parts.append("-s \(short)") }
        parts.append("-l \(option.long)")
        var values: String?
        if option.takesValue {
            switch option.completion {
            case .none: parts.append("-x")
            case .file, .directory: parts.append("-r -F")
            case .choices(let list), .suggestions(let list):
                parts.append("-x")
                values = "'\(list.joined(separator: " "))'"
            case .command(let command):
                parts.append("-x")
                values = "'(\(command) 2>/dev/null)'"
            }
        }
        // The values first: of two lines for one option, fish lists the option with the last one's
        // description.
        let described = (parts + ["-d '\(fishEscape(option.help))'"]).joined(separator: " ") + "\n"
        guard let values else { return described }
        return (parts + ["-a \(values)"]).joined(separator: " ") + "\n" + described
    }

    static func fishEscape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
    }
}
