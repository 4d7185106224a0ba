import Foundation
import Testing

@testable import SpotifyClient
@testable import ToolkitCore

// Issue 26, item 4: the shipped targets import FoundationEssentials on Linux, so what they used
// from full Foundation (ICU's formatters and folding, Process, Thread, NSString) is the toolkit's
// own. Where this test target links full Foundation, it serves as the oracle.

/// Timestamps written and read without `ISO8601DateFormatter`.
@Suite(.tags(.small)) struct ISOTimestampTests {
    /// FoundationEssentials' `Date.ISO8601FormatStyle` truncates: about half of all exact
    /// milliseconds printed 1 ms low (…00.123 as …00.122).
    @Test func everyExactMillisecondPrintsAsItself() {
        for k in stride(from: 0, to: 100_000, by: 7) {
            let text = isoTimestamp(1_795_000_000 + Double(k) / 1000)
            #expect(text.hasSuffix("." + padded(Int64(k % 1000), 3) + "Z"), "\(k): \(text)")
        }
        for text in ["2026-11-22T10:00:00.123Z", "2026-11-22T10:00:00.001Z", "2026-11-22T23:59:59.999Z"] {
            #expect(parseISOTimestamp(text).map(isoTimestamp) == text)
        }
    }

    @Test func writtenAsFoundationWroteThem() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        let plain = ISO8601DateFormatter()
        var generator = SplitMix64(seed: 26)
        for _ in 0..<5_000 {
            // Exact milliseconds from 1971 to 2100.
            let milliseconds = 31_536_000_000 + Int64(generator.next() % 4_039_000_000_000)
            let seconds = Double(milliseconds) / 1000
            let date = Date(timeIntervalSince1970: seconds)
            #expect(isoTimestamp(seconds) == formatter.string(from: date))
            #expect(isoSecondsTimestamp(seconds) == plain.string(from: date))
        }
    }

    @Test func edges() {
        #expect(isoTimestamp(0) == "1970-01-01T00:00:00.000Z")
        #expect(isoTimestamp(0.9996) == "1970-01-01T00:00:01.000Z", "rounded, into the next second")
        #expect(isoTimestamp(-0.25) == "1969-12-31T23:59:59.750Z")
        #expect(isoTimestamp(951_782_400) == "2000-02-29T00:00:00.000Z")
        #expect(isoTimestamp(253_402_300_799) == "9999-12-31T23:59:59.000Z")
        #expect(isoTimestamp(.nan) == "1970-01-01T00:00:00.000Z")
        #expect(isoSecondsTimestamp(1_795_341_600.999) == "2026-11-22T10:00:00Z", "rounded down")
        #expect(isoSecondsTimestamp(-62_135_596_800) == "0001-01-01T00:00:00Z")
    }

    @Test func readAsFoundationReadThem() throws {
        let base = 1_795_341_600.0  // 2026-11-22T10:00:00Z
        let accepted: [(String, Double)] = [
            ("2026-11-22T10:00:00Z", base), ("2026-11-22T10:00:00.123Z", base + 0.123),
            ("2026-11-22T10:00:00.1Z", base + 0.1), ("2026-11-22T10:00:00.123456Z", base + 0.123),
            ("2026-11-22T10:00:00+01:00", base - 3600), ("2026-11-22T10:00:00+0100", base - 3600),
            ("2026-11-22T10:00:00+01", base - 3600), ("2026-11-22T10:00:00-05:30", base + 19_800),
            ("2026-11-22T10:00:00.123+01:00", base - 3600 + 0.123), ("2026-11-22T10:00:00GMT", base),
            ("2026-11-22T10:00:00UTC", base), (" 2026-11-22T10:00:00Z ", base),
            ("2026-02-30T10:00:00Z", 1_772_445_600), ("2026-11-22T24:00:00Z", 1_795_392_000),
            ("1969-12-31T23:59:59.999Z", -0.001), ("0001-01-01T00:00:00Z", -62_135_596_800),
        ]
        for (text, seconds) in accepted {
            let parsed = try #require(parseISOTimestamp(text), "\(text)")
            #expect(abs(parsed - seconds) < 1e-6, "\(text): \(parsed)")
        }
        for text in [
            "2026-11-22t10:00:00z", "2026-11-22 10:00:00Z", "2026-11-22T10:00Z", "2026-11-22T10:00:00", "2026-11-22",
            "2026-13-01T10:00:00Z", "2026-11-22T10:60:00Z", "2026-11-22T10:00:60Z", "2026-11-22T10:00:00.Z",
            "2026-11-22T10:00:00,5Z", "", "soon",
        ] {
            #expect(parseISOTimestamp(text) == nil, "\(text)")
        }
    }
}

