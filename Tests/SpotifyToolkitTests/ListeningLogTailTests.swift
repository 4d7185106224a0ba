import Foundation
import TestSupport
import Testing

@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// The watch's adds to the listening log read only what the log gained since its last add: lines
/// other writers appended between two adds, a log replaced or cut short, damage someone appended,
/// and the core's read from a position (`AppendLog.lines(after:)`).
@Suite(.tags(.medium)) struct ListeningLogTailTests {
    static func record(_ uri: String, at time: String, from origin: String = "watch") -> JSONObject {
        var record = ListeningHistory.identity(uri: uri, name: "Song " + uri.suffix(1))
        record["artists"] = [["id": .null, "name": "Artist"]]
        record["played_at"] = .string(time)
        record["logged_from"] = .string(origin)
        return record
    }

    static func line(_ uri: String, at time: String, from origin: String = "watch") -> String {
        JSONValue.object(record(uri, at: time, from: origin)).serialized()
    }

    /// A listening log in a scratch data directory.
    static func log(_ scratch: TemporaryDirectory) -> ListeningLog {
        ListeningLog(environment: ToolEnvironment(["XDG_DATA_HOME": scratch.path + "/data", "HOME": scratch.path]))
    }

    static func text(_ log: ListeningLog) -> String {
        (try? String(contentsOfFile: log.path, encoding: .utf8)) ?? ""
    }

    /// The uri of each line of the log, "?" for a line that is not a record.
    static func uris(_ log: ListeningLog) -> [String] {
        text(log).split(separator: "\n").map {
            (try? JSONValue.parse(String($0)))?["uri"]?.stringValue ?? "?"
        }
    }

    /// Writes `text` over the log in place (the same file, its inode kept).
    static func rewriteInPlace(_ log: ListeningLog, _ text: String) throws {
        let handle = try #require(FileHandle(forWritingAtPath: log.path))
        defer { try? handle.close() }
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(text.utf8))
    }

    /// Appends raw bytes, as another program might.
    static func appendRaw(_ log: ListeningLog, _ text: String) throws {
        let handle = try #require(FileHandle(forWritingAtPath: log.path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
    }

    @Test func playsAnotherWriterAppendedBetweenTwoAddsAreKnownAndNoneIsLostOrAddedTwice() throws {
        let scratch = try TemporaryDirectory()
        let log = Self.log(scratch)
        var watch = ListeningLog.Known()
        let a = Self.record("spotify:track:a", at: "2024-01-01T10:00:00Z")
        #expect(try log.add([[a]], skippingDamaged: true, known: &watch) == (1, 0))
        // Its own line, read back at the next add.
        #expect(try log.add([[a]], skippingDamaged: true, known: &watch) == (0, 1))

        // A sync in another process adds b and c (whole reads, as it always did).
        let synced = [
            Self.record("spotify:track:b", at: "2024-01-01T10:03:00Z", from: "recently_played"),
            Self.record("spotify:track:c", at: "2024-01-01T10:06:00Z", from: "recently_played"),
        ]
        #expect(try log.add([synced]) == (2, 0))
        // The watch's c ended a few seconds from the sync's: one play. A read that missed what the
        // sync appended would add it a second time.
        let c = Self.record("spotify:track:c", at: "2024-01-01T10:06:04Z")
        #expect(try log.add([[c]], skippingDamaged: true, known: &watch) == (0, 1))
        let d = Self.record("spotify:track:d", at: "2024-01-01T10:09:00Z")
        #expect(try log.add([[d]], skippingDamaged: true, known: &watch) == (1, 0))

        // Another watch, started now, adds e; the first knows it at its next add.
        var other = ListeningLog.Known()
        let e = Self.record("spotify:track:e", at: "2024-01-01T10:12:00Z")
        #expect(try log.add([[e]], skippingDamaged: true, known: &other) == (1, 0))
        #expect(try log.add([[e]], skippingDamaged: true, known: &watch) == (0, 1))

        #expect(Self.uris(log) == ["a", "b", "c", "d", "e"].map { "spotify:track:" + $0 })
        // What the watch knows is what a whole read finds, and it has read to the log's end.
        let whole = try log.entries().entries
        #expect(watch.lines == whole.count)
        #expect(watch.position?.offset == Self.text(log).utf8.count)
        for entry in whole {
            #expect(watch.plays.contains(try #require(ListeningHistory.Play(entry.fields))))
        }
    }

    @Test func aLogReplacedCutShortOrRewrittenIsReadWholeAgain() throws {
        let scratch = try TemporaryDirectory()
        let log = Self.log(scratch)
        var watch = ListeningLog.Known()
        for (uri, time) in [("a", "10:00"), ("b", "10:03"), ("c", "10:06")] {
            let record = Self.record("spotify:track:" + uri, at: "2024-01-01T\(time):00Z")
            #expect(try log.add([[record]], skippingDamaged: true, known: &watch) == (1, 0))
        }

        // Replaced by a shorter file (another inode), without c: c is added again, x is known.
        let x = Self.line("spotify:track:x", at: "2024-01-01T09:00:00Z")
        try scratch.file("replacement", contents: x + "\n")
        #expect(rename(scratch.path + "/replacement", log.path) == 0)
        let c = Self.record("spotify:track:c", at: "2024-01-01T10:06:00Z")
        #expect(try log.add([[c]], skippingDamaged: true, known: &watch) == (1, 0))
        let laterX = Self.record("spotify:track:x", at: "2024-01-01T09:00:05Z")
        #expect(try log.add([[laterX]], skippingDamaged: true, known: &watch) == (0, 1))
        #expect(Self.uris(log) == ["spotify:track:x", "spotify:track:c"])

        // Cut short in place (the same inode): what it held before is not known any more.
        try Self.rewriteInPlace(log, Self.line("spotify:track:y", at: "2024-01-01T08:00:00Z") + "\n")
        #expect(try log.add([[c]], skippingDamaged: true, known: &watch) == (1, 0))
        #expect(Self.uris(log) == ["spotify:track:y", "spotify:track:c"])

        // Rewritten in place, longer than before, with other lines (f before the old end, which
        // the watch read to y's end): reading on from the old offset would miss f and add it twice.
        let y = try #require(Self.text(log).split(separator: "\n").first)
        #expect(watch.position?.offset == y.utf8.count + 1)
        let rewritten = [
            Self.line("spotify:track:f", at: "2024-01-01T07:06:00Z"),
            Self.line("spotify:track:z", at: "2024-01-01T07:00:00Z"),
            Self.line("spotify:track:z", at: "2024-01-01T07:03:00Z"),
            Self.line("spotify:track:g", at: "2024-01-01T07:09:00Z"),
        ]
        try Self.rewriteInPlace(log, rewritten.joined(separator: "\n") + "\n")
        let f = Self.record("spotify:track:f", at: "2024-01-01T07:06:02Z")
        #expect(try log.add([[f]], skippingDamaged: true, known: &watch) == (0, 1))
        #expect(watch.lines == 4)

        // Removed: nothing is known; the next add begins a new log.
        #expect(unlink(log.path) == 0)
        #expect(try log.add([[f]], skippingDamaged: true, known: &watch) == (1, 0))
        #expect(Self.uris(log) == ["spotify:track:f"])
    }

    @Test func aDamagedLineSomeoneAppendedIsSkippedByTheWatchAndStopsASync() throws {
        let scratch = try TemporaryDirectory()
        let log = Self.log(scratch)
        var watch = ListeningLog.Known()
        let a = Self.record("spotify:track:a", at: "2024-01-01T10:00:00Z")
        #expect(try log.add([[a]], skippingDamaged: true, known: &watch) == (1, 0))
        try Self.appendRaw(log, "not a record\n" + Self.line("spotify:track:b", at: "2024-01-01T10:03:00Z") + "\n")

        // The damaged line is skipped; b after it is read and known.
        let b = Self.record("spotify:track:b", at: "2024-01-01T10:03:03Z")
        #expect(try log.add([[b]], skippingDamaged: true, known: &watch) == (0, 1))
        let c = Self.record("spotify:track:c", at: "2024-01-01T10:06:00Z")
        #expect(try log.add([[c]], skippingDamaged: true, known: &watch) == (1, 0))
        #expect(Self.uris(log) == ["spotify:track:a", "?", "spotify:track:b", "spotify:track:c"])
        #expect(watch.lines == 3)  // c, its own, is read back at the next add

        // A sync still stops at it, naming its line, and writes nothing; a damaged line appended
        // after the watch's position is named by its number in the whole log.
        let before = Self.text(log)
        #expect {
            try log.add([[Self.record("spotify:track:d", at: "2024-01-01T10:09:00Z")]])
        } throws: { error in
            (error as? ToolError)?.exitCode == .dataError
                && (error as? ToolError)?.message.contains("\(log.path): line 2: not a played record") == true
        }
        try Self.appendRaw(log, "{\"type\":\"played\"}\n")
        #expect {
            try log.add([[Self.record("spotify:track:d", at: "2024-01-01T10:09:00Z")]], known: &watch)
        } throws: { error in
            (error as? ToolError)?.message.contains("\(log.path): line 5: not a played record") == true
        }
        #expect(Self.text(log) == before + "{\"type\":\"played\"}\n")
        // What threw changed nothing the watch knew: it reads the damaged line again, and skips it.
        #expect(watch.lines == 3)
        let d = Self.record("spotify:track:d", at: "2024-01-01T10:09:00Z")
        #expect(try log.add([[d]], skippingDamaged: true, known: &watch) == (1, 0))
        #expect(watch.lines == 5)  // d itself is read back at the next add
    }

    @Test func aLineLeftWithoutItsNewlineIsKnownAndNotJoinedToTheNextPlay() throws {
        let scratch = try TemporaryDirectory()
        let log = Self.log(scratch)
        var watch = ListeningLog.Known()
        let a = Self.record("spotify:track:a", at: "2024-01-01T10:00:00Z")
        #expect(try log.add([[a]], skippingDamaged: true, known: &watch) == (1, 0))
        try Self.appendRaw(log, Self.line("spotify:track:b", at: "2024-01-01T10:03:00Z"))

        let b = Self.record("spotify:track:b", at: "2024-01-01T10:03:01Z")
        #expect(try log.add([[b]], skippingDamaged: true, known: &watch) == (0, 1))
        #expect(watch.lines == 1)
        let c = Self.record("spotify:track:c", at: "2024-01-01T10:06:00Z")
        #expect(try log.add([[c]], skippingDamaged: true, known: &watch) == (1, 0))
        #expect(Self.uris(log) == ["spotify:track:a", "spotify:track:b", "spotify:track:c"])
        #expect(try log.add([[b]], skippingDamaged: true, known: &watch) == (0, 1))
        #expect(watch.lines == 3)
    }

    @Test func theWatchKeepsOnlyPlaysItCouldMatchAndStillKnowsThose() throws {
        let scratch = try TemporaryDirectory()
        let log = Self.log(scratch)
        let old = (0..<50).map {
            Self.record("spotify:track:o\($0 % 5)", at: isoTimestamp(1_000_000 + Double($0) * 180))
        }
        let recent = Self.record("spotify:track:r", at: "2024-01-01T09:59:00Z")
        #expect(try log.add([old + [recent]]) == (51, 0))
        var watch = ListeningLog.Known()
        let now = try #require(parseISOTimestamp("2024-01-01T10:00:00Z"))
        watch.keepingFrom = now - WatchLog.keptBeforeStart
        let a = Self.record("spotify:track:a", at: "2024-01-01T10:03:00Z")
        #expect(try log.add([[a]], skippingDamaged: true, known: &watch) == (1, 0))
        #expect(watch.lines == 51)
        #expect(watch.plays.byKey.keys.allSatisfy { $0.contains(":r") || $0.contains("song r") })
        let sameRecent = Self.record("spotify:track:r", at: "2024-01-01T09:59:10Z")
        #expect(try log.add([[sameRecent]], skippingDamaged: true, known: &watch) == (0, 1))
        #expect(try log.add([[a]], skippingDamaged: true, known: &watch) == (0, 1))
    }

    // MARK: The core's read from a position

    @Test func aReadFromAPositionHasOnlyWhatWasAppendedAndLeavesAPartialLine() throws {
        let scratch = try TemporaryDirectory()
        let log = AppendLog(directory: PrivateDirectory(scratch.path + "/state"), name: "log.jsonl")
        let none = try log.lines(after: nil)
        #expect(none.lines.isEmpty && none.position == nil && !none.restarted)

        try log.append("{\"n\":1}")
        try log.append("{\"n\":2}")
        let first = try log.lines(after: nil)
        #expect(first.lines == ["{\"n\":1}", "{\"n\":2}"])
        #expect(!first.restarted && first.unterminated == nil)
        #expect(first.position?.offset == 16)

        try log.append("{\"n\":3}")
        let second = try log.lines(after: first.position)
        #expect(second.lines == ["{\"n\":3}"])
        #expect(!second.restarted)
        let unchanged = try log.lines(after: second.position)
        #expect(unchanged.lines.isEmpty && !unchanged.restarted && unchanged.position == second.position)

        // Half a line: not consumed, read whole once its newline is there.
        let handle = try #require(FileHandle(forWritingAtPath: log.path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("{\"n\":".utf8))
        let partial = try log.lines(after: second.position)
        #expect(partial.lines.isEmpty && partial.unterminated == "{\"n\":")
        #expect(partial.position?.offset == second.position?.offset)
        try handle.write(contentsOf: Data("4}\n".utf8))
        try handle.close()
        let completed = try log.lines(after: partial.position)
        #expect(completed.lines == ["{\"n\":4}"] && completed.unterminated == nil && !completed.restarted)

        // Another file at the path, longer than the position: read whole.
        try scratch.file("other", contents: (1...9).map { "{\"m\":\($0)}" }.joined(separator: "\n") + "\n")
        #expect(rename(scratch.path + "/other", log.path) == 0)
        let replaced = try log.lines(after: completed.position)
        #expect(replaced.restarted && replaced.lines.count == 9 && replaced.lines.first == "{\"m\":1}")
    }

    @Test func aReadFromAPositionFollowsNoLink() throws {
        let scratch = try TemporaryDirectory()
        let directory = PrivateDirectory(scratch.path + "/state")
        try directory.create()
        let target = try scratch.file("elsewhere", contents: "{\"secret\":1}\n")
        let log = AppendLog(directory: directory, name: "log.jsonl")
        #expect(symlink(target, log.path) == 0)
        let read = try? log.lines(after: nil)
        #expect(read?.lines.isEmpty ?? true)
        #expect(try scratch.read("elsewhere") == "{\"secret\":1}\n")
    }
}

