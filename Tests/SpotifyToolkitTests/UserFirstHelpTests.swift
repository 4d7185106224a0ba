import Foundation
import Testing

@testable import FakeSpotify
@testable import ToolkitCLI
@testable import Tools

/// Help and man pages for users first: what a tool
/// does and its common uses come first; how it pages, schedules and caches is a later section
/// (`notes`: HOW IT WORKS, the end of --help, never -h); `help`, `ls` and `rm` work; each option's
/// help is about its own command; fake-spotify's help does not send anyone to a man page. Here
/// the specs and renderers alone; tools run in process in `UserFirstHelpRunTests`, bash in
/// `UserFirstHelpShellTests`.
@Suite(.tags(.small)) struct UserFirstHelpTests {
    /// Words that belong to how a tool works, not to what it does for its user.
    static let internals = ["GET /", "PUT /", "POST /", "DELETE /", "/me/", "in flight", "look-ahead", "backoff"]

    /// Tools whose help is not yet user-first (none left).
    static let rewritten: Set<String> = []

    @Test func notesComeAfterWhatAUserNeeds() throws {
        let spec = CommandSpec(
            name: "tool", abstract: "do a thing", discussion: ["What it does for you."],
            notes: ["It sends GET /things, 50 to a page."],
            subcommands: [
                CommandSpec(name: "go", abstract: "go", discussion: ["Goes."], notes: ["Sends PUT /go."])
            ])
        let full = HelpRenderer.help(for: spec, path: ["tool"])
        let works = try #require(full.range(of: "\nHow it works:\n  It sends GET /things, 50 to a page.\n"))
        #expect(full.range(of: "What it does for you.")!.lowerBound < works.lowerBound)
        #expect(full.range(of: "Options:")!.lowerBound < works.lowerBound)
        #expect(!HelpRenderer.help(for: spec, path: ["tool"], short: true).contains("GET /things"))
        let sub = HelpRenderer.help(for: spec.subcommands[0], path: ["tool", "go"], parent: spec)
        #expect(sub.contains("How it works:\n  Sends PUT /go.\n"), "\(sub)")

        let man = ManPageRenderer.render(spec, version: "0")
        let description = try #require(man.range(of: ".SH DESCRIPTION\n"))
        let howItWorks = try #require(man.range(of: ".SH HOW IT WORKS\nIt sends GET /things, 50 to a page.\n"))
        #expect(man.range(of: ".SH EXIT STATUS")!.lowerBound < howItWorks.lowerBound)
        #expect(man.contains(".SS tool go\nSends PUT /go.\n"), "\(man)")
        #expect(!man[description.upperBound..<howItWorks.lowerBound].contains("GET /things"))
    }

    @Test func fakeSpotifyDoesNotPointAtAManPageItHasNot() throws {
        let full = HelpRenderer.help(for: FakeSpotifyCommand.spec, path: ["fake-spotify"])
        let short = HelpRenderer.help(for: FakeSpotifyCommand.spec, path: ["fake-spotify"], short: true)
        for text in [full, short] {
            #expect(!text.contains("man fake-spotify"), "\(text)")
        }
        #expect(full.hasSuffix("fake-spotify is for development only: it is never installed and has no man page.\n"))
        #expect(!ToolCatalog.all.contains { $0.developmentOnly })
    }

    /// No option of any command speaks of another command as "NAME:" (one help per command).
    @Test func noOptionSpeaksOfAnotherCommand() {
        for tool in ToolCatalog.all {
            for command in tool.subcommands {
                let others = tool.subcommands.map(\.name).filter { $0 != command.name }
                for option in command.options {
                    for other in others {
                        #expect(
                            !option.help.hasPrefix("\(other):"), "\(tool.name) \(command.name) --\(option.long)")
                    }
                }
            }
        }
    }

    /// `ls` and `rm` in the man page and the zsh and fish completions.
    @Test func lsAndRmAreInTheManPageAndCompletions() throws {
        let spec = try #require(ToolCatalog.all.first { $0.name == "routine-link" })
        #expect(ManPageRenderer.render(spec, version: "0").contains(".B list (also ls)\n"))
        #expect(CompletionRenderer.render(spec, for: .zsh).contains("'ls:list the routines, as routine records'"))
        #expect(CompletionRenderer.render(spec, for: .fish).contains("__fish_seen_subcommand_from remove rm"))
    }
}

