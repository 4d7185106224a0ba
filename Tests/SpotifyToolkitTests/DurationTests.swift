import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

@Suite(.tags(.small)) struct DurationTests {
    @Test(arguments: [
        ("0s", 0),
        ("90s", 90_000),
        ("45s", 45_000),
        ("15m", 900_000),
        ("1h", 3_600_000),
        ("1h30m", 5_400_000),
        ("1h2m3s", 3_723_000),
        ("30m15s", 1_815_000),
        ("1h15s", 3_615_000),
        ("12:30", 750_000),
        ("0:05", 5_000),
        ("125:00", 7_500_000),
        ("1:02:03", 3_723_000),
        ("0:59:59", 3_599_000),
    ])
    func acceptsEveryFormAcceptedBefore(text: String, expectedMs: Int) throws {
        #expect(try parseDuration(text) == expectedMs)
    }

    /// Issue 30, item 2: durations as people write them.
    @Test(
        arguments: [
            ("1h 30m", 5_400_000),
            ("1h  30m 15s", 5_415_000),
            ("90min", 5_400_000),
            ("90 min", nil),
            ("90mins", 5_400_000),
            ("2 hours", nil),
            ("2hours", 7_200_000),
            ("1hr 5min 30sec", 3_930_000),
            ("1.5h", 5_400_000),
            ("1.25m", 75_000),
            ("0.5s", 500),
            ("1H30M", 5_400_000),
            ("PT15M", 900_000),
            ("PT1H30M", 5_400_000),
            ("PT45S", 45_000),
            ("PT1.5H", 5_400_000),
            ("P1D", 86_400_000),
            ("P1DT2H", 93_600_000),
            ("pt15m", 900_000),
            ("15:00", 900_000),
            ("1:30:00", 5_400_000),
        ] as [(String, Int?)])
    func acceptsWhatPeopleWrite(text: String, expectedMs: Int?) throws {
        if let expectedMs {
            #expect(try parseDuration(text) == expectedMs)
        } else {
            // A space between a number and its unit splits it into two shell words anyway.
            #expect(throws: ToolError.self) { try parseDuration(text) }
        }
    }

    @Test(arguments: [" 15m", "15m ", "\t15m\n", "  15m  "])
    func trimsSurroundingWhitespace(text: String) throws {
        #expect(try parseDuration(text) == 900_000)
    }

    @Test(arguments: [
        "", "   ", "abc", "-5", "+5", "-5m", "15 m", "1 h30m", "1m1h", "1s1m", "1h1h", "1h 1h", "m", "h30m", "15x",
        "1h30", "1.5.5h", ".5h", "5.h", "1.0000000001h", "1,5h", "15mm", "1h30m-",
        "12:60", "1:60:00", "1:00:60", "1:02:03:04", ":30", "12:", "12:5", "1:2:03", "::", "1:-2", "1.5:00",
        "P", "PT", "P1DT", "PT1M1H", "P1M", "PT15", "PT15M ago", "P T15M", "PTM", "P1H",
        "١٢", "99999999999999999999999s", "999999999999h", "40000000000s", "10000000h", "PT99999999999999999999H",
        "P9999999999D", "9223372036854775807h", "92233720368547758.07h",
    ])
    func rejects(text: String) {
        #expect(throws: ToolError.self) { try parseDuration(text) }
    }

    /// Issue 39: a bare number is seconds everywhere (the brief's `songcount --target 900`), as
    /// `seek` takes it; one under a minute gets a note on how it was read and how to say minutes.
    @Test(
        arguments: [
            ("900", 900_000, nil),
            ("15", 15_000, "--target 15 is 15 seconds (a bare number is seconds); for 15 minutes write --target 15m"),
            (" 59 ", 59_000, "--target 59 is 59 seconds (a bare number is seconds); for 59 minutes write --target 59m"),
            ("60", 60_000, nil), ("0", 0, nil),
            (
                "1.5", 1500,
                "--target 1.5 is 1.5 seconds (a bare number is seconds); for 1.5 minutes write --target 1.5m"
            ),
        ] as [(String, Int, String?)])
    func aBareNumberIsSeconds(text: String, milliseconds: Int, note: String?) throws {
        #expect(try parseDuration(text) == milliseconds)
        let reading = try DurationReading(text)
        #expect(reading.note(option: "--target") == note)
        #expect(try DurationReading("15s").note(option: "--target") == nil, "a unit says what it means")
    }

    @Test func aBareNumberPastTheLimitIsRefused() {
        #expect(throws: ToolError.self) { try parseDuration("99999999999999999999999") }
        #expect(throws: ToolError.self) { try parseDuration("\(maximumDurationSeconds + 1)") }
    }

    @Test func aThousandYearsIsTheLimit() throws {
        let limitSeconds = 1000 * 365 * 24 * 3600
        #expect(try parseDuration("\(limitSeconds)s") == limitSeconds * 1000)
        #expect(try parseDuration("P365000D") == limitSeconds * 1000)
        #expect(try parseDuration("100000h") == 100_000 * 3_600_000)  // the benchmark's "fit everything" target
        #expect(throws: ToolError.self) { try parseDuration("\(limitSeconds + 1)s") }
        #expect(throws: ToolError.self) { try parseDuration("\(limitSeconds)s 1s") }
        #expect(throws: ToolError.self) { try parseDuration("P365000DT0.001S") }
    }

    @Test func errorIsAOneLineUsageErrorNamingInputAndForms() throws {
        let error = try #require(throws: ToolError.self) { try parseDuration("15 m") }
        #expect(error.exitCode == .usage)
        #expect(error.showsUsageHint)
        #expect(
            error.message
                == "invalid duration '15 m': use 900 (a bare number is seconds), 45s, 15m, 90min, 1.5h, '1h 30m', 1h30m, 15:00 (m:ss), 1:30:00 (h:mm:ss) or PT15M"
        )
        let multiline = try #require(throws: ToolError.self) { try parseDuration("1\n2") }
        #expect(!multiline.message.contains("\n"))
        #expect(multiline.message.contains("1\\n2"))
    }

    @Test func acceptedFormsListsEveryForm() {
        for form in ["45s", "15m", "90min", "1.5h", "1h 30m", "1h30m", "15:00", "1:30:00", "PT15M"] {
            #expect(acceptedDurationForms.contains(form))
            #expect(throws: Never.self) { try parseDuration(form) }
        }
    }

    @Test(arguments: [
        (0, "0:00"),
        (999, "0:00"),
        (5_000, "0:05"),
        (245_999, "4:05"),
        (900_000, "15:00"),
        (3_599_999, "59:59"),
        (3_600_000, "1:00:00"),
        (3_723_000, "1:02:03"),
        (36_000_000 + 61_000, "10:01:01"),
        (-5_000, "0:00"),
    ])
    func formatsClock(milliseconds: Int, expected: String) {
        #expect(formatClock(milliseconds: milliseconds) == expected)
    }
}
