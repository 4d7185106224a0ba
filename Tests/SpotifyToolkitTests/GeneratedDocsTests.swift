import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// The committed man pages and completion scripts must be exactly what the specs generate now.
@Suite(.tags(.large)) struct GeneratedDocsTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test(arguments: GeneratedDocs.files().map(\.path))
    func committedFileMatchesTheSpec(path: String) throws {
        let expected = try #require(GeneratedDocs.files().first { $0.path == path })
        let committed = try? String(contentsOf: Self.repositoryRoot.appendingPathComponent(path), encoding: .utf8)
        #expect(committed == expected.contents, "\(path) is out of date: run `make docs`")
    }

    @Test func everyToolHasAManPageAndThreeCompletionScripts() {
        let paths = Set(GeneratedDocs.files().map(\.path))
        for spec in ToolCatalog.all {
            #expect(paths.contains("man/man1/\(spec.name).1"))
            #expect(paths.contains("completions/bash/\(spec.name)"))
            #expect(paths.contains("completions/zsh/_\(spec.name)"))
            #expect(paths.contains("completions/fish/\(spec.name).fish"))
        }
    }

    @Test(arguments: ToolCatalog.all.map(\.name))
    func everyOptionAppearsInHelpManAndEveryCompletion(tool: String) throws {
        let spec = try #require(ToolCatalog.all.first { $0.name == tool })
        let man = ManPageRenderer.render(spec, version: Toolkit.version)
        let scripts = Shell.allCases.map { CompletionRenderer.render(spec, for: $0) }
        for command in [spec] + spec.subcommands {
            let path = command.name == spec.name ? [spec.name] : [spec.name, command.name]
            let parent = path.count == 1 ? nil : spec
            let help = HelpRenderer.help(for: command, path: path, parent: parent)
            for option in command.effectiveOptions(under: parent) where !option.isHidden {
                #expect(help.contains("--\(option.long)"), "help of \(path) lacks --\(option.long)")
                #expect(
                    man.contains("\\-\\-\(option.long.replacingOccurrences(of: "-", with: "\\-"))"),
                    "man page lacks --\(option.long)")
                for script in scripts {
                    #expect(script.contains(option.long), "a completion script lacks --\(option.long)")
                }
            }
        }
    }

    @Test func manPageHasTheSectionsInOrder() throws {
        let man = ManPageRenderer.render(Songcount.spec, version: "9.9.9")
        let sections = man.split(separator: "\n").filter { $0.hasPrefix(".SH ") }.map { String($0.dropFirst(4)) }
        #expect(
            sections == [
                "NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "ENVIRONMENT", "FILES", "EXIT STATUS", "HOW IT WORKS",
                "EXAMPLES", "SEE ALSO",
            ])
        #expect(man.hasPrefix(".TH SONGCOUNT 1 \"\" \"spotify-toolkit 9.9.9\""))
    }

    /// CI (`.ci/run`) installs the linters and sets this, so a missing one fails there instead of
    /// quietly weakening the checks; on a developer machine without zsh or fish they are skipped.
    static let lintersRequired = ProcessInfo.processInfo.environment["SPOTIFY_TOOLKIT_REQUIRE_LINTERS"] == "1"

    /// The program's path, or nil (a failed expectation when linters are required).
    static func linter(_ name: String) -> String? {
        let found = ["/usr/bin/\(name)", "/bin/\(name)", "/usr/local/bin/\(name)"].first(
            where: FileManager.default.isExecutableFile)
        if found == nil && lintersRequired {
            Issue.record("\(name) is missing, and SPOTIFY_TOOLKIT_REQUIRE_LINTERS=1 says CI must lint with it")
        }
        return found
    }

    @Test(arguments: GeneratedDocs.files().filter { $0.path.hasPrefix("man/") }.map(\.path))
    func manPageIsCleanRoff(path: String) throws {
        guard Self.linter("groff") != nil else { return }
        let file = try #require(GeneratedDocs.files().first { $0.path == path })
        let result = try runShell("groff -man -ww -z 2>&1", input: file.contents)
        #expect(result == "", "groff warnings for \(path): \(result)")
    }

    @Test(arguments: GeneratedDocs.files().filter { $0.path.hasPrefix("completions/bash/") }.map(\.path))
    func bashScriptParsesAndCompletesOptions(path: String) throws {
        let file = try #require(GeneratedDocs.files().first { $0.path == path })
        let tool = String(path.split(separator: "/").last!)
        let spec = try #require(ToolCatalog.all.first { $0.name == tool })
        let function = "_" + tool.replacingOccurrences(of: "-", with: "_")
        let firstWord = spec.subcommands.first.map { "\($0.name) " } ?? ""
        let words = "(\(tool) \(firstWord)--)"
        let cword = spec.subcommands.isEmpty ? 1 : 2
        let output = try runShell(
            "bash --norc -c 'source /dev/stdin; COMP_WORDS=\(words); COMP_CWORD=\(cword); \(function); printf \"%s\\n\" \"${COMPREPLY[@]}\"'",
            input: file.contents)
        let expected =
            (spec.subcommands.first ?? spec).options.filter { !$0.isHidden }.map { "--\($0.long)" } + ["--help"]
        for option in expected {
            #expect(
                output.split(separator: "\n").contains(Substring(option)), "bash completion lacks \(option): \(output)")
        }
    }

    @Test(arguments: GeneratedDocs.files().filter { !$0.path.hasPrefix("man/") }.map(\.path))
    func completionScriptSyntax(path: String) throws {
        let shell = path.contains("/zsh/") ? "zsh" : path.contains("/fish/") ? "fish" : "bash"
        guard let binary = Self.linter(shell) else { return }
        let file = try #require(GeneratedDocs.files().first { $0.path == path })
        let check = shell == "fish" ? "\(binary) --no-execute 2>&1" : "\(binary) -n 2>&1"
        #expect(try runShell(check, input: file.contents) == "")
    }

    func runShell(_ command: String, input: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        try stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
