import Foundation
import Testing

@testable import FakeSpotify
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

extension LocalZone {
    /// The zone's name: `Asia/Tokyo` for `TZ=:Asia/Tokyo` or `TZ=/usr/share/zoneinfo/Asia/Tokyo`;
    /// `localtime` for the system's.
    var identifier: String {
        guard var name = tz else { return "localtime" }
        if name.hasPrefix(":") { name.removeFirst() }
        if let range = name.range(of: "zoneinfo/") { name = String(name[range.upperBound...]) }
        return name
    }

    /// Seconds east of UTC at `seconds` (now when nil).
    func secondsFromGMT(at seconds: Double? = nil) -> Int {
        components(seconds ?? Double(time(nil))).map { Int($0.tm_gmtoff) } ?? 0
    }
}

/// Times for people follow TZ; records keep UTC.
@Suite(.tags(.medium)) struct LocalTimeTests {
    static let tokyo = LocalTime.zone("Asia/Tokyo")

    @Test func zonesAsTZNamesThem() {
        #expect(LocalTime.zone("Asia/Tokyo").identifier == "Asia/Tokyo")
        #expect(LocalTime.zone(":Europe/Berlin").identifier == "Europe/Berlin")
        #expect(LocalTime.zone("UTC").secondsFromGMT() == 0)
    }

    /// FoundationEssentials' `TimeZone` has no named zones on Linux; these come from the C
    /// library's tz database, clock changes included.
    @Test func namedZonesFromTheTzDatabase() throws {
        let newYork = LocalTime.zone("America/New_York")
        #expect(LocalTime.text("2026-07-01T12:00:00Z", "HH:mm", in: newYork) == "08:00", "summer: EDT")
        #expect(LocalTime.text("2026-01-15T12:00:00Z", "HH:mm", in: newYork) == "07:00", "winter: EST")
        #expect(newYork.secondsFromGMT(at: 1_782_907_200) == -4 * 3600)
        let now = try #require(parseISOTimestamp("2026-07-01T18:00:00Z"))
        #expect(
            LocalTime.parse("2026-07-01 08:00", now: now, in: newYork) == parseISOTimestamp("2026-07-01T12:00:00Z"))
        #expect(LocalTime.parse("08:00:30", now: now, in: newYork) == parseISOTimestamp("2026-07-01T12:00:30Z"))
        let path = LocalTime.zone("/usr/share/zoneinfo/Asia/Tokyo")
        #expect(path.identifier == "Asia/Tokyo")
        #expect(LocalTime.text("2026-11-24T05:35:52Z", "HH:mm", in: path) == "14:35")
        #expect(LocalTime.text("2026-11-24T05:35:52Z", "HH:mm", in: LocalTime.zone("JST-9")) == "14:35", "a POSIX rule")
        #expect(LocalTime.zone("Mars/Olympus_Mons") == .system, "a zone the database lacks: the system's")
        #expect(LocalTime.zone(nil) == .system && LocalTime.zone("  ") == .system)
        // Another zone than the process's own is used and the process's TZ left as it was.
        let before = ProcessInfo.processInfo.environment["TZ"]
        #expect(LocalTime.text("2026-11-24T05:35:52Z", "HH:mm", in: Self.tokyo) == "14:35")
        #expect(LocalTime.text("2026-11-24T05:35:52Z", "HH:mm", in: LocalTime.zone("UTC")) == "05:35")
        let after = ProcessInfo.processInfo.environment["TZ"]
        // Other tests of this process switch zones meanwhile (each under the same lock, each
        // putting TZ back), so `before` may have caught one mid-switch: what is left is the
        // process's own setting, never a zone a switch used.
        #expect(
            after == before || after == ":/etc/localtime" || after == nil, "\(String(describing: after))")
    }

    @Test func textInTheZone() {
        #expect(LocalTime.text("2026-11-24T05:35:52.123Z", "HH:mm:ss", in: Self.tokyo) == "14:35:52")
        #expect(LocalTime.text("2026-11-24T20:00:00Z", "yyyy-MM-dd HH:mm", in: Self.tokyo) == "2026-11-25 05:00")
        #expect(LocalTime.text("not a time", "HH:mm", in: Self.tokyo) == "not a time")
    }

    @Test func peoplesTimes() throws {
        let now = try #require(parseISOTimestamp("2026-11-24T06:00:00Z"))  // 15:00 in Tokyo
        #expect(LocalTime.parse("14:30", now: now, in: Self.tokyo) == parseISOTimestamp("2026-11-24T05:30:00Z"))
        #expect(
            LocalTime.parse("2026-11-24T05:30", now: now, in: Self.tokyo) == parseISOTimestamp("2026-11-23T20:30:00Z"))
        #expect(
            LocalTime.parse("2026-11-24T05:30:00Z", now: now, in: Self.tokyo)
                == parseISOTimestamp("2026-11-24T05:30:00Z"))
        for bad in ["25:00", "12:60", "soon", "1:2:3:4", ""] {
            #expect(LocalTime.parse(bad, now: now, in: Self.tokyo) == nil, "\(bad)")
        }
    }

    @Test func theWatchAndRecentFollowTZ() async throws {
        let fake = try InProcessFake()
        let minted = try await fake.call(
            "POST", "/_fake/tokens", form: [("scope", "user-read-currently-playing user-read-recently-played")])
        let environment = [
            "SPOTIFY_ACCESS_TOKEN": minted["access_token"]?.stringValue ?? "", "TZ": "Asia/Tokyo",
            "SPOTIFY_TOOLKIT_FORCE_TTY": "1",
        ]
        try await fake.call("POST", "/_fake/playback/history", form: [("count", "3")])
        let recent = try await fake.run("spotify-nowplaying", ["recent", "--after", "3h"], environment: environment)
        #expect(recent.status == 0, "\(recent.stderr)")
        let json = try await fake.run(
            "spotify-nowplaying", ["recent", "--after", "3h", "--json"], environment: environment)
        let firstPlayed = try #require(try records(json).first?["played_at"]?.stringValue)
        #expect(firstPlayed.hasSuffix("Z"), "records stay UTC")
        let local = LocalTime.text(firstPlayed, "yyyy-MM-dd HH:mm:ss", in: Self.tokyo)
        #expect(recent.stdout.contains(local), "\(recent.stdout) lacks \(local)")
    }
}
