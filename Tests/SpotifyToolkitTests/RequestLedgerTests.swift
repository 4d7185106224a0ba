import Foundation
import SpotifyClient
import Testing
import ToolkitCLI
import ToolkitCore

@testable import Tools

/// The ledger's sums and the quota message, pure.
@Suite(.tags(.small)) struct UsageRecordTests {
    func entry(_ at: Double, _ tool: String, status: Int = 200, reason: String? = nil, retryAfter: Double? = nil)
        -> RequestLedger.Entry
    {
        RequestLedger.Entry(
            at: at, tool: tool, service: .webAPI, method: "GET", status: status, reason: reason, retryAfter: retryAfter)
    }

    @Test func countsByWindowAndByTool() {
        let now = 1_000_000.0
        let entries = [
            entry(now - 90_000, "old"),  // outside the day
            entry(now - 7200, "spotify-tracks"), entry(now - 1800, "spotify-tracks"),
            entry(now - 20, "spotify-playlists"),
            entry(now - 10, "spotify-tracks", status: 429, reason: "QUOTA_EXCEEDED", retryAfter: 48925),
        ]
        let record = UsageRecord(app: "abc", entries: entries, pausedUntil: now + 48925, now: now)
        #expect(record.lastDay == 4)
        #expect(record.lastHour == 3)
        #expect(record.last30s == 2)
        #expect(record.byTool.map(\.tool) == ["spotify-tracks", "spotify-playlists"])
        #expect(record.byTool.map(\.count) == [3, 1])
        let json = record.json
        #expect(json["type"] == "usage")
        #expect(json["requests_24h"] == 4)
        #expect(json["by_tool"]?["spotify-tracks"] == 3)
        #expect(json["latest_429s"]?.arrayValue?.count == 1)
        #expect(json["latest_429s"]?.arrayValue?.first?["reason"] == "QUOTA_EXCEEDED")
        #expect(json["quota_exceeded_until"] == .string(isoSecondsTimestamp(now + 48925)))
        #expect(UsageRecord(app: "abc", entries: [], pausedUntil: nil, now: now).json["quota_exceeded_until"] == .null)
    }

    @Test func theQuotaMessageSaysWhenAndHowLong() {
        let now = parseISOTimestamp("2026-11-28T18:37:00Z")!
        let error = RequestLedger.quotaError(until: now + 48925, now: now, zone: LocalZone("UTC"))
        #expect(error.exitCode == .unavailable)
        #expect(error.message.contains("expected back at 08:12 (in 13 h 35 min)"), "\(error.message)")
        let far = RequestLedger.quotaError(until: now + 3 * 86400, now: now, zone: LocalZone("UTC"))
        #expect(far.message.contains("expected back at 2026-12-01 18:37"), "\(far.message)")
        #expect(RequestLedger.durationText(40) == "40 s")
        #expect(RequestLedger.durationText(61) == "1 min")
        #expect(RequestLedger.durationText(90) == "2 min")
        #expect(RequestLedger.durationText(3600) == "1 h 0 min")
    }

    @Test func aClientIDNamesAFileOnlyWhenItIsPlain() {
        #expect(RequestLedger.fileSafe("0123456789abcdef0123456789abcdef") == "0123456789abcdef0123456789abcdef")
        #expect(RequestLedger.fileSafe("../../etc") == "default")
        #expect(RequestLedger.fileSafe("a/b") == "default")
        #expect(RequestLedger.fileSafe(nil) == "default")
        #expect(RequestLedger.fileSafe("") == "default")
    }
}

/// The ledger on disk: many writers at once, trims, damage.
@Suite(.tags(.medium)) struct RequestLedgerStorageTests {
    @Test func twentyWritersAtOnceLoseNoLineWhileItIsTrimmed() async throws {
        let scratch = try TemporaryDirectory()
        let directory = PrivateDirectory(scratch.url.appendingPathComponent("state").path)
        let log = AppendLog(directory: directory, name: "requests-x.jsonl")
        // Old lines a trim drops, while the writers append.
        for index in 0..<100 { try log.append("{\"old\":\(index)}") }
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<20 {
                group.addTask {
                    for index in 0..<50 { _ = try? log.append("{\"w\":\(writer),\"i\":\(index)}") }
                }
            }
            group.addTask {
                for _ in 0..<20 { _ = try? log.trim { !$0.contains("old") } }
            }
        }
        let lines = try log.lines().filter { !$0.contains("old") }
        #expect(lines.count == 1000)
        #expect(Set(lines).count == 1000)
    }

    @Test func aLedgerThatCannotBeTrustedIsSetAsideNotAFailure() throws {
        let scratch = try TemporaryDirectory()
        let directory = PrivateDirectory(scratch.url.appendingPathComponent("state").path)
        try directory.create()
        let ledger = RequestLedger(directory: directory, app: "x", tool: "test", clock: { 1000 })
        let target = scratch.url.appendingPathComponent("elsewhere").path
        _ = FileManager.default.createFile(atPath: target, contents: Data("keep\n".utf8))
        try FileManager.default.createSymbolicLink(
            atPath: directory.file("requests-x.jsonl"), withDestinationPath: target)
        ledger.record(.webAPI, method: "GET", status: 200)
        #expect(try ledger.entries().count == 1)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep\n", "the link's target is untouched")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names.contains { $0.hasPrefix("requests-x.jsonl.set-aside-") }, "\(names)")
        var info = stat()
        #expect(lstat(directory.file("requests-x.jsonl"), &info) == 0)
        #expect(info.st_mode & 0o077 == 0, "mode \(String(info.st_mode, radix: 8))")
    }

    @Test func linesOlderThanADayAreTrimmedAndNotCounted() throws {
        let scratch = try TemporaryDirectory()
        let directory = PrivateDirectory(scratch.url.appendingPathComponent("state").path)
        let now = 10_000_000.0
        let old = RequestLedger(directory: directory, app: "x", tool: "old", clock: { now - 100_000 })
        for _ in 0..<1000 { old.record(.webAPI, method: "GET", status: 200) }
        let ledger = RequestLedger(directory: directory, app: "x", tool: "new", clock: { now })
        #expect(try ledger.entries().isEmpty)
        ledger.record(.webAPI, method: "GET", status: 200)
        #expect(try ledger.entries().map(\.tool) == ["new"])
        let lines = try AppendLog(directory: directory, name: "requests-x.jsonl").lines()
        #expect(lines.count == 1, "the trim dropped the old lines")
    }
}

