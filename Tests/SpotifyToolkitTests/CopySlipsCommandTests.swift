import Foundation
import Testing

@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// The small slips a demanding user meets: a total
/// under the playlists' durations; `token --json` a record; a missing scope with
/// SPOTIFY_ACCESS_TOKEN says that token lacks it; a lone local file is named, not "no items";
/// songcount's chosen songs as a table on a terminal; routine names without quotes in a table.
@Suite(.tags(.medium)) struct CopySlipsCommandTests {
    static let table = ["SPOTIFY_TOOLKIT_FORCE_TTY": "1", "COLUMNS": "100"]

    /// A table line's cells, one space apart (the widths are the table's business).
    static func words(_ line: String?) -> String? {
        line.map { $0.split(separator: " ").joined(separator: " ") }
    }

    // MARK: spotify-playlists durations and their total

    @Test func theListingTakesDurationAndATableShowsTheirTotal() async throws {
        let library = try await Library()
        let human = try await library.run("spotify-playlists", ["--duration"], environment: Self.table)
        #expect(human.status == 0, "\(human.stderr)")
        let lines = human.stdoutLines
        #expect(lines.first?.contains("DURATION") == true, "\(human.stdout)")
        let morning = try #require(lines.first { $0.hasPrefix("Morning ") })
        #expect(morning.contains("1:06:00"), "\(morning)")
        // Six playlists; Today's Top Hits (Spotify's own, 404 to its items) has no duration.
        #expect(
            Self.words(lines.last) == "total: 6 playlists (1 without a duration) 10,319 645:07:01", "\(human.stdout)")
        #expect(lines.last?.hasSuffix(" ") == false)
        #expect(human.stderr.contains("37i9dQZF1DXcBWIGoYBM5M") && human.stderr.contains("duration_ms is null"))

        // Piped: the same records as without --duration, each with duration_ms, and no total.
        let plain = try records(try await library.run("spotify-playlists", []))
        let timed = try records(try await library.run("spotify-playlists", ["list", "--duration"]))
        #expect(timed.count == plain.count)
        for (without, with) in zip(plain, timed) {
            var stripped = try #require(with.objectValue)
            #expect(stripped.removeValue(forKey: "duration_ms") != nil)
            #expect(JSONValue.object(stripped) == without)
        }
        #expect(timed.first { $0["name"]?.stringValue == "Morning" }?["duration_ms"]?.intValue == 3_960_406)
        #expect(plain.allSatisfy { $0["duration_ms"] == nil }, "JSON output without --duration is unchanged")

        // get --duration: the same total row; without --duration, no total (nothing to add up).
        let get = try await library.run(
            "spotify-playlists", ["get", "--duration", "Morning", "Mixed Bag"], environment: Self.table)
        #expect(Self.words(get.stdoutLines.last) == "total: 2 playlists 126 10:59:03", "\(get.stdout)")
        let getPlain = try await library.run("spotify-playlists", ["get", "Morning"], environment: Self.table)
        #expect(!getPlain.stdout.contains("total:"), "\(getPlain.stdout)")
    }

    /// A total of 1,000 hours or more is wider than the duration column; it gets a
    /// line of its own instead of being cut.
    @Test func aTotalWiderThanItsColumnIsNeverCut() {
        let table = TextTable(SpotifyPlaylists.PlaylistOutput.columns(withDuration: true), totalWidth: 120)
        let hours = { (hours: Int) in hours * 3_600_000 }
        let fits = SpotifyPlaylists.PlaylistOutput.totalLine(
            table, what: "total: 2 playlists", items: 126, durationMs: hours(10))
        #expect(Self.words(fits) == "total: 2 playlists 126 10:00:00", "\(fits)")
        let wide = SpotifyPlaylists.PlaylistOutput.totalLine(
            table, what: "total: 150 playlists", items: 21_902, durationMs: hours(1259) + 56 * 60_000)
        #expect(wide == "total: 150 playlists: 21,902 items, 1259:56:00")
    }

    // MARK: spotify-auth token --json

    @Test func tokenJSONIsARecordWithTheExpiry() async throws {
        let fake = try InProcessFake()
        defer { fake.stop() }
        let tokens = try await fake.seedLogin(expiresIn: 3600)
        let bare = try await fake.run("spotify-auth", ["token"])
        #expect(bare.stdout == tokens.accessToken + "\n", "piped without --json: the token alone, for curl")
        let json = try await fake.run("spotify-auth", ["token", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let record = try #require(try records(json).first)
        #expect(record["type"] == "access_token")
        #expect(record["access_token"]?.stringValue == tokens.accessToken)
        #expect(record["token_type"] == "Bearer")
        #expect(record["expires_at"]?.stringValue?.hasSuffix("Z") == true)
        #expect((3500...3600).contains(record["expires_in"]?.intValue ?? -1), "\(record)")

        let environment = try await fake.run(
            "spotify-auth", ["token", "-j"], environment: ["SPOTIFY_ACCESS_TOKEN": "from-the-environment"])
        let given = try #require(try records(environment).first)
        #expect(given["access_token"] == "from-the-environment")
        #expect(given["expires_at"] == .null && given["source"] == "SPOTIFY_ACCESS_TOKEN")
    }

    // MARK: a missing scope with SPOTIFY_ACCESS_TOKEN

    @Test func aMissingScopeWithAnEnvironmentTokenSaysThatTokenLacksIt() async throws {
        let library = try await Library()
        try await library.fake.call("POST", "/_fake/playback", form: [("durations", "200,200")])
        let environment = ["SPOTIFY_ACCESS_TOKEN": library.tokens.accessToken]
        let like = try await library.fake.run("spotify-nowplaying", ["like"], environment: environment)
        #expect(like.status == 77)
        #expect(
            like.stderr
                == "spotify-nowplaying: liking songs needs the user-library-modify scope, which the token in SPOTIFY_ACCESS_TOKEN lacks; set a token that has it, or unset SPOTIFY_ACCESS_TOKEN to use your login (spotify-auth login --scope edit adds it)\n"
        )
        let pause = try await library.fake.run("spotify-nowplaying", ["pause"], environment: environment)
        #expect(pause.status == 77)
        #expect(pause.stderr.contains("which the token in SPOTIFY_ACCESS_TOKEN lacks"), "\(pause.stderr)")
        let recent = try await library.fake.run("spotify-nowplaying", ["recent"], environment: environment)
        #expect(recent.stderr.contains("which the token in SPOTIFY_ACCESS_TOKEN lacks"), "\(recent.stderr)")
        // The stored login keeps its hint: a login adds the scope.
        let stored = try await library.run("spotify-nowplaying", ["like"])
        #expect(stored.stderr.contains("add it with: spotify-auth login --scope edit"), "\(stored.stderr)")
    }

    // MARK: a lone local file

    @Test func aLoneLocalFileIsNamedNotCalledNoItems() async throws {
        let library = try await PlaylistWriteTests.editor()
        let local = #"{"type":"track","id":null,"uri":"spotify:local:Artist:Album:Song:200","is_local":true}"#
        let add = try await library.run("spotify-playlists", ["add", "Morning"], stdin: local + "\n")
        #expect(add.status == 1)
        #expect(
            add.stderr
                == "spotify-playlists: nothing to add: standard input held only 1 local file, which the Web API cannot add; nothing was changed\n"
        )
        let create = try await library.run("spotify-playlists", ["create", "Copy"], stdin: local + "\n")
        #expect(create.status == 1)
        #expect(create.stderr.contains("standard input held only 1 local file"), "\(create.stderr)")
        #expect(
            !create.stderr.contains("an empty pipe") && !create.stderr.contains("an empty file"), "\(create.stderr)")
        let remove = try await library.run("spotify-playlists", ["remove", "Morning"], stdin: local + "\n")
        #expect(remove.stderr.contains("nothing to remove: standard input held only 1 local file"), "\(remove.stderr)")
    }

    // MARK: songcount --select and --best-fit on a terminal

    static let songs = (1...4).map { index in
        #"{"type":"track","uri":"spotify:track:\#(String(repeating: "a", count: 21))\#(index)","name":"Song \#(index)","artists":[{"name":"Band"}],"duration_ms":\#(index * 60_000)}"#
    }

    @Test func chosenSongsAreATableOnATerminal() async throws {
        let input = Self.songs.joined(separator: "\n") + "\n"
        let select = try await InProcess.run(
            "songcount", ["--target", "3m", "--select"], stdin: input, environment: Self.table)
        #expect(select.status == 0, "\(select.stderr)")
        let lines = select.stdoutLines
        #expect(lines.first?.hasPrefix("  #  NAME") == true, "\(select.stdout)")
        #expect(lines.count == 4 && lines[1].hasPrefix("  1  Song 1") && lines[2].hasPrefix("  2  Song 2"))
        #expect(lines.last == "2 items, 3:00", "\(select.stdout)")
        #expect(!select.stdout.contains("{"))

        let best = try await InProcess.run(
            "songcount", ["--target", "5m", "--best-fit"], stdin: input, environment: Self.table)
        #expect(best.status == 0, "\(best.stderr)")
        #expect(best.stdoutLines.last == "2 items, 5:00", "\(best.stdout)")

        // --json (or a pipe) passes the records on as they came.
        for arguments in [["--select", "--json"], ["--best-fit", "--json"]] {
            let raw = try await InProcess.run(
                "songcount", ["--target", "3m"] + arguments, stdin: input, environment: Self.table)
            #expect(raw.status == 0, "\(raw.stderr)")
            #expect(raw.stdoutLines.allSatisfy { Self.songs.contains($0) } && !raw.stdout.isEmpty, "\(raw.stdout)")
        }
        let piped = try await InProcess.run("songcount", ["--target", "3m", "--select"], stdin: input)
        #expect(piped.stdout == Self.songs[0] + "\n" + Self.songs[1] + "\n")
    }

    // MARK: routine-link's table

    @Test func theRoutineTableShowsNamesWithoutQuotes() async throws {
        let library = try await Library()
        #expect(try await library.run("routine-link", ["add", "workout", "--duration", "30m"]).status == 0)
        let link = #"{"type":"playlist","id":"3cEYpjA9oz9GiPac4AsH4n","name":"workout 30:00"}"#
        #expect(try await library.run("routine-link", ["link", "workout"], stdin: link + "\n").status == 0)
        let table = try await library.run("routine-link", ["list"], environment: Self.table)
        #expect(table.stdoutLines.count == 2, "\(table.stdout)")
        #expect(table.stdoutLines[1].contains("  workout 30:00  "), "\(table.stdout)")
        #expect(!table.stdout.contains("'"), "\(table.stdout)")
    }
}
