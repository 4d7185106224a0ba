import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore

/// Extreme and random values through the spawned songcount, with a fixed seed (a failure replays
/// exactly): no exit may be a signal. The same logs through its logic in process, and the token
/// store's fuzz, are SongcountFuzzTests and TokenStoreFuzzTests.
@Suite(.tags(.large)) struct FuzzTests {
    @Test func bothSongcountModesAsProcesses() throws {
        var random = SplitMix64(seed: FuzzInput.seed ^ 1)
        for round in 0..<6 {
            let input = FuzzInput.log(&random, records: 400)
            for arguments in [["--json"], ["--target", "15m", "--json"], ["--target", "1000000h"], ["--label"]] {
                let result = try ToolProcess.run(
                    "songcount", arguments, stdin: input,
                    environment: ["SPOTIFY_TOOLKIT_FORCE_TTY": round % 2 == 0 ? "1" : "0"])
                #expect(result.status == 0, "round \(round) \(arguments): \(result.status) \(result.stderr)")
            }
        }
    }
}
