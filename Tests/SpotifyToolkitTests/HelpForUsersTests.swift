import Foundation
import Testing

@testable import ToolkitCLI
@testable import Tools

/// Help for users first (issue 30, item 6; review 17, 24): `-h` shows each option's first
/// sentence whole, never cut at "e.g."; an argument a command's handler refuses prints that
/// command's usage line, as an option error does, not the tool's.
@Suite(.tags(.medium)) struct HelpForUsersTests {
    @Test func shortHelpNeverCutsASentenceAtAnAbbreviation() async throws {
        #expect(
            HelpRenderer.firstSentence("Print only the label, e.g. \"4.5 songs\" (for prompts). More.")
                == "Print only the label, e.g. \"4.5 songs\" (for prompts).")
        #expect(HelpRenderer.firstSentence("One (i.e. the first). Two.") == "One (i.e. the first).")
        #expect(HelpRenderer.firstSentence("No end") == "No end")
        let short = try await InProcess.run("songcount", ["-h"])
        #expect(short.stdout.contains(#"e.g. "4.5 songs""#), "\(short.stdout)")
        // Every option of every command: a shown first sentence never ends on an abbreviation.
        for tool in ToolCatalog.all {
            for command in [tool] + tool.subcommands {
                for option in command.options {
                    let shown = HelpRenderer.firstSentence(option.help)
                    for abbreviation in ["e.g.", "i.e.", "etc."] {
                        #expect(!shown.hasSuffix(abbreviation), "\(tool.name) \(command.name) --\(option.long)")
                    }
                }
            }
        }
    }

    @Test func anArgumentErrorPrintsTheSubcommandsUsage() async throws {
        let run = try await InProcess.run("spotify-playlists", ["edit", "Morning"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("Usage: spotify-playlists edit [OPTIONS] PLAYLIST\n"), "\(run.stderr)")
        #expect(run.stderr.contains("Try 'spotify-playlists edit --help'"), "\(run.stderr)")
        #expect(!run.stderr.contains("Usage: spotify-playlists [COMMAND]"), "\(run.stderr)")
    }
}