/// A spent quota stops every tool, and the ledger counts what the server saw.
@Suite(.tags(.medium)) struct QuotaPauseCommandTests {
    @Test func aSpentQuotaStopsEveryToolWithoutARequest() async throws {
        let library = try await Library()
        defer { library.fake.stop() }
        try await library.fault([("kind", "quota"), ("at", "2"), ("retry_after", "48925")])
        let first = try await library.tracks([generated(200)])
        #expect(first.status == 69)
        #expect(first.stderr.contains("quota for this app is used up"), "\(first.stderr)")
        #expect(first.stderr.contains("expected back at"), "\(first.stderr)")
        #expect(
            first.stderr.contains("(in 13 h 35 min)") || first.stderr.contains("(in 13 h 36 min)"), "\(first.stderr)")

        let usage = try await library.run("spotify-auth", ["usage", "--json"])
        #expect(usage.status == 0, "\(usage.stderr)")
        let record = try JSONValue.parse(usage.stdout)
        let until = try #require(record["quota_exceeded_until"]?.stringValue.flatMap(parseISOTimestamp))
        #expect(abs(until - Date().timeIntervalSince1970 - 48925) < 120)
        #expect(record["latest_429s"]?.arrayValue?.first?["reason"] == "QUOTA_EXCEEDED")

        _ = try await library.fake.call("POST", "/_fake/clear-faults")
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        let other = try await library.run("spotify-playlists", [])
        #expect(other.status == 69)
        #expect(other.stderr.contains("expected back at"), "\(other.stderr)")
        let nowPlaying = try await library.run("spotify-nowplaying", [])
        #expect(nowPlaying.status == 69)
        let sent = try await library.counters()["requests"]?.objectValue?.values.compactMap(\.intValue) ?? []
        #expect(sent.reduce(0, +) == 0, "no request reached the server")

        // What needs no Web API keeps working.
        let count = try await library.run("songcount", ["--target", "15m"], stdin: "{\"duration_ms\":200000}\n")
        #expect(count.status == 0, "\(count.stderr)")

        let cleared = try await library.run("spotify-auth", ["usage", "--clear-pause", "--json"])
        #expect(cleared.status == 0)
        #expect(try JSONValue.parse(cleared.stdout)["quota_exceeded_until"] == .null)
        #expect(try await library.run("spotify-playlists", []).status == 0)
    }

    @Test func theLedgerCountsWhatTheServerSaw() async throws {
        let library = try await Library(["--extra-playlists", "60"])
        defer { library.fake.stop() }
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        let listed = try await library.run("spotify-playlists", ["--owned"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let first20 = listed.stdoutLines.prefix(20).joined(separator: "\n") + "\n"
        let tracks = try await library.tracks(["--no-cache"], stdin: first20)
        #expect(tracks.status == 0, "\(tracks.stderr)")
        let counted = try await library.counters()["requests"]?.objectValue?.values.compactMap(\.intValue) ?? []
        let usage = try JSONValue.parse(try await library.run("spotify-auth", ["usage", "--json"]).stdout)
        #expect(usage["requests_24h"]?.intValue == counted.reduce(0, +), "\(usage)")
        #expect(usage["by_tool"]?["spotify-tracks"]?.intValue ?? 0 > 0)
        #expect(usage["by_tool"]?["spotify-playlists"]?.intValue ?? 0 > 0)
    }
}

/// A costly run says what it spent, on a terminal only.
@Suite(.tags(.medium)) struct CostlyRunNoteTests {
    static let stderrOnTerminal = Terminal(stdinIsTerminal: false, stdoutIsTerminal: false, stderrIsTerminal: true)

    @Test func aRunOfMoreThanAHundredRequestsSaysSoOnATerminal() async throws {
        let library = try await Library()
        defer { library.fake.stop() }
        let costly = try await library.run("spotify-tracks", [generated(6000)], terminal: Self.stderrOnTerminal)
        #expect(costly.status == 0, "\(costly.stderr)")
        let sent = try await library.counters()["requests"]?.objectValue?.values.compactMap(\.intValue) ?? []
        let total = sent.reduce(0, +)
        #expect(total > 100)
        // The last line on stderr (after the progress line's own clearing).
        #expect(
            costly.stderr.hasSuffix(
                "spotify-tracks: sent \(total) requests to Spotify; the app's ledger counts \(total) in the last 24 h "
                    + "(spotify-auth usage)\n"), "\(costly.stderr.suffix(200))")

        let piped = try await library.run("spotify-tracks", [generated(6000)])
        #expect(piped.status == 0)
        #expect(!piped.stderr.contains("requests to Spotify"), "not in a pipe or a log: \(piped.stderr)")
        let small = try await library.run("spotify-tracks", [generated(10)], terminal: Self.stderrOnTerminal)
        #expect(!small.stderr.contains("requests to Spotify"), "\(small.stderr)")
    }
}
