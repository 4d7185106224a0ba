import Foundation
import TestSupport
import Testing

@testable import SpotifyClient
@testable import ToolkitCore
@testable import Tools

/// Extreme and random values through both songcount modes' logic, with a fixed seed (a failure
/// replays exactly): a trap anywhere here ends the test process. The same logs through the
/// spawned songcount are FuzzTests, end to end.
@Suite(.tags(.small)) struct SongcountFuzzTests {
    @Test func bothSongcountModesInProcess() throws {
        var random = SplitMix64(seed: FuzzInput.seed)
        for _ in 0..<3_000 {
            let text = FuzzInput.log(&random, records: 1 + Int(random.next() % 12))
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
}

/// Extreme times through the token store and `spotify-auth status`'s record and text.
@Suite(.tags(.medium)) struct TokenStoreFuzzTests {
    @Test func tokenStoreAndStatusWithExtremeTimes() throws {
        let home = try TemporaryDirectory()
        chmod(home.path, 0o700)
        let store = FileTokenStore(directory: home.path + "/spotify-toolkit")
        var random = SplitMix64(seed: FuzzInput.seed ^ 2)
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
            _ = (status.json.serialized(), status.humanText)
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
