import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore

/// Every recipe in the README runs here, as printed, against fake-spotify: a fenced block right
/// after a `<!-- recipe: NAME -->` line. Each runs with bash (or make, for a make block) with the
/// built tools first on PATH, a throwaway XDG home, and a login seeded through fake-spotify's
/// `/_fake/tokens`. A marked recipe without a check here fails, and so does a check without its
/// recipe, so the guide cannot rot.
@Suite(.tags(.large)) struct ReadmeRecipeTests {
    struct Recipe: Sendable {
        var name: String
        var language: String
        var body: String
    }

    /// The marked recipes of the README, in order.
    static func recipes() throws -> [Recipe] {
        let readme = try String(contentsOfFile: InstallTests.repositoryRoot + "/README.md", encoding: .utf8)
        let lines = readme.components(separatedBy: "\n")
        var recipes: [Recipe] = []
        var index = 0
        while index < lines.count {
            let line = lines[index].trimmingCharacters(in: .whitespaces)
            index += 1
            guard line.hasPrefix("<!-- recipe:"), line.hasSuffix("-->") else { continue }
            let name = line.dropFirst("<!-- recipe:".count).dropLast("-->".count).trimmingCharacters(in: .whitespaces)
            guard index < lines.count, lines[index].hasPrefix("```") else {
                recipes.append(Recipe(name: name, language: "", body: ""))  // a marker without a block: fails below
                continue
            }
            let language = String(lines[index].dropFirst(3))
            index += 1
            var body: [String] = []
            while index < lines.count, !lines[index].hasPrefix("```") {
                body.append(lines[index])
                index += 1
            }
            index += 1
            recipes.append(Recipe(name: name, language: language, body: body.joined(separator: "\n") + "\n"))
        }
        return recipes
    }

    /// A fake-spotify, a seeded login, a throwaway home and a working directory for one recipe.
    final class Kitchen {
        let fake: FakeSpotifyProcess
        let work: TemporaryDirectory
        var environment: [String: String]

        /// A login with the read-only default scopes, and the write scopes too when `canWrite`;
        /// `history`: also the history set's (top tracks and artists, followed artists).
        init(canWrite: Bool = false, history: Bool = false) throws {
            fake = try FakeSpotifyProcess()
            work = try TemporaryDirectory()
            let writes =
                "playlist-read-private playlist-read-collaborative user-read-currently-playing user-read-playback-state user-library-read playlist-modify-private playlist-modify-public user-library-modify"
            let defaults =
                "playlist-read-private playlist-read-collaborative user-read-currently-playing user-read-playback-state user-library-read"
            let granted = [
                canWrite ? writes : defaults, history ? "user-read-recently-played user-top-read user-follow-read" : "",
            ].joined(separator: " ")
            try fake.seedLogin(
                expiresIn: 3600, scope: canWrite || history ? granted.trimmingCharacters(in: .whitespaces) : nil)
            let home = fake.home.url
            let browser = try fake.home.file(
                "browser.sh", contents: "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '\(home.path)/opened'\n")
            chmod(browser, 0o755)
            environment = fake.environment([
                "XDG_DATA_HOME": home.appendingPathComponent("data").path,
                "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
                "XDG_STATE_HOME": home.appendingPathComponent("state").path,
                "BROWSER": browser,
                "NO_COLOR": "1",
            ])
        }

        var opened: String { (try? String(contentsOfFile: fake.home.path + "/opened", encoding: .utf8)) ?? "" }

        /// fake-spotify's player: a session of the catalog's songs at `speed`, or `mode` (e.g. nothing).
        func play(speed: Int = 1, mode: String = "tracks") throws {
            try fake.call("POST", "/_fake/playback", form: [("speed", String(speed)), ("mode", mode)])
        }

        func run(_ recipe: Recipe, extra: [String: String] = [:]) throws -> ToolResult {
            let script: String
            switch recipe.language {
            case "sh":
                script = try work.file("recipe.sh", contents: "set -e\n" + recipe.body)
                return try ToolProcess.shell(
                    "cd '\(work.path)' && bash '\(script)'", environment: environment.merging(extra) { $1 }, timeout: 90
                )
            case "make":
                _ = try work.file("Makefile", contents: recipe.body)
                return try ToolProcess.shell(
                    "cd '\(work.path)' && make --no-print-directory", environment: environment.merging(extra) { $1 },
                    timeout: 90)
            default:
                Issue.record("recipe \(recipe.name): a ```\(recipe.language) block; only sh and make recipes can run")
                return ToolResult(status: -1, stdout: "", stderr: "")
            }
        }
    }

    /// The check of each recipe, by name.
    static let checks: [String: @Sendable (Recipe) throws -> Void] = [
        "fifteen-minutes": fifteenMinutes,
        "routine": routine,
        "csv": csv,
        "status-bar": statusBar,
        "snapshot-makefile": snapshotMakefile,
        "dedupe": dedupe,
        "sort": sort,
        "filter": filter,
        "routine-playlist": routinePlaylist,
        "csv-import": csvImport,
        "clean": clean,
        "whole-library": wholeLibrary,
        "top-50": topFifty,
        "which-playlists": whichPlaylists,
        "discography": discography,
        "history-import": historyImport,
        "top-tracks-2025": topTracks2025,
    ]

    @Test func everyMarkedRecipeIsExercisedAndEveryCheckHasItsRecipe() throws {
        let recipes = try Self.recipes()
        let names = recipes.map(\.name)
        #expect(Set(names).count == names.count, "recipe names repeat: \(names)")
        for recipe in recipes {
            #expect(
                Self.checks[recipe.name] != nil, "README recipe '\(recipe.name)' is not exercised by ReadmeRecipeTests")
            #expect(!recipe.body.isEmpty, "README marker '\(recipe.name)' has no fenced block right after it")
        }
        for name in Self.checks.keys {
            #expect(names.contains(name), "ReadmeRecipeTests checks '\(name)', which the README no longer has")
        }
        #expect(recipes.count >= 5)
    }

    @Test(arguments: [
        "fifteen-minutes", "routine", "csv", "status-bar", "snapshot-makefile", "dedupe", "sort", "filter",
        "routine-playlist", "csv-import", "whole-library", "top-50", "which-playlists", "discography",
        "history-import", "top-tracks-2025",
    ])
    func recipeRunsAsPrinted(name: String) async throws {
        for tool in ["jq", "make"] {
            #expect(
                FileManager.default.isExecutableFile(atPath: "/usr/bin/\(tool)"),
                "the README recipes need \(tool) (.ci/run installs it)")
        }
        let recipe = try #require(try Self.recipes().first { $0.name == name }, "README has no recipe '\(name)'")
        let check = try #require(Self.checks[name])
        try await offThePool { try check(recipe) }
    }

    // MARK: The checks

    static func fifteenMinutes(_ recipe: Recipe) throws {
        let kitchen = try Kitchen()
        let result = try kitchen.run(recipe)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutLines
        #expect(
            lines.first
                == #"{"type":"song_count","target_ms":900000,"track_count":4,"total_duration_ms":904132,"songs":3.98,"label":"4 songs"}"#
        )
        #expect(
            Array(lines.dropFirst()) == [
                "The Funeral — Band of Horses", "Snomads Island — David Wise", "Neckbrace — Ratatat",
                "Say It Ain't So — Weezer",
            ])
    }

    static func routine(_ recipe: Recipe) throws {
        let kitchen = try Kitchen()
        // Fifteen minutes of listening in ten seconds: the player at 90x, the watch's clock too.
        try kitchen.play(speed: 90)
        let result = try kitchen.run(recipe, extra: ["SPOTIFY_TOOLKIT_TIME_SCALE": "90"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(kitchen.opened == "https://open.spotify.com/playlist/3cEYpjA9oz9GiPac4AsH4n\n")
        let records = result.stdoutLines.dropLast().compactMap { try? JSONValue.parse($0) }
        #expect(records.map { $0["type"]?.stringValue ?? "" } == ["routine", "routine", "session", "session"])
        #expect(records.last?["routine"] == "morning")
        #expect(records.last?["playlist"]?["name"] == "Morning")
        let songs = records.last?["songs"]?.doubleValue ?? 0
        #expect(songs > 3 && songs < 6, "15 minutes of 2:31–3:58 songs: \(songs)")
        let label = records.last?["label"]?.stringValue ?? "?"
        let today = String((records.last?["started_at"]?.stringValue ?? "").prefix(10))
        #expect(result.stdoutLines.last == "\(today)  morning: \(label) from Morning")
    }

    static func csv(_ recipe: Recipe) throws {
        let kitchen = try Kitchen()
        let result = try kitchen.run(recipe)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let csv = try String(contentsOfFile: kitchen.work.path + "/morning.csv", encoding: .utf8)
        #expect(csv.hasPrefix("Track URI,Track Name,Artist URI(s),Artist Name(s),Album URI,Album Name,"), "\(csv)")
        // Read back as the README says, by `spotify-tracks --from csv`: every row whole, so no request.
        let requestsBefore = try kitchen.fake.counters()["requests"]
        let back = try ToolProcess.run(
            "spotify-tracks", ["--from", "csv", kitchen.work.path + "/morning.csv"], environment: kitchen.environment)
        #expect(back.status == 0, "\(back.stderr)")
        let rows = try back.stdoutLines.map { try JSONValue.parse($0) }
        #expect(
            rows.compactMap { $0["name"]?.stringValue } == [
                "The Funeral", "Snomads Island", "Neckbrace", "Say It Ain't So",
            ])
        #expect(rows.map { $0["duration_ms"]?.intValue.map { ($0 + 500) / 1000 } } == [323, 127, 196, 259])
        #expect(rows.first?["external_ids"]?["isrc"]?.stringValue != nil, "\(back.stdout)")
        #expect(rows.first?["uri"]?.stringValue?.hasPrefix("spotify:track:") == true, "\(back.stdout)")
        #expect(rows.dropFirst().first?["is_local"] == true, "\(back.stdout)")
        #expect(try kitchen.fake.counters()["requests"] == requestsBefore, "the file says it all: no request")
    }

    /// Every track of the playlist that is not explicit, and only those, in order.
    static func clean(_ recipe: Recipe) throws {
        let kitchen = try Kitchen(canWrite: true)
        let source = try ToolProcess.run(
            "spotify-tracks", ["--no-cache", "7d2D2S200NyUE5KYs80PwO"], environment: kitchen.environment)
        let all = try source.stdoutLines.map { try JSONValue.parse($0) }
        let clean = all.filter { $0["explicit"] == false }.compactMap { $0["uri"]?.stringValue }
        #expect(clean.count > 100 && clean.count < all.count, "some are explicit: \(clean.count) of \(all.count)")
        let result = try kitchen.run(recipe)
        #expect(result.status == 0, "\(result.stderr)")
        let record = try JSONValue.parse(try #require(result.stdoutLines.last))
        let id = try #require(record["id"]?.stringValue)
        let made = try ToolProcess.run("spotify-tracks", ["--no-cache", id], environment: kitchen.environment)
        #expect(try made.stdoutLines.compactMap { try JSONValue.parse($0)["uri"]?.stringValue } == clean)
    }

    static func routinePlaylist(_ recipe: Recipe) throws {
        let kitchen = try Kitchen(canWrite: true)
        let result = try kitchen.run(recipe)
        #expect(result.status == 0, "\(result.stderr)")
        let routine = try JSONValue.parse(try #require(result.stdoutLines.last))
        #expect(routine["type"] == "routine" && routine["playlist"]?["name"] == "Morning 15", "\(result.stdout)")
        let id = try #require(routine["playlist"]?["id"]?.stringValue)
        let tracks = try ToolProcess.run("spotify-tracks", ["--no-cache", id], environment: kitchen.environment)
        let total = try tracks.stdoutLines.reduce(0) { $0 + (try JSONValue.parse($1)["duration_ms"]?.intValue ?? 0) }
        #expect(abs(total - 900_000) <= 1_000, "within a second of fifteen minutes: \(total) ms")
    }

    /// With --owned the whole library reads and exits 0; without it, the editorial playlist the
    /// fixture user follows (its items answer 404) fails the pipeline with exit 1.
    static func wholeLibrary(_ recipe: Recipe) throws {
        let kitchen = try Kitchen()
        let result = try kitchen.run(recipe)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONValue.parse(result.stdout)
        #expect(report["songs"]?.intValue ?? 0 > 10_000, "\(result.stdout)")
        #expect(report["hours"]?.intValue ?? 0 > 500, "\(result.stdout)")
        #expect(!result.stderr.contains("37i9dQZF1DXcBWIGoYBM5M"), "\(result.stderr)")
        // The same answer as slurping the whole records, which held the library in memory (2.1 GB
        // at 400,000 items): the recipe slurps only each item's URI and duration.
        #expect(!recipe.body.contains("unique_by"), "the records are not slurped whole")
        var slurped = recipe
        slurped.body =
            """
            set -o pipefail
            spotify-playlists --owned | spotify-tracks --tracks-only \\
                | jq -s '{songs: (unique_by(.uri) | length), hours: (map(.duration_ms) | add / 3600000 | floor)}'

            """
        let whole = try kitchen.run(slurped)
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(result.stdout == whole.stdout)

        var everything = recipe
        everything.body = recipe.body.replacingOccurrences(of: "spotify-playlists --owned", with: "spotify-playlists")
        #expect(everything.body != recipe.body)
        let failing = try kitchen.run(everything)
        #expect(failing.status == 1, "\(failing.stderr)")
        #expect(failing.stderr.contains("playlist 37i9dQZF1DXcBWIGoYBM5M: not found"), "\(failing.stderr)")
    }

    /// The first 50 of the short-term top tracks become a playlist, in rank order.
    static func topFifty(_ recipe: Recipe) throws {
        let kitchen = try Kitchen(canWrite: true, history: true)
        let result = try kitchen.run(recipe)
        #expect(result.status == 0, "\(result.stderr)")
        let record = try JSONValue.parse(try #require(result.stdoutLines.last))
        #expect(record["name"] == "Top 50 of the last month" && record["items_total"] == 50, "\(result.stdout)")
        let id = try #require(record["id"]?.stringValue)
        let made = try ToolProcess.run("spotify-tracks", ["--no-cache", id], environment: kitchen.environment)
        let top = try ToolProcess.run(
            "spotify-tracks", ["--top", "--range", "short"], environment: kitchen.environment)
        let uris = { (run: ToolResult) in try run.stdoutLines.map { try JSONValue.parse($0)["uri"]?.stringValue ?? "" }
        }
        #expect(try uris(made) == Array(try uris(top).prefix(50)))
    }

    static func whichPlaylists(_ recipe: Recipe) throws {
        let kitchen = try Kitchen(canWrite: true)
        // Neckbrace (the Morning playlist's 5th entry) into a second playlist, at its top.
        let neckbrace = "spotify:track:2takcwOaAZWiXQijPHIx7B"
        let added = try ToolProcess.run(
            "spotify-playlists", ["add", "--position", "0", "7d2D2S200NyUE5KYs80PwO"], stdin: neckbrace + "\n",
            environment: kitchen.environment)
        #expect(added.status == 0, "\(added.stderr)")
        let result = try kitchen.run(recipe)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdoutLines == [
                "Morning\t#4\tNeckbrace — Ratatat", "Focus — deep work (collab)\t#0\tNeckbrace — Ratatat",
            ], "\(result.stdout)")
    }

    static func discography(_ recipe: Recipe) throws {
        let kitchen = try Kitchen(canWrite: true)
        let result = try kitchen.run(recipe)
        #expect(result.status == 0, "\(result.stderr)")
        let record = try JSONValue.parse(try #require(result.stdoutLines.last))
        #expect(record["name"] == "Band of Horses, every song once", "\(result.stdout)")
        let id = try #require(record["id"]?.stringValue)
        let tracks = try ToolProcess.run("spotify-tracks", ["--no-cache", id], environment: kitchen.environment)
        let songs = try tracks.stdoutLines.map { try JSONValue.parse($0) }
        let names = songs.compactMap { $0["name"]?.stringValue }
        // fake-spotify's Band of Horses: 10 releases of those groups, 138 tracks, of which two
        // singles' 5 songs are also on their albums.
        #expect(names.count == 133 && Set(names).count == 133, "\(names.count)")
        #expect(names.first == "Song 1.0.1", "the newest release first")
        #expect(songs.allSatisfy { $0["artists"]?.arrayValue?.first?["name"] == "Band of Horses" })
        // Each song kept where it came first: the single's (release 1), before the album's.
        #expect(Array(names[8..<11]) == ["Song 1.2.1", "Song 1.2.2", "Song 1.2.3"])
        #expect(names[11] == "Song 1.2.4")
    }

    static func csvImport(_ recipe: Recipe) throws {
        let kitchen = try Kitchen(canWrite: true)
        _ = try kitchen.work.file(
            "songs.csv",
            contents:
                "artist,title\nTalking Heads,Psycho Killer\nThe Kooks,Naive\nBeyonce,Deja Vu\nDolly Parton,Jolene\n")
        let result = try kitchen.run(recipe)
        #expect(result.status == 0, "\(result.stderr)")
        let record = try JSONValue.parse(try #require(result.stdoutLines.last))
        #expect(record["name"] == "Imported" && record["items_total"] == 4, "\(result.stdout)")
        let id = try #require(record["id"]?.stringValue)
        let tracks = try ToolProcess.run("spotify-tracks", ["--no-cache", id], environment: kitchen.environment)
        let names = try tracks.stdoutLines.map { try JSONValue.parse($0)["name"]?.stringValue ?? "" }
        #expect(names == ["Psycho Killer - 2005 Remaster", "Naïve", "Déjà Vu (feat. Jay-Z)", "Jolene"], "\(names)")
    }

    /// An entry of Spotify's Extended streaming history download.
    static func streamed(_ ts: String, _ name: String, number: Int, msPlayed: Int = 180_000) -> String {
        let id = "0FakeTrack" + String(repeating: "0", count: 12 - String(number).count) + String(number)
        return """
            {"ts":"\(ts)","ms_played":\(msPlayed),"master_metadata_track_name":"\(name)",\
            "master_metadata_album_artist_name":"The Fixtures","master_metadata_album_album_name":"Fake Mornings",\
            "spotify_track_uri":"spotify:track:\(id)","episode_name":null,"episode_show_name":null,\
            "spotify_episode_uri":null,"reason_start":"trackdone","reason_end":"trackdone","shuffle":false,\
            "skipped":false,"offline":false}
            """
    }

    static func historyImport(_ recipe: Recipe) throws {
        let kitchen = try Kitchen()
        let folder = kitchen.work.url.appendingPathComponent("my_spotify_data/Spotify Extended Streaming History")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let years = [
            "2024": [streamed("2024-05-01T10:00:00Z", "Sunrise Drive", number: 0)],
            "2025": [
                streamed("2025-05-01T10:00:00Z", "Sunrise Drive", number: 0),
                streamed("2025-05-01T10:03:00Z", "Coffee First", number: 1),
            ],
        ]
        for (year, entries) in years {
            try ("[" + entries.joined(separator: ",") + "]").write(
                to: folder.appendingPathComponent("Streaming_History_Audio_\(year).json"), atomically: true,
                encoding: .utf8)
        }
        let result = try kitchen.run(recipe)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.trimmingCharacters(in: .whitespaces) == "3\n", "\(result.stdout)")
        // Imported again: nothing more.
        let again = try kitchen.run(recipe)
        #expect(again.stdout.trimmingCharacters(in: .whitespaces) == "3\n", "\(again.stdout)")
    }

    static func topTracks2025(_ recipe: Recipe) throws {
        let kitchen = try Kitchen()
        let entries = [
            streamed("2024-12-31T12:00:00Z", "Coffee First", number: 1),
            streamed("2024-12-31T12:05:00Z", "Coffee First", number: 1),
            streamed("2025-03-01T08:00:00Z", "Sunrise Drive", number: 0, msPlayed: 60_000),
            streamed("2025-03-01T08:04:00Z", "Coffee First", number: 1, msPlayed: 120_000),
            streamed("2025-06-01T08:00:00Z", "Sunrise Drive", number: 0, msPlayed: 60_000),
            streamed("2025-09-01T08:00:00Z", "Sunrise Drive", number: 0, msPlayed: 60_000),
            streamed("2026-01-01T12:00:00Z", "Coffee First", number: 1),
        ]
        let file = try kitchen.work.file(
            "Streaming_History_Audio_2025.json", contents: "[" + entries.joined(separator: ",") + "]")
        let imported = try ToolProcess.run(
            "spotify-nowplaying", ["history", "import", file], environment: kitchen.environment)
        #expect(imported.status == 0, "\(imported.stderr)")
        let result = try kitchen.run(recipe, extra: ["TZ": "UTC"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutLines.map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines == ["3 Sunrise Drive - The Fixtures", "1 Coffee First - The Fixtures", "5"], "\(result.stdout)")
    }

    static func dedupe(_ recipe: Recipe) throws {
        let kitchen = try Kitchen(canWrite: true)
        let playlist = "7d2D2S200NyUE5KYs80PwO"  // the collaborative one: 143 items
        let tracks = try ToolProcess.run("spotify-tracks", ["--no-cache", playlist], environment: kitchen.environment)
        let original = try tracks.stdoutLines.map { try JSONValue.parse($0)["uri"]?.stringValue ?? "" }
        #expect(original.count == 143 && Set(original).count == 143)
        // Some songs a second and third time, at the end and in the middle.
        let again = [original[3], original[7], original[3]].joined(separator: "\n") + "\n"
        let added = try ToolProcess.run(
            "spotify-playlists", ["add", playlist], stdin: again, environment: kitchen.environment)
        #expect(added.status == 0, "\(added.stderr)")
        let inserted = try ToolProcess.run(
            "spotify-playlists", ["add", "--position", "50", playlist], stdin: original[9] + "\n",
            environment: kitchen.environment)
        #expect(inserted.status == 0, "\(inserted.stderr)")

        let dated = try Self.entries(playlist, kitchen)
        let result = try kitchen.run(recipe)
        #expect(result.status == 0, "\(result.stderr)")
        let after = try Self.entries(playlist, kitchen)
        #expect(after.map(\.uri) == original)
        // Only the songs that were there more than once got a new date.
        for entry in after where ![original[3], original[7], original[9]].contains(entry.uri) {
            #expect(dated.first { $0.uri == entry.uri }?.addedAt == entry.addedAt, "\(entry.uri) keeps its date")
        }
    }

    /// A playlist's entries: URI and date added.
    static func entries(_ playlist: String, _ kitchen: Kitchen) throws -> [(uri: String, addedAt: String)] {
        let raw = try ToolProcess.run(
            "spotify-tracks", ["--no-cache", "--raw", playlist], environment: kitchen.environment)
        return try raw.stdoutLines.map { line in
            let entry = try JSONValue.parse(line)
            return (
                (entry["item"] ?? entry["track"])?["uri"]?.stringValue ?? "", entry["added_at"]?.stringValue ?? ""
            )
        }
    }

    static func sort(_ recipe: Recipe) throws {
        let kitchen = try Kitchen(canWrite: true)
        let playlist = "7d2D2S200NyUE5KYs80PwO"
        let before = try Self.entries(playlist, kitchen)
        let result = try kitchen.run(recipe)
        #expect(result.status == 0, "\(result.stderr)")
        let records = try ToolProcess.run("spotify-tracks", ["--no-cache", playlist], environment: kitchen.environment)
        let durations = try records.stdoutLines.map { try JSONValue.parse($0)["duration_ms"]?.intValue ?? 0 }
        #expect(durations == durations.sorted() && durations.count == before.count)
        let after = try Self.entries(playlist, kitchen)
        #expect(
            Set(after.map { "\($0.uri) \($0.addedAt)" }) == Set(before.map { "\($0.uri) \($0.addedAt)" }),
            "every date kept")
    }

    static func filter(_ recipe: Recipe) throws {
        let kitchen = try Kitchen(canWrite: true)
        let playlist = "7d2D2S200NyUE5KYs80PwO"
        let before = try Self.entries(playlist, kitchen)
        let result = try kitchen.run(recipe)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("rewrote playlist \(playlist)"), "\(result.stderr)")
        #expect(result.stderr.contains("undoing the rewrite"), "\(result.stderr)")
        let after = try Self.entries(playlist, kitchen)
        #expect(after.map(\.uri) == before.map(\.uri), "undo put it back")
        let long = try ToolProcess.run("spotify-tracks", ["--no-cache", playlist], environment: kitchen.environment)
        #expect(
            try long.stdoutLines.contains { try JSONValue.parse($0)["duration_ms"]?.intValue ?? 0 >= 300000 },
            "the filter had something to drop")
    }

    static func statusBar(_ recipe: Recipe) throws {
        let kitchen = try Kitchen()
        try kitchen.play()
        let playing = try kitchen.run(recipe)
        #expect(playing.status == 0, "\(playing.stderr)")
        #expect(playing.stdout == "▶ Sunrise Drive — The Fixtures\n")
        try kitchen.fake.call("POST", "/_fake/playback/pause")
        let paused = try kitchen.run(recipe)
        #expect(paused.stdout == "⏸ Sunrise Drive — The Fixtures\n")
        try kitchen.play(mode: "nothing")
        let nothing = try kitchen.run(recipe)
        #expect(nothing.status == 0, "\(nothing.stderr)")
        #expect(nothing.stdout == "♪ nothing playing\n")
    }

    static func snapshotMakefile(_ recipe: Recipe) throws {
        let kitchen = try Kitchen()
        let first = try kitchen.run(recipe)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let report = kitchen.work.path + "/report.txt"
        let built = try String(contentsOfFile: report, encoding: .utf8)
        #expect(built.hasPrefix(#"{"type":"song_count","target_ms":3600000"#))
        let builtAt = try FileManager.default.attributesOfItem(atPath: report)[.modificationDate] as? Date

        // Unchanged playlist: the report is not rebuilt.
        let again = try kitchen.run(recipe)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(!again.stdout.contains("spotify-tracks"), "\(again.stdout)")
        #expect(try FileManager.default.attributesOfItem(atPath: report)[.modificationDate] as? Date == builtAt)

        // An edit (a new snapshot_id): rebuilt.
        try kitchen.fake.call("POST", "/_fake/edit-playlist", form: [("id", "3cEYpjA9oz9GiPac4AsH4n")])
        let rebuilt = try kitchen.run(recipe)
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        #expect(rebuilt.stdout.contains("spotify-tracks"), "\(rebuilt.stdout)")
    }
}

/// Runs blocking work (a recipe or the demo waits seconds for its processes) on a thread of its
/// own, so it does not hold one of the few threads Swift's cooperative pool has (on a 2-core
/// machine, two blocked tests would starve every async test of the run).
func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try work() })
        }
    }
}
