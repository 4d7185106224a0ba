import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// Extreme and random values through both songcount modes and the token store, with a fixed
/// seed (a failure replays exactly). A trap anywhere here would end the test process, and the
/// spawned runs check that no exit is a signal. Runs in a few seconds.
@Suite struct FuzzTests {
    static let seed: UInt64 = 0x0f00_d5ee_d6

    /// Numbers as they may appear in JSON: edges of Int, beyond it, fractions, exponents.
    static let edgeNumbers = [
        "0", "-0", "1", "-1", "2", "999", "1000", "-1000", "9223372036854775807", "-9223372036854775808",
        "9223372036854775806", "9223372036854775808", "-9223372036854775809", "99999999999999999999999",
        "1e308", "-1e308", "1e400", "1.5", "0.0", "4611686018427387904", "-4611686018427387904", "1e18", "3e2",
    ]

    static func number(_ random: inout SplitMix64) -> String {
        switch random.next() % 4 {
        case 0: return String(Int(bitPattern: UInt(random.next())))
        case 1: return String(Int(random.next() % 400_000))
        default: return edgeNumbers[Int(random.next() % UInt64(edgeNumbers.count))]
        }
    }

    /// One generated listening log: records of a few songs with extreme durations and progress.
    static func log(_ random: inout SplitMix64, records: Int) -> String {
        (0..<records).map { _ in
            let id = ["a", "b", "c"][Int(random.next() % 3)]
            var fields = [#""id":"\#(id)""#, #""duration_ms":\#(number(&random))"#]
            if random.next() % 4 != 0 { fields.append(#""progress_ms":\#(number(&random))"#) }
            if random.next() % 5 == 0 {
                return #"{"item":{"id":"\#(id)","duration_ms":\#(number(&random))},"progress_ms":\#(number(&random))}"#
            }
            return "{" + fields.joined(separator: ",") + "}"
        }.joined(separator: "\n") + "\n"
    }

    @Test func bothSongcountModesInProcess() throws {
        var random = SplitMix64(seed: Self.seed)
        for _ in 0..<3_000 {
            let text = Self.log(&random, records: 1 + Int(random.next() % 12))
            var counter = SongCounter()
            var fit = SongFit(targetMs: Int(random.next() % 2 == 0 ? random.next() % 10_000_000 + 1 : UInt64(Int.max)))
            for line in text.split(separator: "\n") {
                let fields = try Array(line.utf8).withUnsafeBytes { try SongRecordFields.extract(from: $0) }
                guard let duration = fields.durationMs, duration > 0 else { continue }
                counter.add(SongObservation(key: fields.songKey, durationMs: duration, progressMs: fields.progressMs))
                fit.add(durationMs: duration)
            }
            let result = counter.result
            #expect(result.songs.isFinite && result.songs >= 0)
            #expect(result.listenedMs >= 0 && result.totalDurationMs >= 0)
            _ = (
                songLabel(result.songs), roundedSongs(fit.songs), formatClock(milliseconds: result.listenedMs),
                fit.shortByMs.map { formatClock(milliseconds: $0) }
            )
        }
    }

    @Test func bothSongcountModesAsProcesses() throws {
        var random = SplitMix64(seed: Self.seed ^ 1)
        for round in 0..<6 {
            let input = Self.log(&random, records: 400)
            for arguments in [["--json"], ["--target", "15m", "--json"], ["--target", "1000000h"], ["--label"]] {
                let result = try ToolProcess.run(
                    "songcount", arguments, stdin: input,
                    environment: ["SPOTIFY_TOOLKIT_FORCE_TTY": round % 2 == 0 ? "1" : "0"])
                #expect(result.status == 0, "round \(round) \(arguments): \(result.status) \(result.stderr)")
            }
        }
    }

    @Test func tokenStoreAndStatusWithExtremeTimes() throws {
        let home = try TemporaryDirectory()
        chmod(home.path, 0o700)
        let store = FileTokenStore(directory: home.path + "/spotify-toolkit")
        var random = SplitMix64(seed: Self.seed ^ 2)
        let times: [Double] = [
            0, -1, 1e300, -1e300, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 9.3e18, -9.3e18, 1e16,
            253_402_300_800, -62_135_596_801,
        ]
        func time() -> Double {
            random.next() % 3 == 0
                ? Double(Int64(bitPattern: random.next())) : times[Int(random.next() % UInt64(times.count))]
        }
        for _ in 0..<300 {
            let tokens = StoredTokens(
                accessToken: "A", scope: "s", expiresAt: time(), refreshToken: "R", clientID: "c", authorizedAt: time())
            try store.save(tokens)
            let loaded = try #require(try store.load())
            #expect(loaded == tokens)
            let now = time()
            let status = AuthStatus(tokens: loaded, store: store, now: now)
            _ = (status.record.serialized(), status.humanText)
            let response = TokenResponse(accessToken: "B", expiresIn: Int(bitPattern: UInt(random.next())))
            let next = loaded.refreshed(with: response, now: now)
            #expect(next.expiresAt.isFinite || !now.isFinite)
            _ = (
                next.needsRefresh(now: now),
                TokenProvider.sessionEnded(reason: "x", authorizedAt: loaded.authorizedAt, now: now)
            )
        }
        // Numbers JSON can write but a Double cannot hold: a damaged store (78), never a trap.
        for raw in ["1e400", "-1e400", "123456789012345678901234567890"] {
            let json =
                #"{"access_token":"a","token_type":"Bearer","scope":"s","expires_at":\#(raw),"client_id":"c","authorized_at":\#(raw)}"#
            try PrivateDirectory(store.directory).write(Data(json.utf8), to: "tokens.json")
            do {
                _ = try store.load().map { AuthStatus(tokens: $0, store: store, now: 0).humanText }
            } catch let error as ToolError {
                #expect(error.exitCode == .config)
            }
        }
    }
}
