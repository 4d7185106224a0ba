import Testing

@testable import ToolkitCLI
@testable import Tools

/// bash, zsh and fish offer the same options in the same places: before a command, the tool's
/// own; after one, that command's own, the tool's global ones and --help (what the parser takes).
@Suite(.tags(.small)) struct CompletionAgreementTests {
    /// What the parser takes at that place, as completion should offer it.
    static func expected(_ spec: CommandSpec, parent: CommandSpec?) -> Set<String> {
        Set(spec.effectiveOptions(under: parent).filter { !$0.isHidden }.map { "--\($0.long)" })
    }

    /// The places of a tool: the top (key "") and each command.
    static func places(_ tool: CommandSpec) -> [(key: String, spec: CommandSpec, parent: CommandSpec?)] {
        [("", tool, nil)] + tool.subcommands.map { ($0.name, $0, tool) }
    }

    /// fish: the long options of each `complete` line, by the command its condition names.
    static func fishOptions(_ tool: CommandSpec) -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        for line in CompletionRenderer.render(tool, for: .fish).split(separator: "\n") where line.contains(" -l ") {
            let words = line.split(separator: " ").map(String.init)
            guard let long = words.firstIndex(of: "-l").map({ "--" + words[$0 + 1] }) else { continue }
            let keys: [String]
            if line.contains("'__fish_use_subcommand'") || !line.contains(" -n ") {
                keys = [""] + (line.contains(" -n ") ? [] : tool.subcommands.map(\.name))
            } else if let range = line.range(of: "__fish_seen_subcommand_from ") {
                keys = [String(line[range.upperBound...].prefix { $0 != " " && $0 != "'" })]
            } else {
                keys = []
            }
            for key in keys { result[key, default: []].insert(long) }
        }
        return result
    }

    /// bash: the option words each `case "$command"` branch offers.
    static func bashOptions(_ tool: CommandSpec) -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        let script = CompletionRenderer.render(tool, for: .bash)
        for line in script.split(separator: "\n") where line.contains("compgen -W \"") && line.contains("== -*") {
            let trimmed = line.drop { $0 == " " }
            let key = String(trimmed.prefix { $0 != ")" }).replacingOccurrences(of: "\"", with: "")
            guard let start = line.range(of: "compgen -W \"") else { continue }
            let words = line[start.upperBound...].prefix { $0 != "\"" }.split(separator: " ")
            result[key] = Set(words.filter { $0.hasPrefix("--") }.map(String.init))
        }
        return result
    }

    /// zsh: the long options of each command's `_arguments` block.
    static func zshOptions(_ tool: CommandSpec) -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        var key = ""
        let names = Set(tool.subcommands.flatMap { [$0.name] + $0.aliases })
        for line in CompletionRenderer.render(tool, for: .zsh).split(separator: "\n") {
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasSuffix(")"), let name = trimmed.dropLast().split(separator: "|").first,
                names.contains(String(name))
            {
                key = String(name)
            }
            // An option's spec: `'(-j --json)'{-j,--json}'[...]'`, `'--version[...]'`, or a
            // repeatable one, `'*--scope[...]'`.
            let spec = trimmed.hasPrefix("'*--") ? "'" + trimmed.dropFirst(2) : trimmed
            if spec.hasPrefix("'(") {
                let group = spec.dropFirst(2).prefix { $0 != ")" }.split(separator: " ")
                result[key, default: []].formUnion(group.filter { $0.hasPrefix("--") }.map(String.init))
            } else if spec.hasPrefix("'--") {
                let name = spec.dropFirst().prefix { $0.isLetter || $0.isNumber || $0 == "-" }
                result[key, default: []].insert(String(name))
            }
        }
        return result
    }

    @Test(arguments: ToolCatalog.all.filter { !$0.subcommands.isEmpty }.map(\.name))
    func everyShellOffersWhatTheParserTakesAfterACommand(tool name: String) throws {
        let tool = try #require(ToolCatalog.all.first { $0.name == name })
        let (fish, bash, zsh) = (Self.fishOptions(tool), Self.bashOptions(tool), Self.zshOptions(tool))
        for place in Self.places(tool) {
            let expected = Self.expected(place.spec, parent: place.parent)
            #expect(fish[place.key, default: []] == expected, "fish, \(name) \(place.key)")
            #expect(bash[place.key, default: []] == expected, "bash, \(name) \(place.key)")
            if !place.key.isEmpty {
                #expect(zsh[place.key, default: []] == expected, "zsh, \(name) \(place.key)")
            }
        }
    }
}
