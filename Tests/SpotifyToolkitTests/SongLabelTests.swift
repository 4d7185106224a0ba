import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

@Suite(.tags(.small)) struct SongLabelTests {
    @Test(arguments: [
        (0.0, "less than 1 song"),
        (0.3, "less than 1 song"),
        (0.49, "less than 1 song"),
        (0.5, "0.5 songs"),
        (0.74, "0.5 songs"),
        (0.75, "1 song"),
        (1.0, "1 song"),
        (1.2, "1 song"),
        (1.25, "1.5 songs"),
        (4.0, "4 songs"),
        (4.2, "4 songs"),
        (4.25, "4.5 songs"),
        (4.4, "4.5 songs"),
        (4.5, "4.5 songs"),
        (4.6, "4.5 songs"),
        (4.75, "5 songs"),
        (12.0, "12 songs"),
        (-1.0, "less than 1 song"),
        (Double.nan, "less than 1 song"),
        (Double.infinity, "less than 1 song"),
        (-Double.infinity, "less than 1 song"),
    ])
    func labels(songs: Double, expected: String) {
        #expect(songLabel(songs) == expected)
    }

    @Test func hugeCountsDoNotTrap() {
        #expect(songLabel(1e300).hasSuffix(" songs"))
    }

    @Test(arguments: [
        (4.5, 4.5),
        (1.0 / 3.0, 0.33),
        (2.0 / 3.0, 0.67),
        (4.499, 4.5),
        (0.0, 0.0),
        (Double.nan, 0.0),
        (Double.infinity, 0.0),
    ])
    func roundsToTwoDecimals(songs: Double, expected: Double) {
        #expect(roundedSongs(songs) == expected)
    }
}

@Suite(.tags(.small)) struct RecordedSongsTests {
    @Test(arguments: [0.4951, 0.499999, 1.2499, 1.24999999, 4.7499, 0.2, 3.0, 2.0 / 3.0, 0.5, 1.25, 12.7499999])
    func theNumberReadsLikeTheLabel(songs: Double) {
        #expect(songLabel(roundedSongs(songs)) == songLabel(songs), "\(songs) → \(roundedSongs(songs))")
    }

    @Test func twoDecimalsWhenTheyAgree() {
        #expect(roundedSongs(0.4951) == 0.49)
        #expect(roundedSongs(1.2349) == 1.23)
        #expect(roundedSongs(0.666) == 0.67)
    }

    @Test func pluralNouns() {
        #expect(plural(1, "track") == "1 track")
        #expect(plural(0, "track") == "0 tracks")
        #expect(plural(2, "record") == "2 records")
    }
}
