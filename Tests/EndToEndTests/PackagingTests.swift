import Foundation
import Testing

/// Packaging and the README as a user guide: what ships around the tools says what it should, the shell can read the scripts, and
/// the tarball's install.sh installs and uninstalls.
@Suite(.tags(.large)) struct PackagingTests {
    static let root = InstallTests.repositoryRoot
    static func text(_ path: String) throws -> String { try String(contentsOfFile: root + "/" + path, encoding: .utf8) }
    static let tools = [
        "spotify-auth", "spotify-playlists", "spotify-tracks", "spotify-nowplaying", "songcount", "routine-link",
    ]
    static var version: String { InstallTests.version ?? "no VERSION file" }

    @Test func theCIWorkflowRunsTheTestsOnLinuxAndMacOS() throws {
        let workflow = try Self.text(".github/workflows/ci.yml")
        #expect(workflow.contains("ubuntu") && workflow.contains("macos"))
        #expect(workflow.contains("run: make test") && workflow.contains("run: make lint"))
    }

    @Test func theHomebrewFormulaInstallsTheBinaryAndALinkPerToolWithItsDocs() throws {
        let formula = try Self.text("packaging/spotify-toolkit.rb")
        for tool in Self.tools { #expect(formula.contains(tool), "\(tool)") }
        for part in [
            "man1.install", "bash_completion.install", "zsh_completion.install", "fish_completion.install",
            ##"bin.install "#{built}/spotify-toolkit""##, #"bin.install_symlink "spotify-toolkit" => tool"#,
            #""--product", "spotify-toolkit""#, #"license "MIT""#,
        ] {
            #expect(formula.contains(part), "\(part)")
        }
        // One version: the formula's is VERSION's.
        #expect(formula.contains("/refs/tags/v\(Self.version).tar.gz\""), "the formula's url is not v\(Self.version)")
        // Its test checks the count, not a word any JSON output holds.
        #expect(formula.contains(##"assert_equal "2 songs\n", pipe_output("#{bin}/songcount --target 2m --label""##))
        #expect(!formula.contains(#"assert_match "songs""#))
        let ruby = try ToolProcess.shell(
            "command -v ruby >/dev/null && ruby -c '\(Self.root)/packaging/spotify-toolkit.rb' || echo no ruby")
        #expect(ruby.stdout.contains("Syntax OK") || ruby.stdout.contains("no ruby"), "\(ruby.stdout)\(ruby.stderr)")
    }

    @Test func theScriptsAreSoundShell() throws {
        for (script, shell) in [
            ("scripts/dist.sh", "bash"), ("scripts/preflight.sh", "sh"), ("scripts/sync-version.sh", "sh"),
            ("scripts/test-size.sh", "sh"), ("Benchmarks/startup.sh", "bash"),
        ] {
            #expect(FileManager.default.isExecutableFile(atPath: Self.root + "/" + script), "\(script)")
            let check = try ToolProcess.shell("\(shell) -n '\(Self.root)/\(script)'")
            #expect(check.status == 0, "\(script): \(check.stderr)")
        }
        let script = try Self.text("scripts/dist.sh")
        #expect(script.contains("start-up") && script.contains("sha256") && script.contains("install-files"))
        // What make install and make dist ship: the static-stdlib binary, built once, for both.
        let makefile = try Self.text("Makefile")
        #expect(
            makefile.contains(
                "SHIP_FLAGS := $(LAYERS) -c release --scratch-path .build/ship $(if $(filter Linux,$(shell uname -s)),--static-swift-stdlib)"
            ))
        #expect(makefile.contains("install: ship\n") && makefile.contains("dist: ship\n\tscripts/dist.sh"))
        #expect(makefile.contains("TOOLS := \(InstalledTools.names.joined(separator: " "))\n"))
    }

    /// The preflight names what is missing in one line each, and passes when all is there.
    @Test func thePreflightNamesAMissingOrOldSwiftAndHowToGetIt() throws {
        let scratch = try TemporaryDirectory()
        let old = try scratch.file(
            "swift5", contents: "#!/bin/sh\necho 'Swift version 5.10.1 (swift-5.10.1-RELEASE)'\n")
        let mac = try scratch.file(
            "swift6",
            contents: "#!/bin/sh\necho 'swift-driver version: 1.115 Apple Swift version 6.0.3 (swiftlang-6.0.3.1.10)'\n"
        )
        chmod(old, 0o755)
        chmod(mac, 0o755)
        let preflight = "'\(Self.root)/scripts/preflight.sh'"
        let tooOld = try ToolProcess.shell("cd '\(Self.root)' && SWIFT='\(old)' \(preflight)")
        #expect(tooOld.status == 1)
        #expect(tooOld.stderr.hasPrefix("make: Swift 6 is needed to build, and '\(old)' is Swift 5.10: "))
        #expect(tooOld.stderr.contains("https://www.swift.org/install") && tooOld.stderr.contains("swiftly"))
        let none = try ToolProcess.shell("cd '\(Self.root)' && SWIFT=no-such-swift \(preflight)")
        #expect(none.status == 1 && none.stderr.contains("'no-such-swift' is not on PATH"), "\(none.stderr)")
        let fine = try ToolProcess.shell("cd '\(Self.root)' && SWIFT='\(mac)' \(preflight)")
        #expect(fine.stderr.contains("Swift") == false, "\(fine.stderr)")
        // The building targets run it first.
        let makefile = try Self.text("Makefile")
        for target in ["build: preflight", "release: preflight", "ship: preflight"] {
            #expect(makefile.contains(target), "\(target)")
        }
    }

    @Test func aLicenceAChangelogAndAReleaseWorkflowOnTags() throws {
        let licence = try Self.text("LICENSE")
        #expect(licence.hasPrefix("MIT License\n\nCopyright (c) 2026 the spotify-toolkit authors\n"))
        let changelog = try Self.text("CHANGELOG.md")
        #expect(changelog.contains("\n## Unreleased\n"))
        #expect(changelog.contains("\n## \(Self.version) ("), "CHANGELOG.md has no entry for VERSION \(Self.version)")
        let release = try Self.text(".github/workflows/release.yml")
        #expect(release.contains(#"tags: ["v*"]"#) && release.contains("run: make dist"))
        #expect(release.contains(#""v$(cat VERSION)""#), "the tag must be VERSION's")
        #expect(release.contains("dist/spotify-toolkit-*.tar.gz"))
    }

    /// The tarball (here of the debug build, as `make dist` packs the release build): laid out as
    /// a PREFIX, its install.sh copies the links as links and --uninstall removes what it copied.
    @Test func theTarballsInstallShKeepsTheLinksAndUninstalls() throws {
        let scratch = try TemporaryDirectory()
        let pack = try ToolProcess.shell(
            "DIST_OUT='\(scratch.path)/out' DIST_TIMING=no '\(Self.root)/scripts/dist.sh' '\(ToolProcess.binDirectory.path)'",
            timeout: 120)
        #expect(pack.status == 0, "\(pack.stderr)")
        let name = "spotify-toolkit-\(Self.version)-"
        #expect(pack.stdout.contains("/out/\(name)") && pack.stdout.contains("unpacked"), "\(pack.stdout)")
        let prefix = scratch.path + "/prefix"
        let script = """
            set -e
            cd '\(scratch.path)' && tar -xzf out/\(name)*.tar.gz
            cd \(name)*/
            for f in LICENSE CHANGELOG.md README.md install.sh; do test -e "$f"; done
            grep -q 'libcurl4 (libcurl.so.4) for the commands' install.sh
            PREFIX='\(prefix)' ./install.sh > /dev/null
            printf '%s\\n' '{"duration_ms":60000}' '{"duration_ms":60000}' | '\(prefix)/bin/songcount' --target 2m --label
            readlink '\(prefix)/bin/routine-link'
            PREFIX='\(prefix)' ./install.sh --uninstall
            find '\(prefix)' ! -type d | wc -l
            """
        let installed = try ToolProcess.shell(script, timeout: 60)
        #expect(installed.status == 0, "\(installed.stderr)")
        #expect(installed.stdoutLines.first == "2 songs", "\(installed.stdout)")
        #expect(installed.stdoutLines.dropFirst().first == "spotify-toolkit", "a link, not a copy: \(installed.stdout)")
        #expect(installed.stdoutLines.last?.trimmingCharacters(in: .whitespaces) == "0", "\(installed.stdout)")
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
        // Requirements come first, where a newcomer reads before running anything.
        let requirements = try #require(readme.range(of: "\n## Requirements\n"))
        let quickStart = try #require(readme.range(of: "\n## Quick start\n"))
        #expect(requirements.lowerBound < quickStart.lowerBound)
        let section = readme[requirements.upperBound..<quickStart.lowerBound]
        for needed in ["Swift 6", "swift.org/install", "swiftly", "jq", "curl", "libcurl4 (`libcurl.so.4`)"] {
            #expect(section.contains(needed), "Requirements does not mention \(needed)")
        }
    }
}