/// The same in process: each tool's help as it prints it, `ls`, `rm` and `help` run against a
/// fake library, and the examples against the repository's files.
@Suite(.tags(.medium)) struct UserFirstHelpRunTests {
    /// Words that belong to how a tool works, not to what it does for its user.
    static let internals = UserFirstHelpTests.internals
    static let rewritten = UserFirstHelpTests.rewritten

    /// Every tool's --help and man page say what it does before how: no request paths, paging or
    /// scheduling in the description of the tool or of any command; that is what its
    /// How it works section is for.
    @Test(arguments: ToolCatalog.all.map(\.name).filter { !rewritten.contains($0) })
    func everyToolOpensWithWhatItDoes(tool: String) async throws {
        let spec = try #require(ToolCatalog.all.first { $0.name == tool })
        for command in [spec] + spec.subcommands {
            for paragraph in command.discussion {
                for word in Self.internals {
                    #expect(!paragraph.contains(word), "\(tool) \(command.name): '\(word)' in \(paragraph)")
                }
            }
            // --help: the description first, How it works last, when there is any.
            let path = command.name == tool ? [] : [command.name]
            let help = try await InProcess.run(tool, path + ["--help"]).stdout
            if !command.notes.isEmpty {
                let works = try #require(help.range(of: "\nHow it works:\n"), "\(tool) \(path)")
                let options = try #require(help.range(of: "\nOptions:\n"))
                #expect(options.lowerBound < works.lowerBound)
            }
        }
        #expect(!spec.notes.isEmpty, "\(tool) says nothing of how it works")
        let man = ManPageRenderer.render(spec, version: "0")
        #expect(man.contains(".SH HOW IT WORKS\n"), "man \(tool) has no HOW IT WORKS")
        // And the first paragraph shows the tool's common use.
        let first = try #require(spec.discussion.first)
        #expect(first.hasPrefix(tool + " "), "\(tool): \(first)")
    }

    @Test func listAndRemoveAnswerToLsAndRm() async throws {
        let library = try await Library()
        #expect(try await library.run("routine-link", ["add", "workout", "--duration", "30m"]).status == 0)
        let listed = try await library.run("routine-link", ["ls"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout == (try await library.run("routine-link", ["list"])).stdout)
        #expect(try records(listed).first?["name"]?.stringValue == "workout")
        let removed = try await library.run("routine-link", ["rm", "workout", "--yes"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(try await library.run("routine-link", ["list"]).stdout == "")
        let playlists = try await library.run("spotify-playlists", ["ls"])
        let alone = try await library.run("spotify-playlists", [])
        #expect(playlists.status == 0 && playlists.stdout == alone.stdout)

        // Shown in help (the man page and completions: UserFirstHelpTests, UserFirstHelpShellTests).
        let help = try await InProcess.run("routine-link", ["--help"])
        #expect(help.stdout.contains("  list, ls "), "\(help.stdout)")
        #expect(help.stdout.contains("  remove, rm "), "\(help.stdout)")
    }

    @Test func helpCommandShowsTheHelpOfACommand() async throws {
        #expect(
            try await InProcess.run("routine-link", ["help", "list"]).stdout
                == (try await InProcess.run("routine-link", ["list", "--help"])).stdout)
        #expect(
            try await InProcess.run("spotify-auth", ["help"]).stdout
                == (try await InProcess.run("spotify-auth", ["--help"])).stdout)
        let top = try await InProcess.run("spotify-playlists", ["--help"])
        #expect(top.stdout.contains("  help [COMMAND]"), "\(top.stdout)")
        #expect(top.stdout.contains("Run 'spotify-playlists help COMMAND'"), "\(top.stdout)")
        let unknown = try await InProcess.run("routine-link", ["help", "lsit"])
        #expect(unknown.status == 64)
        #expect(
            unknown.stderr.hasPrefix("routine-link: unknown command 'lsit'; did you mean 'list'?"), "\(unknown.stderr)")
        // A tool without commands has no help command: `help` stays what it was, an argument.
        let songcount = try await InProcess.run("songcount", ["help"])
        #expect(songcount.status == 66, "\(songcount.stderr)")
    }

    @Test func eachCommandDescribesItsOwnOptions() async throws {
        let remove = try await InProcess.run("spotify-playlists", ["remove", "-h"])
        #expect(remove.stdout.contains("Remove the items from your Liked Songs"), "\(remove.stdout)")
        #expect(!remove.stdout.contains("Save the items") && !remove.stdout.contains("add:"), "\(remove.stdout)")
        let add = try await InProcess.run("spotify-playlists", ["add", "--help"])
        #expect(add.stdout.contains("Save the items to your Liked Songs"), "\(add.stdout)")
        #expect(!add.stdout.contains("remove:"), "\(add.stdout)")
        let replace = try await InProcess.run("spotify-playlists", ["replace", "--help"])
        #expect(!replace.stdout.contains("create:"), "\(replace.stdout)")
    }

    /// The examples work where the tools are installed: none cites a file of the repository,
    /// which the release tarball does not carry (examples/morning-playlist.jsonl).
    @Test func examplesCiteNoFileOfTheRepository() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        for tool in ToolCatalog.all {
            for example in ([tool] + tool.subcommands).flatMap(\.examples) {
                for word in example.command.split(separator: " ")
                where word.first?.isLetter == true && word.contains("/") && !word.contains(":") {
                    let path = root.appendingPathComponent(String(word)).path
                    #expect(!FileManager.default.fileExists(atPath: path), "\(tool.name): '\(example.command)'")
                }
            }
        }
    }
}

/// bash itself, on the generated completion script.
@Suite(.tags(.large)) struct UserFirstHelpShellTests {
    /// bash completes `r` to `rm`, `remove` and `rename`, and `rm --` to remove's options.
    @Test func bashCompletesRmAsRemove() throws {
        let spec = try #require(ToolCatalog.all.first { $0.name == "routine-link" })
        let bash = CompletionRenderer.render(spec, for: .bash)
        let output = try GeneratedDocsTests().runShell(
            "bash --norc -c 'source /dev/stdin; COMP_WORDS=(routine-link r); COMP_CWORD=1; _routine_link; printf \"%s\\n\" \"${COMPREPLY[@]}\"; COMP_WORDS=(routine-link rm --); COMP_CWORD=2; _routine_link; printf \"%s\\n\" \"${COMPREPLY[@]}\"'",
            input: bash)
        let words = output.split(separator: "\n").map(String.init)
        #expect(words.contains("rm") && words.contains("remove") && words.contains("rename"), "\(words)")
        #expect(words.contains("--yes"), "rm completes remove's options: \(words)")
    }
}
