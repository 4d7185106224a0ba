import Foundation
import Testing

/// Packaging and the README as a user guide (issue 20, items 14 and 15): what ships around the
/// tools says what it should, and the shell can read the scripts.
@Suite struct PackagingTests {
    static let root = InstallTests.repositoryRoot
    static func text(_ path: String) throws -> String { try String(contentsOfFile: root + "/" + path, encoding: .utf8) }
    static let tools = [
        "spotify-auth", "spotify-playlists", "spotify-tracks", "spotify-nowplaying", "songcount", "routine-link",
    ]

    @Test func theCIWorkflowRunsTheTestsOnLinuxAndMacOS() throws {
        let workflow = try Self.text(".github/workflows/ci.yml")
        #expect(workflow.contains("ubuntu") && workflow.contains("macos"))
        #expect(workflow.contains("run: make test") && workflow.contains("run: make lint"))
    }

    @Test func theHomebrewFormulaInstallsEveryToolWithItsDocs() throws {
        let formula = try Self.text("packaging/spotify-toolkit.rb")
        for tool in Self.tools { #expect(formula.contains(tool), "\(tool)") }
        for part in ["man1.install", "bash_completion.install", "zsh_completion.install", "fish_completion.install"] {
            #expect(formula.contains(part), "\(part)")
        }
        let ruby = try ToolProcess.shell(
            "command -v ruby >/dev/null && ruby -c '\(Self.root)/packaging/spotify-toolkit.rb' || echo no ruby")
        #expect(ruby.stdout.contains("Syntax OK") || ruby.stdout.contains("no ruby"), "\(ruby.stdout)\(ruby.stderr)")
    }

    @Test func theDistScriptIsSoundShell() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.root + "/scripts/dist.sh"))
        let check = try ToolProcess.shell("bash -n '\(Self.root)/scripts/dist.sh'")
        #expect(check.status == 0, "\(check.stderr)")
        let script = try Self.text("scripts/dist.sh")
        #expect(script.contains("--static-swift-stdlib") && script.contains("start-up") && script.contains("sha256"))
        #expect(try Self.text("Makefile").contains("dist:\n\tscripts/dist.sh"))
    }

    @Test func theReadmeQuotesSharedLinksAndSaysWhereZshCompletionsGo() throws {
        let readme = try Self.text("README.md")
        var inShell = false
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inShell = line == "```sh" || line == "```zsh"
                continue
            }
            guard inShell, let range = line.range(of: "open.spotify.com/") else { continue }
            // A link with a query must sit inside quotes, or zsh stops at the '?'.
            let rest = line[range.upperBound...].prefix { $0 != " " }
            if rest.contains("?") {
                let before = line[..<range.lowerBound]
                #expect(before.hasSuffix("'https://") || before.hasSuffix("\"https://"), "unquoted: \(line)")
            }
        }
        #expect(readme.contains("fpath=("), "how zsh finds the completions after make install")
        #expect(readme.contains("Benchmarks/README.md"), "the benchmark narrative lives there")
        #expect(!readme.contains("spotipy median **"), "not in the user guide")
        #expect(FileManager.default.fileExists(atPath: Self.root + "/Benchmarks/README.md"))
    }
}