/// Accent, width and case folding for track matching, without Foundation's `folding`.
@Suite(.tags(.small)) struct MatchFoldingTests {
    @Test func accentsWidthsAndLigatures() {
        #expect(MatchFolding.fold("Beyoncé") == "beyonce")
        #expect(MatchFolding.fold("Déjà Vu") == "deja vu")
        #expect(MatchFolding.fold("Beyonce\u{301}") == "beyonce", "decomposed: e + combining acute")
        #expect(MatchFolding.fold("ＢＥＹＯＮＣＥ １２３") == "beyonce 123", "full-width forms")
        #expect(MatchFolding.fold("ｶﾀｶﾅ") == "カタカナ", "half-width katakana")
        #expect(MatchFolding.fold("Straße ﬁnal") == "strasse final")
        #expect(MatchFolding.fold("Ἀθῆναι Ёлка Йога") == "αθηναι елка иога")
        #expect(MatchFolding.fold("Sigur Rós Ågætis byrjun") == "sigur ros agætis byrjun")
        #expect(MatchFolding.fold("Øystein Łódź") == "øystein łodz", "no decomposition, no fold, as before")
        #expect(MatchFolding.fold("がか\u{3099}") == "がか\u{3099}", "kana keep their voicing mark")
    }

    /// Every scalar folds exactly as Foundation folds it, and so does every letter with an accent
    /// written as a combining mark.
    @Test func foldsAsFoundationFolds() {
        func foundation(_ text: String) -> [UInt32] {
            text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
                .lowercased().unicodeScalars.map(\.value)
        }
        var differing: [String] = []
        for value in UInt32(0)...0x2FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = String(Character(scalar))
            if MatchFolding.fold(text).unicodeScalars.map(\.value) != foundation(text) {
                differing.append(String(value, radix: 16))
            }
        }
        for base in "aeiouycnszAEIOUYCNSZ\u{3B1}\u{430}".unicodeScalars {
            for mark in UInt32(0x300)...0x36F {
                var text = String(base)
                text.unicodeScalars.append(Unicode.Scalar(mark)!)
                if MatchFolding.fold(text).unicodeScalars.map(\.value) != foundation(text) {
                    differing.append(String(base.value, radix: 16) + "+" + String(mark, radix: 16))
                }
            }
        }
        #expect(differing.isEmpty, "\(differing.prefix(20))")
    }

    @Test func matchingIgnoresAccentsAndWidth() throws {
        func track(_ name: String, _ artist: String) -> JSONValue {
            ["name": .string(name), "artists": .array([["name": .string(artist)]]), "duration_ms": .int(200_000)]
        }
        let wide = TrackMatch.score(try SearchQuery.parse("ＢＥＹＯＮＣＥ - ＨＡＬＯ"), track("Halo", "Beyoncé"))
        #expect(wide.value == 1 && wide.word == "exact")
        let decomposed = TrackMatch.score(
            try SearchQuery.parse("Sigur Ro\u{301}s - Hoppi\u{301}polla"), track("Hoppípolla", "Sigur Rós"))
        #expect(decomposed.value == 1 && decomposed.word == "exact")
    }
}

/// Processes without Foundation's `Process`: posix_spawn, pipes and a writer thread.
@Suite(.tags(.large)) struct ChildProcessTests {
    @Test func aFilterSeesItsInputAndEnvironment() throws {
        let run = try FilterProcess.run(
            "/bin/sh", arguments: ["-c", "tr a-z A-Z; printf %s \"$ONLY\""], input: Data("abc\n".utf8),
            environment: ["ONLY": "this", "PATH": "/usr/bin:/bin"], stderr: 2)
        #expect(run.status == 0 && !run.signaled)
        #expect(String(decoding: run.output, as: UTF8.self) == "ABC\nthis")
    }

    @Test func exitStatusSignalsAndAnEarlyEnd() throws {
        let failed = try FilterProcess.run(
            "/bin/sh", arguments: ["-c", "exit 3"], input: Data(), environment: [:], stderr: 2)
        #expect(failed.status == 3 && !failed.signaled && failed.statusDescription == "exited with status 3")
        let killed = try FilterProcess.run(
            "/bin/sh", arguments: ["-c", "kill -9 $$"], input: Data(), environment: [:], stderr: 2)
        #expect(killed.signaled && killed.status == 9 && killed.statusDescription == "was killed by signal 9")
        // A filter that stops reading at once: 8 MiB of input are dropped, not a hang or a SIGPIPE.
        let early = try FilterProcess.run(
            "/bin/sh", arguments: ["-c", "head -c 2"], input: Data(repeating: 0x61, count: 8 << 20), environment: [:],
            stderr: 2)
        #expect(early.status == 0 && early.output == Data("aa".utf8))
    }

    @Test func aMissingProgramIsAnError() {
        #expect {
            _ = try FilterProcess.run("/nonexistent/jq", arguments: [], input: Data(), environment: [:], stderr: 2)
        } throws: { error in
            let error = error as? ToolError
            return error?.exitCode == .noInput && error?.message.hasPrefix("cannot run /nonexistent/jq: ") == true
        }
    }

    /// As `NSString.deletingLastPathComponent` answers (swift-corelibs-foundation 6.3.1).
    @Test func parentPathIsNSStringsDeletingLastPathComponent() {
        let expected = [
            "/a/b/c": "/a/b", "/a/b/": "/a", "/a": "/", "/": "/", "a": "", "a/b": "a", "a//b": "a", "//a": "/",
            "/a//": "/", "./x": ".", "../x/y/": "../x",
        ]
        for (path, parent) in expected {
            #expect(parentPath(path) == parent, "\(path)")
        }
        #expect(parentPath("") == "")
    }
}
