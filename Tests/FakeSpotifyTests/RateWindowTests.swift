import Foundation
import Testing
import ToolkitCLI
import ToolkitCore

@testable import FakeSpotify

/// The rolling rate limit: Spotify's documented count of requests over a rolling window.
@Suite(.tags(.medium)) struct RateWindowTests {
    @Test func theSlidingLogAdmitsNPerWindowAndSaysWhenTheOldestLeaves() throws {
        var limit = RollingRateLimit(try RateWindow(parsing: "3/30s"))
        #expect([0.0, 1, 2].map { limit.admit(now: $0) } == [nil, nil, nil])
        #expect(limit.admit(now: 2.5) == 28, "the oldest (at 0 s) leaves at 30 s: 27.5 s, rounded up")
        #expect(limit.admit(now: 29.2) == 1, "at least a second")
        #expect(limit.admitted == [0, 1, 2], "refused requests do not count")
        #expect(limit.admit(now: 30.0) == nil, "the request of 0 s has left the last 30 s: one place")
        #expect(limit.admit(now: 30.01) == 1, "full again until the request of 1 s leaves")
        #expect(limit.admitted == [1, 2, 30])
        #expect(limit.admit(now: 100) == nil, "all gone")
        #expect(limit.admitted == [100])
    }

    @Test func windowsParseAndBadOnesAreRefusedNamingTheField() throws {
        #expect(try RateWindow(parsing: "180/30s") == RateWindow(limit: 180, windowMs: 30_000))
        #expect(try RateWindow(parsing: "180/3s").text == "180/3s")
        #expect(try RateWindow(parsing: "5/1.5s").text == "5/1.5s")
        for bad in ["", "180", "0/30s", "-1/30s", "180/", "180/0s", "180/2h", "x/30s", "180/abc"] {
            #expect(throws: ControlError.self, "\(bad)") { try RateWindow(parsing: bad) }
        }
    }

    /// Over HTTP: with 3 a window of an hour (no request here waits for it, and no loaded machine
    /// is slow enough to see it pass), the fourth /v1/ request is refused with
    /// Spotify's body and a Retry-After, the controls and the token endpoint are not counted, and
    /// setting the window again starts it empty.
    @Test func overHTTPTheFourthRequestIsRefusedAndCounted() async throws {
        let fake = try Fake { $0.library.rateWindow = RateWindow(limit: 3, windowMs: 3_600_000) }
        defer { fake.stop() }
        let token = try await fake.login().string("access_token")
        var statuses: [Int] = []
        var refused: Reply?
        for _ in 0..<5 {
            let reply = try await fake.get("/v1/me", token: token)
            statuses.append(reply.status)
            if reply.status == 429 { refused = reply }
            _ = try await fake.counters()  // controls are not counted
        }
        #expect(statuses == [200, 200, 200, 429, 429])
        let retryAfter = try #require(refused?.header("Retry-After").flatMap(Int.init))
        #expect((1...3600).contains(retryAfter))
        #expect(try refused?.json() == ["error": ["status": 429, "message": "API rate limit exceeded"]])
        let counters = try await fake.counters()
        #expect(counters["rate_limited"] == 2)
        #expect(counters["sent_during_retry_after"] == 1, "the fifth was sent while the fourth's Retry-After ran")
        #expect(counters["requests"]?["GET /v1/me"] == 5, "refused requests are still counted as they arrive")

        let settings = try await fake.post("/_fake/library", [("rate_window", "3/30s")])
        #expect(try settings.json()["rate_window"] == "3/30s")
        #expect(try await fake.get("/v1/me", token: token).status == 200, "setting it again starts it empty")
        #expect(try await fake.post("/_fake/library", [("rate_window", "off")]).json()["rate_window"] == .null)
        for _ in 0..<5 { #expect(try await fake.get("/v1/me", token: token).status == 200) }
        let bad = try await fake.post("/_fake/library", [("rate_window", "0/30s")])
        #expect(bad.status == 400 && bad.text.contains("rate_window"))
    }

    @Test func theCommandLineSetsIt() throws {
        let command = try CommandLineParser.parse(["--rate-window", "180/30s"], spec: FakeSpotifyCommand.spec)
        #expect(try FakeSpotifyCommand.Launch(command).settings.library.rateWindow?.limit == 180)
        let bad = try CommandLineParser.parse(["--rate-window", "lots"], spec: FakeSpotifyCommand.spec)
        #expect(throws: ToolError.self) { try FakeSpotifyCommand.Launch(bad) }
    }
}
