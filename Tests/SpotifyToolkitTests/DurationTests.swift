import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

@Suite struct DurationTests {
    @Test(arguments: [
        ("900", 900_000),
        ("0", 0),
        ("90s", 90_000),
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
    func acceptsEveryForm(text: String, expectedMs: Int) throws {
        #expect(try parseDuration(text) == expectedMs)
    }

    @Test(arguments: [" 15m", "15m ", "\t15m\n", "  15m  "])
    func trimsSurroundingWhitespace(text: String) throws {
        #expect(try parseDuration(text) == 900_000)
    }

    @Test(arguments: [
        "", "   ", "abc", "-5", "+5", "1.5m", "15 m", "1 h30m", "1m1h", "1s1m", "1h1h", "m", "h30m", "15x", "1h30",
        "12:60", "1:60:00", "1:00:60", "1:02:03:04", ":30", "12:", "12:5", "1:2:03", "::", "1:-2",
        "١٢", "99999999999999999999999", "999999999999h", "40000000000", "10000000h",
    ])
    func rejects(text: String) {
        #expect(throws: ToolError.self) { try parseDuration(text) }
    }

    @Test func aThousandYearsIsTheLimit() throws {
        let limitSeconds = 1000 * 365 * 24 * 3600
        #expect(try parseDuration("\(limitSeconds)") == limitSeconds * 1000)
        #expect(try parseDuration("100000h") == 100_000 * 3_600_000)  // the benchmark's "fit everything" target
        #expect(throws: ToolError.self) { try parseDuration("\(limitSeconds + 1)") }
    }

    @Test func errorIsAOneLineUsageErrorNamingInputAndForms() throws {
        let error = try #require(throws: ToolError.self) { try parseDuration("15 m") }
        #expect(error.exitCode == .usage)
        #expect(error.showsUsageHint)
        #expect(
            error.message
                == "invalid duration '15 m': use seconds (900), 90s, 15m, 1h30m, 1h2m3s, 12:30 or 1:02:03"
        )
        let multiline = try #require(throws: ToolError.self) { try parseDuration("1\n2") }
        #expect(!multiline.message.contains("\n"))
        #expect(multiline.message.contains("1\\n2"))
    }

    @Test func acceptedFormsListsEveryForm() {
        for form in ["900", "90s", "15m", "1h30m", "1h2m3s", "12:30", "1:02:03"] {
            #expect(acceptedDurationForms.contains(form))
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