/// Not a test of speed (nothing is asserted): the CPU of the watch's adds to a long log, for
/// Benchmarks/listening-log-watch.sh, which sets BENCH_LISTENING_LOG. Skipped otherwise.
@Suite(.tags(.medium)) struct ListeningLogTailBenchmark {
    static let enabled = ProcessInfo.processInfo.environment["BENCH_LISTENING_LOG"] != nil

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        return user + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// The process's resident memory in MB (Linux), nil elsewhere.
    static func residentMB() -> Double? {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
            let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
        else { return nil }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1e6
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    @Test(.enabled(if: enabled)) func cpuOfAddsToALongLog() throws {
        let environment = ProcessInfo.processInfo.environment
        let size = Int(environment["BENCH_LINES"] ?? "") ?? 100_000
        let adds = Int(environment["BENCH_ADDS"] ?? "") ?? 100
        let wholeAdds = Int(environment["BENCH_WHOLE_ADDS"] ?? "") ?? 5
        let scratch = try TemporaryDirectory()
        let log = ListeningLogTailTests.log(scratch)
        try log.log.directory.create()
        // Plays three minutes apart over 2,000 tracks, as years of listening look.
        let start = 1_600_000_000.0
        var text = ""
        for index in 0..<size {
            let time = isoTimestamp(start + Double(index) * 180)
            text += ListeningLogTailTests.line("spotify:track:t\(index % 2000)", at: time) + "\n"
        }
        try text.write(toFile: log.path, atomically: false, encoding: .utf8)
        var next = size
        func play() -> JSONObject {
            next += 1
            return ListeningLogTailTests.record("spotify:track:n\(next)", at: isoTimestamp(start + Double(next) * 180))
        }

        // Before: each add reads the whole log (what every add did, and what sync and import do).
        var whole: [Double] = []
        for _ in 0..<wholeAdds {
            let before = Self.cpuSeconds()
            _ = try log.add([[play()]], skippingDamaged: true)
            whole.append(Self.cpuSeconds() - before)
        }
        // After: the watch reads the log once, then what each add appended.
        let residentBefore = Self.residentMB()
        var known = ListeningLog.Known()
        // As the watch keeps it: the plays of the day before it began (BENCH_KEEP_ALL: every play).
        if environment["BENCH_KEEP_ALL"] == nil {
            known.keepingFrom = start + Double(next) * 180 - WatchLog.keptBeforeStart
        }
        var before = Self.cpuSeconds()
        _ = try log.add([[play()]], skippingDamaged: true, known: &known)
        let first = Self.cpuSeconds() - before
        var incremental: [Double] = []
        before = Self.cpuSeconds()
        let all = before
        for _ in 0..<adds {
            _ = try log.add([[play()]], skippingDamaged: true, known: &known)
            let now = Self.cpuSeconds()
            incremental.append(now - before)
            before = now
        }
        let total = Self.cpuSeconds() - all
        // With whole-log adds first, freed memory the index reuses hides part of it (BENCH_WHOLE_ADDS=0).
        var kept = "unknown"
        if let residentBefore, let after = Self.residentMB() {
            kept = String(format: "%+.0f MB", after - residentBefore)
        }
        let ms = { (seconds: Double) in String(format: "%.2f ms", seconds * 1000) }
        print(
            """
            listening log of \(size) lines, CPU per add (user+sys):
              whole read each add:  median \(ms(Self.median(whole))) over \(wholeAdds) adds \
            (\(String(format: "%.1f s", Self.median(whole) * Double(adds))) for \(adds))
              watch, first add:     \(ms(first)) (reads the log whole once)
              watch, later adds:    median \(ms(Self.median(incremental))), \(adds) adds in \(ms(total))
              resident memory after the watch's adds (its index of the log kept): \(kept)
              ratio (median whole / median incremental): \
            \(wholeAdds == 0 ? "-" : String(format: "%.0f", Self.median(whole) / max(Self.median(incremental), 1e-6)))x
            """)
    }
}
