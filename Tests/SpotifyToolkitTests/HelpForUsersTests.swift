import Foundation
import Testing

@testable import ToolkitCLI
@testable import Tools

/// Help for users first: `-h` shows each option's first
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

    /// Help wraps to 79 columns, first line too, and to a narrower terminal's width, so no word
    /// breaks at a narrow window's edge; piped or wide, it is the same text everywhere.
    @Test func helpFitsANarrowTerminalAndIsTheSameEverywhereElse() async throws {
        let onTerminal = Terminal(stdinIsTerminal: false, stdoutIsTerminal: true, stderrIsTerminal: true)
        for tool in ["spotify-tracks", "songcount"] {
            for flag in ["-h", "--help"] {
                let piped = try await InProcess.run(tool, [flag])
                let wide = try await InProcess.run(tool, [flag], environment: ["COLUMNS": "200"], terminal: onTerminal)
                #expect(piped.stdout == wide.stdout, "\(tool) \(flag): wider terminals get the standard text")
                let narrow = try await InProcess.run(tool, [flag], environment: ["COLUMNS": "60"], terminal: onTerminal)
                for (text, limit) in [(piped.stdout, 79), (narrow.stdout, 59)] {
                    // A single word longer than the line (a URL) may stand alone; an example's
                    // command line stays whole, to be copied.
                    let over = text.split(separator: "\n").filter { line in
                        line.count > limit && !line.hasPrefix("  $ ") && line.split(separator: " ").count > 1
                    }
                    #expect(over.isEmpty, "\(tool) \(flag) at \(limit): \(over)")
                }
                #expect(narrow.stdout != piped.stdout, "\(tool) \(flag): rewrapped for 60 columns")
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
