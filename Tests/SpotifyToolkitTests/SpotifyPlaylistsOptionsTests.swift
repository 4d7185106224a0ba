import Testing

@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// spotify-playlists' Options: each command line is read and checked in its Options init, so a
/// usage error is thrown there, before any request or any line of standard input is read.
@Suite(.tags(.small)) struct SpotifyPlaylistsOptionsTests {
    typealias Tool = SpotifyPlaylists

    func options<Options: CommandOptions>(_: Options.Type, _ arguments: [String]) throws -> Options {
        try Options(CommandLineParser.parse(arguments, spec: Tool.spec))
    }

    /// The usage error the Options init throws, or nil when it reads the line.
    func usage<Options: CommandOptions>(_ type: Options.Type, _ arguments: [String]) -> String? {
        do {
            _ = try options(type, arguments)
            return nil
        } catch let error as ToolError {
            #expect(error.exitCode == .usage, "\(arguments): \(error.message)")
            return error.message
        } catch {
            Issue.record("\(arguments): \(error)")
            return nil
        }
    }

    @Test func listingAndGet() throws {
        #expect(
            usage(Tool.ListOptions.self, ["--owned", "--not-owned"])
                == "--owned and --not-owned cannot be used together")
        #expect(usage(Tool.ListOptions.self, ["list", "-c", "9"])?.hasPrefix("--concurrency must be") == true)
        let list = try options(Tool.ListOptions.self, ["ls", "--owned", "--duration", "--json", "-c", "2"])
        #expect(list.ownership == .owned && list.withDuration && list.json && list.concurrency == 2)
        let get = try options(Tool.GetOptions.self, ["get", "--no-cache", "a", "b"])
        #expect(get.playlists == ["a", "b"] && get.cache == .init(bypass: true) && !get.withDuration)
        #expect(usage(Tool.GetOptions.self, ["get", "-c", "x"])?.hasPrefix("--concurrency must be") == true)
    }

    @Test func writes() throws {
        #expect(usage(Tool.CreateOptions.self, ["create", ""]) == "create takes one NAME")
        #expect(
            usage(Tool.CreateOptions.self, ["create", "Mix", "--public", "--collaborative"])
                == "a collaborative playlist is private: --public and --collaborative do not go together")
        #expect(
            usage(Tool.AddOptions.self, ["add", "--liked", "Mix"])
                == "add --liked changes your Liked Songs; it takes no PLAYLIST")
        #expect(
            usage(Tool.AddOptions.self, ["add", "--liked", "--position", "3"]) == "--position does not go with --liked")
        #expect(
            usage(Tool.AddOptions.self, ["add", "Mix", "--position", "-1"])?.hasPrefix("--position must be") == true)
        #expect(usage(Tool.AddOptions.self, ["add"])?.hasPrefix("name one PLAYLIST to change") == true)
        let add = try options(Tool.AddOptions.self, ["add", "Mix", "--position", "3", "-n"])
        #expect(add.playlist == "Mix" && add.position == 3 && add.settings.dryRun && !add.liked)
        #expect(
            usage(Tool.RemoveOptions.self, ["remove", "-l", "Mix"])
                == "remove --liked changes your Liked Songs; it takes no PLAYLIST")
        let remove = try options(Tool.RemoveOptions.self, ["remove", "--liked", "--dry-run"])
        #expect(remove.liked && remove.playlist == nil && remove.settings.dryRun)
        #expect(
            usage(Tool.EditDetailsOptions.self, ["edit", "Mix"])?.hasPrefix("edit needs something to change") == true)
        #expect(usage(Tool.EditDetailsOptions.self, ["edit", "Mix", "--name", ""]) == "--name must not be empty")
        #expect(
            usage(Tool.EditDetailsOptions.self, ["edit", "Mix", "--public", "--private"])
                == "--public and --private do not go together")
        let edit = try options(Tool.EditDetailsOptions.self, ["edit", "Mix", "--collaborative", "--name", "B"])
        #expect(edit.details == ["name": "B", "collaborative": true, "public": false], "in the order they are sent")
        #expect(try options(Tool.DeleteOptions.self, ["delete", "Mix", "-y"]).yes)
    }

    @Test func destructiveEdits() throws {
        #expect(
            usage(Tool.ReplaceOptions.self, ["replace", "Mix", "--drop-unavailable"])?.hasPrefix(
                "--drop-unavailable goes with --reset-dates") == true)
        #expect(
            usage(Tool.ReplaceOptions.self, ["replace", "Mix", "--max-moves", "x"])?.hasPrefix("--max-moves must")
                == true)
        #expect(
            usage(Tool.DedupeOptions.self, ["dedupe", "Mix", "--drop-unavailable"])?.hasPrefix(
                "--drop-unavailable goes with") == true)
        #expect(usage(Tool.SortOptions.self, ["sort", "Mix"])?.hasPrefix("sort needs --by KEY") == true)
        #expect(usage(Tool.SortOptions.self, ["sort", "Mix", "--by", "mood"]) != nil, "--by offers its choices only")
        #expect(
            usage(Tool.SortOptions.self, ["sort", "Mix", "--by", "name", "--seed", "7"])
                == "--seed goes with --by random")
        let sort = try options(
            Tool.SortOptions.self, ["sort", "Mix", "--by", "random", "--seed", "7", "--max-moves", "9"])
        #expect(sort.key == .random && sort.seed == 7 && sort.settings.maxMoves == 9 && !sort.reverse)
        let rewrite = try options(Tool.RewriteOptions.self, ["rewrite", "Mix", "--", "jq", "-c", "."])
        #expect(rewrite.playlist == "Mix" && rewrite.program == ["jq", "-c", "."])
        #expect(
            usage(Tool.UndoOptions.self, ["undo", "Mix", "--max-moves", "-1"])?.hasPrefix("--max-moves must") == true)
        let undo = try options(Tool.UndoOptions.self, ["undo", "Mix", "-f"])
        #expect(undo.force && !undo.settings.resetDates && undo.settings.maxMoves == Tool.defaultMaxMoves)
    }

    @Test func local() throws {
        #expect(usage(Tool.LocalOptions.self, ["local", "list", "Mix"]) == "local list takes no NAME")
        #expect(usage(Tool.LocalOptions.self, ["local", "rename", "Mix"]) == "local rename takes OLD and NEW names")
        #expect(
            usage(Tool.LocalOptions.self, ["local", "create"])
                == "local create takes one NAME and reads track records on standard input")
        #expect(usage(Tool.LocalOptions.self, ["local", "frob"])?.hasPrefix("unknown local action 'frob'") == true)
        #expect(try options(Tool.LocalOptions.self, ["local", "rename", "A", "B"]).action == .rename("A", to: "B"))
        #expect(try options(Tool.LocalOptions.self, ["local", "list", "--names"]).namesOnly)
    }

    @Test func historyDiffAndRestoreReadTheirVersions() throws {
        #expect(try options(Tool.HistoryOptions.self, ["history", "Mix"]).playlist == "Mix")
        #expect(usage(Tool.HistoryOptions.self, ["history"]) != nil)
        let diff = try options(Tool.DiffOptions.self, ["diff", "Mix", "AAAA1", "now"])
        #expect(diff.playlist == "Mix" && diff.from == "AAAA1" && diff.to == "now")
        let latest = try options(Tool.DiffOptions.self, ["diff", "Mix"])
        #expect(latest.from == nil && latest.to == nil)
        #expect(usage(Tool.DiffOptions.self, ["diff"]) != nil)
        #expect(usage(Tool.DiffOptions.self, ["diff", "Mix", " "])?.contains("empty version") == true)
        let restore = try options(Tool.RestoreOptions.self, ["restore", "Mix", "AAAA1", "--dry-run"])
        #expect(restore.snapshot == "AAAA1" && restore.settings.dryRun)
        #expect(usage(Tool.RestoreOptions.self, ["restore", "Mix"])?.contains("SNAPSHOT") == true)
        #expect(usage(Tool.RestoreOptions.self, ["restore", "Mix", "now"]) != nil)
        #expect(usage(Tool.RestoreOptions.self, ["restore", "Mix", "AAAA1", "--drop-unavailable"]) != nil)
    }
}

