/// `--help` text, derived from the spec. 79 columns, so the output is the same everywhere (tests
/// and man pages compare it), like ripgrep's; narrower only on a terminal narrower than that,
/// where words would otherwise break at the window's edge.
enum HelpRenderer {
    static let standardWidth = 79
    /// The width this render wraps to: `standardWidth`, or a narrow terminal's (`ToolRunner`).
    @TaskLocal static var width = standardWidth

    /// The width help takes on a terminal `columns` wide: one column short of it (a line that fills
    /// the window makes some terminals wrap), at least 40, never more than the standard.
    static func width(forTerminalColumns columns: Int) -> Int {
        min(standardWidth, max(40, columns - 1))
    }

    /// Full help for the command at `path` (e.g. `["spotify-auth", "login"]`).
    /// `parent` is the command a subcommand belongs to; its options are global and listed too.
    /// `short` (`-h`): the abstract, usage, commands, arguments and options only, with the
    /// first sentence of each; the whole text is `--help` and the man page.
    static func help(for spec: CommandSpec, path: [String], parent: CommandSpec? = nil, short: Bool = false)
        -> String
    {
        let isRoot = path.count == 1
        var out = wrap("\(path.joined(separator: " ")): \(spec.abstract)", indent: 0) + "\n\n"
        out += "Usage: \(synopsis(for: spec, path: path))\n"
        if short { return out + shortBody(spec, path: path, parent: parent) }

        if !spec.discussion.isEmpty {
            out += "\n" + spec.discussion.map { wrap($0, indent: 0) }.joined(separator: "\n\n") + "\n"
        }
        if !spec.subcommands.isEmpty { out += "\nCommands:\n" + commandTable(spec) }
        if !spec.arguments.isEmpty {
            out += "\nArguments:\n" + table(spec.arguments.map { ($0.synopsis, $0.help) })
        }
        let options = spec.effectiveOptions(under: parent).filter { !$0.isHidden }
        out +=
            "\nOptions:\n"
            + table(
                options.map { option in
                    let name = option.short == nil ? "    " + option.displayName : option.displayName
                    var help = option.help
                    if let value = option.defaultValue { help += " (default: \(value))" }
                    return (name, help)
                })
        if !spec.subcommands.isEmpty {
            let tool = path.joined(separator: " ")
            out +=
                spec.offersHelpCommand && isRoot
                ? "\nRun '\(tool) help COMMAND' (or '\(tool) COMMAND --help') for a command's options.\n"
                : "\nRun '\(tool) COMMAND --help' for a command's options.\n"
        }
        if !spec.environment.isEmpty {
            out += "\nEnvironment:\n" + table(spec.environment.map { ($0.name, $0.help) })
        }
        if isRoot {
            out += "\nExit status:\n" + table(spec.documentedExitCodes.map { (String($0.code.rawValue), $0.meaning) })
        }
        if !spec.examples.isEmpty {
            out += "\nExamples:\n"
            for example in spec.examples {
                out += "  $ \(example.command)\n" + wrap(example.explanation, indent: 6) + "\n"
            }
        }
        if !spec.notes.isEmpty {
            out += "\nHow it works:\n" + spec.notes.map { wrap($0, indent: 2) }.joined(separator: "\n\n") + "\n"
        }
        if spec.developmentOnly {
            out += "\n\(path[0]) is for development only: it is never installed and has no man page.\n"
        } else {
            out +=
                isRoot
                ? "\nSee 'man \(path[0])' for more.\n" : "\nSee '\(path[0]) --help' and 'man \(path[0])' for more.\n"
        }
        return out
    }

    /// The commands, each with its aliases (`list, ls`), and `help` where the tool takes it.
    static func commandTable(_ spec: CommandSpec) -> String {
        var rows = spec.subcommands.map { ($0.namesShown, $0.abstract) }
        if spec.offersHelpCommand { rows.append(("\(CommandSpec.helpCommand) [COMMAND]", "show the help of COMMAND")) }
        return table(rows)
    }

    /// The first sentence of `text`: up to the first ". " that ends one, not one after an
    /// abbreviation ("e.g. ", "i.e. ") or a lone letter (an initial), which `-h` must not cut at.
    static func firstSentence(_ text: String) -> String {
        var searchFrom = text.startIndex
        while let end = text[searchFrom...].range(of: ". ") {
            let word = text[..<end.lowerBound].split(separator: " ").last ?? ""
            let bare = String(word.drop { "(\"'".contains($0) })
            if !abbreviations.contains(bare.lowercased()) && bare.count > 1 {
                return String(text[..<end.lowerBound]) + "."
            }
            searchFrom = end.upperBound
        }
        return text
    }

    static let abbreviations: Set<String> = ["e.g", "i.e", "etc", "vs", "cf", "approx", "no"]

    static func shortBody(_ spec: CommandSpec, path: [String], parent: CommandSpec?) -> String {
        var out = ""
        if !spec.subcommands.isEmpty { out += "\nCommands:\n" + commandTable(spec) }
        if !spec.arguments.isEmpty {
            out += "\nArguments:\n" + table(spec.arguments.map { ($0.synopsis, firstSentence($0.help)) })
        }
        let options = spec.effectiveOptions(under: parent).filter { !$0.isHidden }
        out +=
            "\nOptions:\n"
            + table(
                options.map { option in
                    (option.short == nil ? "    " + option.displayName : option.displayName, firstSentence(option.help))
                })
        let whole =
            spec.developmentOnly
            ? "The whole text: '\(path.joined(separator: " ")) --help'."
            : "The whole text: '\(path.joined(separator: " ")) --help', or 'man \(path[0])'."
        return out + "\n" + wrap(whole, indent: 0) + "\n"
    }

    /// The short form shown with usage errors and when a filter waits on a terminal.
    static func usageLine(for spec: CommandSpec, path: [String]) -> String {
        "Usage: \(synopsis(for: spec, path: path))"
    }

    static func synopsis(for spec: CommandSpec, path: [String]) -> String {
        var parts = [path.joined(separator: " ")]
        if !spec.subcommands.isEmpty { parts.append(spec.runsWithoutSubcommand ? "[COMMAND]" : "COMMAND") }
        parts.append("[OPTIONS]")
        parts.append(contentsOf: spec.arguments.map(\.synopsis))
        return parts.joined(separator: " ")
    }

    /// Two columns: names padded to a common width (capped), help wrapped beside them.
    static func table(_ rows: [(String, String)]) -> String {
        // Capped, so a narrow terminal keeps room for the help beside the names (28 at 79 columns).
        let nameWidth = min(rows.map(\.0.count).max() ?? 0, 28, max(12, width - 50))
        var out = ""
        for (name, help) in rows {
            let lead = "  " + name
            let indent = nameWidth + 5
            if name.count > nameWidth {
                out += lead + "\n" + wrap(help, indent: indent) + "\n"
            } else {
                let padded = lead + String(repeating: " ", count: indent - lead.count)
                out += padded + String(wrap(help, indent: indent).dropFirst(indent)) + "\n"
            }
        }
        return out
    }

    /// Greedy word wrap to `width`, every line indented by `indent` spaces.
    static func wrap(_ text: String, indent: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if !line.isEmpty && indent + line.count + 1 + word.count > width {
                lines.append(pad + line)
                line = ""
            }
            line += line.isEmpty ? String(word) : " " + word
        }
        lines.append(pad + line)
        return lines.joined(separator: "\n")
    }
}
