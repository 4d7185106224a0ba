import Foundation
import Testing

/// Completions that know the data: the generated bash and fish scripts, run by
/// the shells themselves, offer the routine names and local playlist names the tools list.
@Suite(.tags(.large)) struct DataCompletionTests {
    static let root = InstallTests.repositoryRoot

    @Test func bashAndFishCompleteRoutineAndLocalPlaylistNames() throws {
        let home = try RoutineHome()
        try home.rl(["add", "morning run"])
        try home.rl(["add", "Evening"])
        let track =
            #"{"type":"track","id":"a","uri":"spotify:track:4iV5W9uYEdYUVa79Axb7Rh","name":"A","duration_ms":1000}"#
        _ = try ToolProcess.run(
            "spotify-playlists", ["local", "create", "Mix Tape"], stdin: track + "\n", environment: home.environment())
        #expect(try home.rl(["list", "--names"]).stdout == "morning run\nEvening\n")

        let bash = """
            source '\(Self.root)/completions/bash/routine-link'
            COMP_WORDS=(routine-link show mo); COMP_CWORD=2; _routine_link; printf '%s\\n' "${COMPREPLY[@]}"
            source '\(Self.root)/completions/bash/spotify-playlists'
            COMP_WORDS=(spotify-playlists local show M); COMP_CWORD=3; _spotify_playlists; printf '%s\\n' "${COMPREPLY[@]}"
            """
        let bashResult = try ToolProcess.shell(bash, environment: home.environment())
        #expect(bashResult.stdout == "morning run\nMix Tape\n", "\(bashResult.stdout) \(bashResult.stderr)")

        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/fish") else { return }  // lint requires it in CI
        let fish = """
            fish -c "source '\(Self.root)/completions/fish/routine-link.fish'; complete -C 'routine-link show '"
            """
        let fishResult = try ToolProcess.shell(fish, environment: home.environment())
        let offered = fishResult.stdout.split(separator: "\n").map {
            $0.split(separator: "\t").first.map(String.init) ?? ""
        }
        #expect(
            offered.contains("morning run") && offered.contains("Evening"), "\(fishResult.stdout) \(fishResult.stderr)")
    }
}