/// The records spotify-playlists prints: the JSON the record always had, and the table row.
@Suite(.tags(.small)) struct SpotifyPlaylistsRecordTests {
    @Test func aPlaylistRowIsTheRecordThenItsDuration() throws {
        let playlist = try #require(PlaylistRecord(try FixtureFiles.json("playlist.json")))
        #expect(
            playlist.json == .object(try #require(PlaylistRecord.make(from: try FixtureFiles.json("playlist.json")))))
        #expect(SpotifyPlaylists.PlaylistRow(playlist).json == playlist.json)
        let timed = SpotifyPlaylists.PlaylistRow(playlist, durationMs: nil)
        #expect(timed.json.objectValue?.keys.last == "duration_ms" && timed.json["duration_ms"] == .null)
        #expect(timed.cells.count == 5 && timed.cells[2] == "?")
        let row = SpotifyPlaylists.PlaylistRow(playlist)
        #expect(row.cells == [playlist.name ?? "", "6", playlist.owner?.displayName ?? "", playlist.id ?? ""])
    }

    @Test func aLocalPlaylistRecordKeepsItsKeyOrder() {
        let playlist = LocalPlaylist(
            name: "Mix", createdAt: "2026-01-01T10:00:00Z", updatedAt: "2026-01-02T10:00:00Z",
            tracks: [#"{"uri":"spotify:track:a","duration_ms":60000}"#, #"{"uri":"spotify:track:b"}"#])
        let record = SpotifyPlaylists.LocalPlaylistRecord(playlist, timeZone: LocalTime.zone("UTC"))
        #expect(
            record.json.serialized()
                == #"{"type":"local_playlist","name":"Mix","items_total":2,"duration_ms":60000,"created_at":"2026-01-01T10:00:00Z","updated_at":"2026-01-02T10:00:00Z"}"#
        )
        #expect(record.cells == ["Mix", "2", "1:00", "2026-01-02 10:00"])
    }

    @Test func changeRecordsKeepTheirKeyOrder() {
        typealias Change = SpotifyPlaylists.ChangeRecord
        #expect(
            Change(.add, playlist: "p", .positioned(nil, ["spotify:track:a"])).json.serialized()
                == #"{"type":"change","action":"add","playlist":"p","position":null,"items":["spotify:track:a"]}"#)
        #expect(
            Change(.move, playlist: "p", .move(start: 1, insertBefore: 0, length: 2)).json.serialized()
                == #"{"type":"change","action":"move","playlist":"p","range_start":1,"insert_before":0,"range_length":2}"#
        )
        #expect(
            Change(.create, playlist: nil, .details(["name": "M", "public": false])).json.serialized()
                == #"{"type":"change","action":"create","playlist":null,"name":"M","public":false}"#)
        #expect(
            Change(.delete, playlist: "p", .details([:])).json.serialized()
                == #"{"type":"change","action":"delete","playlist":"p"}"#)
        #expect(
            Change(.unsave, playlist: nil, .items([])).json.serialized()
                == #"{"type":"change","action":"unsave","playlist":null,"items":[]}"#)
    }
}

/// `rm` (and `ls`) as routine-link has them, for Spotify and local playlists alike.
@Suite(.tags(.small)) struct DeleteAliasTests {
    @Test func rmDeletesAndLsLists() throws {
        let parsed = try CommandLineParser.parse(["rm", "Mix"], spec: SpotifyPlaylists.spec)
        #expect(parsed.path == ["spotify-playlists", "delete"])
        let local = { (arguments: [String]) in
            try SpotifyPlaylists.LocalOptions(
                CommandLineParser.parse(["local"] + arguments, spec: SpotifyPlaylists.spec))
        }
        #expect(try local(["rm", "Mix"]).action == .delete("Mix"))
        #expect(try local(["ls"]).action == .list)
    }
}

/// The `replace` printed after an interrupted write runs as printed: it keeps the
/// write's --max-moves (or as many as the rest takes), --reset-dates and --drop-unavailable.
@Suite(.tags(.small)) struct FinishCommandTests {
    func settings(_ arguments: [String]) throws -> SpotifyPlaylists.WriteSettings {
        try SpotifyPlaylists.SortOptions(CommandLineParser.parse(arguments, spec: SpotifyPlaylists.spec)).settings
    }

    @Test func theFinishingReplaceKeepsWhatTheWriteNeeded() throws {
        let items = (0..<700).map { "spotify:track:t\($0)" }
        let shuffled: [String?] = items.reversed()  // every item out of place: 699 range moves
        let sort = ["sort", "P", "--by", "random"]
        let needed = PlaylistEditPlan(from: shuffled, to: items).moveRequests
        #expect(needed > SpotifyPlaylists.defaultMaxMoves)
        #expect(
            SpotifyPlaylists.finishOptions(try settings(sort + ["--max-moves", "1000"]), from: shuffled, to: items)
                == " --max-moves 1000")
        #expect(
            SpotifyPlaylists.finishOptions(try settings(sort), from: shuffled, to: items) == " --max-moves \(needed)",
            "the moves the rest takes, past the default")
        #expect(SpotifyPlaylists.finishOptions(try settings(sort), from: items.map { $0 }, to: items) == "")
        #expect(
            SpotifyPlaylists.finishOptions(
                try settings(sort + ["--reset-dates", "--drop-unavailable"]), from: shuffled, to: items)
                == " --reset-dates --drop-unavailable")
    }
}

/// The listing's --duration: a playlist without an id is not read, and the durations of the ones
/// after it stay with their own playlists.
@Suite(.tags(.small)) struct ListingDurationOrderTests {
    @Test func aPlaylistNotReadKeepsNullAndTheOthersTheirOwn() {
        #expect(SpotifyPlaylists.inListingOrder([5, 7], read: [0, 2], count: 3) == [5, nil, 7])
        #expect(SpotifyPlaylists.inListingOrder([nil, 9], read: [1, 2], count: 3) == [nil, nil, 9])
        #expect(SpotifyPlaylists.inListingOrder([], read: [], count: 2) == [nil, nil])
    }
}
