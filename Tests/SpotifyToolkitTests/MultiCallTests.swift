import Foundation
import Testing

@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// `spotify-toolkit`, the one shipped binary: which tool a command line runs,
/// and the one version it reports.
@Suite(.tags(.medium)) struct MultiCallTests {
    let tools = ToolCatalog.names

    @Test func theNameItRunsAsWinsSoALinkIsTheTool() {
        #expect(
            MultiCall.choose(["/usr/local/bin/songcount", "--target", "15m"], tools: tools)
                == .tool("songcount", arguments: ["--target", "15m"]))
        // Through a link, --help and --version are the tool's, and a tool name is an argument.
        #expect(MultiCall.choose(["songcount", "--help"], tools: tools) == .tool("songcount", arguments: ["--help"]))
        #expect(
            MultiCall.choose(["routine-link", "songcount"], tools: tools)
                == .tool("routine-link", arguments: ["songcount"]))
    }

    @Test func otherwiseTheFirstArgumentNamesTheTool() {
        #expect(
            MultiCall.choose(["./spotify-toolkit", "songcount", "--target", "15m"], tools: tools)
                == .tool("songcount", arguments: ["--target", "15m"]))
        #expect(
            MultiCall.choose(["spotify-toolkit", "spotify-auth"], tools: tools) == .tool("spotify-auth", arguments: []))
        // A renamed copy still dispatches on its first argument.
        #expect(
            MultiCall.choose(["/opt/st", "spotify-tracks", "-h"], tools: tools)
                == .tool("spotify-tracks", arguments: ["-h"]))
    }

    @Test func noToolIsTheUsageLineAndHelpAndVersionAreItsOwn() {
        #expect(MultiCall.choose(["spotify-toolkit"], tools: tools) == .usage(unknown: nil))
        #expect(MultiCall.choose([], tools: tools) == .usage(unknown: nil))
        #expect(MultiCall.choose(["spotify-toolkit", "songcoun"], tools: tools) == .usage(unknown: "songcoun"))
        #expect(MultiCall.choose(["spotify-toolkit", "--target", "15m"], tools: tools) == .usage(unknown: "--target"))
        #expect(MultiCall.choose(["spotify-toolkit", "--help"], tools: tools) == .help)
        #expect(MultiCall.choose(["spotify-toolkit", "-h"], tools: tools) == .help)
        #expect(MultiCall.choose(["spotify-toolkit", "--version"], tools: tools) == .version)
        let usage = MultiCall.usageLine(tools: tools)
        for tool in tools { #expect(usage.contains(tool)) }
        #expect(!usage.contains("\n"))
    }

    @Test func theCatalogsSwitchKnowsEveryToolAndOnlyThem() throws {
        #expect(ToolCatalog.names == ToolCatalog.all.map(\.name))
        // The end-to-end tests spawn the tools by these names without linking the catalog.
        #expect(InstalledTools.names == ToolCatalog.names)
        for name in ToolCatalog.names { #expect(try #require(ToolCatalog.spec(named: name)).name == name) }
        #expect(ToolCatalog.spec(named: "spotify-toolkit") == nil)
        #expect(ToolCatalog.spec(named: "fake-spotify") == nil)
    }

    /// routine-link run's children: beside the real file of the running binary, however it was
    /// reached; with no link there, the multi-call binary itself told which tool to be.
    @Test func routineLinkFindsItsSiblingsThroughTheRealPath() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("multicall-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let manager = FileManager.default
        let installed = scratch.appendingPathComponent("prefix/bin")
        let bare = scratch.appendingPathComponent("bare")
        let elsewhere = scratch.appendingPathComponent("elsewhere")
        for directory in [installed, bare, elsewhere] {
            try manager.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        for directory in [installed, bare] {
            let binary = directory.appendingPathComponent("spotify-toolkit").path
            try "#!/bin/sh\n".write(toFile: binary, atomically: true, encoding: .utf8)
            chmod(binary, 0o755)
        }
        for tool in ["routine-link", "songcount"] {
            try manager.createSymbolicLink(
                atPath: installed.appendingPathComponent(tool).path, withDestinationPath: "spotify-toolkit")
        }
        // Homebrew's way: bin/routine-link -> Cellar/.../bin/routine-link -> spotify-toolkit.
        let outer = elsewhere.appendingPathComponent("routine-link")
        try manager.createSymbolicLink(
            atPath: outer.path, withDestinationPath: installed.appendingPathComponent("routine-link").path)
        let noPath = ToolEnvironment(["PATH": "/nonexistent"])
        let real = installed.resolvingSymlinksInPath()

        #expect(
            ListeningPipeline.sibling("songcount", environment: noPath, executable: outer)
                == [real.appendingPathComponent("songcount").path])
        #expect(
            ListeningPipeline.sibling(
                "songcount", environment: noPath, executable: bare.appendingPathComponent("spotify-toolkit"))
                == [bare.resolvingSymlinksInPath().appendingPathComponent("spotify-toolkit").path, "songcount"])
        // The links are used, not the multi-call fallback, when they are there; a tool with no
        // link beside the real file is the multi-call binary told which tool to be.
        #expect(
            ListeningPipeline.sibling("spotify-nowplaying", environment: noPath, executable: outer)
                == [real.appendingPathComponent("spotify-toolkit").path, "spotify-nowplaying"])
        // A per-tool development executable with no sibling falls back to PATH (none here).
        let development = bare.appendingPathComponent("routine-link")
        try "#!/bin/sh\n".write(to: development, atomically: true, encoding: .utf8)
        chmod(development.path, 0o755)
        #expect(ListeningPipeline.sibling("songcount", environment: noPath, executable: development) == nil)
    }

    @Test func theVersionIsTheVersionFile() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let file = try String(contentsOf: root.appendingPathComponent("VERSION"), encoding: .utf8)
        #expect(
            Toolkit.version == file.trimmingCharacters(in: .whitespacesAndNewlines),
            "Sources/ToolkitCLI/Version.swift differs from VERSION: run scripts/sync-version.sh (make does)")
    }
}
