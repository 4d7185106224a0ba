#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// man(7) roff for section 1, derived from the spec. Deterministic (no date) so the committed
/// pages can be compared with what the spec generates now.
enum ManPageRenderer {
    static func render(_ spec: CommandSpec, version: String) -> String {
        var out = ".TH \(spec.name.uppercased()) 1 \"\" \"spotify-toolkit \(version)\" \"User Commands\"\n"
        out += ".SH NAME\n\(escape(spec.name)) \\- \(escape(spec.abstract))\n"

        out += ".SH SYNOPSIS\n"
        var synopses =
            spec.subcommands.isEmpty ? [(spec, [spec.name])] : spec.subcommands.map { ($0, [spec.name, $0.name]) }
        if spec.runsWithoutSubcommand && !spec.subcommands.isEmpty { synopses.insert((spec, [spec.name]), at: 0) }
        out +=
            synopses.map { command, path in
                ".B \(escape(path.joined(separator: " ")))\n" + synopsisArguments(command)
            }.joined(separator: "\n.br\n") + "\n"

        out += ".SH DESCRIPTION\n" + paragraphs(spec.discussion)
        if !spec.input.isEmpty { out += ".SS INPUT\n" + paragraphs(spec.input) }
        if !spec.output.isEmpty { out += ".SS OUTPUT\n" + paragraphs(spec.output) }

        if !spec.subcommands.isEmpty {
            out += ".SH COMMANDS\n"
            for command in spec.subcommands {
                let aliases = command.aliases.isEmpty ? "" : " (also \(command.aliases.joined(separator: ", ")))"
                out += ".TP\n.B \(escape(command.name))\(escape(aliases))\n\(escape(command.abstract))\n"
                out += command.discussion.map { ".IP\n\(escape($0))\n" }.joined()
                let options = command.options.filter { !$0.isHidden }
                if !options.isEmpty {
                    out += ".RS\n" + options.map(optionEntry).joined() + ".RE\n"
                }
            }
        }

        out += ".SH OPTIONS\n"
        out += spec.arguments.map { ".TP\n.I \(escape($0.synopsis))\n\(escape($0.help))\n" }.joined()
        out += spec.effectiveOptions().filter { !$0.isHidden }.map(optionEntry).joined()

        out += ".SH ENVIRONMENT\n"
        let environment = spec.allEnvironment
        out +=
            environment.isEmpty
            ? "\(escape(spec.name)) reads no environment variables of its own.\n"
            : environment.map { ".TP\n.B \(escape($0.name))\n\(escape($0.help))\n" }.joined()

        out += ".SH FILES\n"
        out +=
            spec.files.isEmpty
            ? "\(escape(spec.name)) reads and writes no files of its own.\n"
            : spec.files.map { ".TP\n.I \(escape($0.name))\n\(escape($0.help))\n" }.joined()

        out += ".SH EXIT STATUS\n"
        out += spec.documentedExitCodes.map { ".TP\n.B \($0.code.rawValue)\n\(escape($0.meaning))\n" }.joined()

        // How it works comes after everything a user needs first.
        let commandNotes = spec.subcommands.filter { !$0.notes.isEmpty }
        if !spec.notes.isEmpty || !commandNotes.isEmpty {
            out += ".SH HOW IT WORKS\n" + paragraphs(spec.notes)
            for command in commandNotes {
                out += ".SS \(escape(spec.name)) \(escape(command.name))\n" + paragraphs(command.notes)
            }
        }

        let examples = spec.examples + spec.subcommands.flatMap(\.examples)
        if !examples.isEmpty {
            out += ".SH EXAMPLES\n"
            out += examples.map { "\(escape($0.explanation))\n.PP\n.RS\n.nf\n\(escape($0.command))\n.fi\n.RE\n.PP\n" }
                .joined()
        }

        let seeAlso = spec.seeAlso.map { "\\fB\(escape($0))\\fR(1)" }.joined(separator: ",\n")
        if !seeAlso.isEmpty { out += ".SH SEE ALSO\n\(seeAlso)\n" }
        return out
    }

    static func synopsisArguments(_ spec: CommandSpec) -> String {
        var parts = ["[\\fIOPTIONS\\fR]"]
        for argument in spec.arguments {
            var text = "\\fI\(escape(argument.name))\\fR" + (argument.isRepeatable ? "..." : "")
            if argument.isOptional { text = "[\(text)]" }
            parts.append(text)
        }
        return parts.joined(separator: " ")
    }

    static func optionEntry(_ option: OptionSpec) -> String {
        var head = option.short.map { "\\fB\\-\($0)\\fR, " } ?? ""
        head += "\\fB\\-\\-\(escape(option.long))\\fR"
        if let value = option.valueName { head += " \\fI\(escape(value))\\fR" }
        var help = escape(option.help)
        if let value = option.defaultValue { help += " Default: \(escape(value))." }
        return ".TP\n\(head)\n\(help)\n"
    }

    static func paragraphs(_ texts: [String]) -> String {
        texts.map(escape).joined(separator: "\n.PP\n") + (texts.isEmpty ? "" : "\n")
    }

    /// Escapes text for roff: backslashes, hyphens (so commands copy and paste), and a
    /// leading dot or quote that would start a request.
    static func escape(_ text: String) -> String {
        var result = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        if result.hasPrefix(".") || result.hasPrefix("'") { result = "\\&" + result }
        return result.replacingOccurrences(of: "\n.", with: "\n\\&.").replacingOccurrences(of: "\n'", with: "\n\\&'")
    }
}
