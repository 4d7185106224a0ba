import Foundation
import Testing

@testable import FakeSpotify
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// spotify-playlists' writes against an in-process fake-spotify: what they print,
/// what the playlist holds afterwards, and what they do when answers are lost.
@Suite(.tags(.medium)) struct PlaylistWriteTests {
    static let editScope =
        "playlist-read-private playlist-read-collaborative user-library-read user-library-modify playlist-modify-private playlist-modify-public"

    static func editor(_ arguments: [String] = []) async throws -> Library {
        try await Library(arguments, scope: editScope)
    }

    /// The URIs a playlist holds now, read back with spotify-tracks.
    static func uris(_ library: Library, _ id: String) async throws -> [String] {
        let run = try await library.tracks(["--no-cache", id])
        #expect(run.status == 0, "\(run.stderr)")
        return try records(run).compactMap { $0["uri"]?.stringValue }
    }

    static func trackURIs(_ library: Library, of id: String) async throws -> [String] {
        try await uris(library, id)
    }

    @Test func createMakesAPlaylistOfTheItemsInOrderAndPrintsItsRecord() async throws {
        let library = try await Self.editor()
        let source = try await library.tracks(["--no-cache", generated(250)])
        let created = try await library.run("spotify-playlists", ["create", "Copy of 250"], stdin: source.stdout)
        #expect(created.status == 0, "\(created.stderr)")
        let record = try #require(try records(created).first)
        #expect(record["type"] == "playlist")
        #expect(record["name"] == "Copy of 250")
        #expect(record["items_total"] == 250)
        #expect(record["public"] == false)
        #expect(record["snapshot_id"]?.stringValue?.isEmpty == false)
        #expect(created.stderr.contains("made playlist 'Copy of 250'"), "\(created.stderr)")
        let id = try #require(record["id"]?.stringValue)
        #expect(try await Self.uris(library, id) == (try records(source)).compactMap { $0["uri"]?.stringValue })
        let counters = try await library.counters()
        #expect(counters["requests"]?["POST /v1/me/playlists"]?.intValue == 1)
        #expect(counters["requests"]?["POST /v1/playlists/{id}/items"]?.intValue == 3, "batches of 100")
        // It is listed first, as Spotify lists a new playlist.
        let list = try await library.run("spotify-playlists", [])
        #expect(try records(list).first?["id"]?.stringValue == id)
    }

    @Test func anEmptyFileIntoCreateMakesNothingUnlessAllowEmpty() async throws {
        let library = try await Self.editor()
        // The in-process standard input is a file: empty, it is a pipeline that matched nothing.
        let refused = try await library.run("spotify-playlists", ["create", "Empty"])
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("Nothing was created; add --allow-empty"), "\(refused.stderr)")
        #expect(refused.stdout == "")
        #expect(try await library.counters()["requests"]?["POST /v1/me/playlists"] == nil, "no playlist made")
        let created = try await library.run(
            "spotify-playlists", ["create", "--allow-empty", "Empty", "--description", "nothing yet"])
        #expect(created.status == 0, "\(created.stderr)")
        let record = try #require(try records(created).first)
        #expect(record["items_total"] == 0)
        #expect(record["description"] == "nothing yet")
    }

    @Test func addInsertsAtAPositionAndAppendsByDefault() async throws {
        let library = try await Self.editor()
        let target = generated(120)
        let before = try await Self.uris(library, target)
        let extra = try await library.tracks(["--no-cache", "--no-local", generated(130, "mix")])
        let items = try records(extra).compactMap { $0["uri"]?.stringValue }
        let appended = try await library.run("spotify-playlists", ["add", target], stdin: extra.stdout)
        #expect(appended.status == 0, "\(appended.stderr)")
        #expect(try records(appended).first?["items_total"]?.intValue == before.count + items.count)
        #expect(try await Self.uris(library, target) == before + items)

        let inserted = try await library.run(
            "spotify-playlists", ["add", "--position", "1", target],
            stdin: "spotify:track:\(String(before[5].suffix(22)))\n")
        #expect(inserted.status == 0, "\(inserted.stderr)")
        let now = try await Self.uris(library, target)
        #expect(Array(now.prefix(3)) == [before[0], before[5], before[1]])
    }

    @Test func localFilesAndUnavailableItemsAreSkippedCountedAndSaid() async throws {
        let library = try await Self.editor()
        // mix playlists hold local files (every 10th from 3) and null items (from 8).
        let mixed = try await library.tracks(["--no-cache", "--raw", generated(30, "mix")])
        let added = try await library.run("spotify-playlists", ["add", generated(3)], stdin: mixed.stdout)
        #expect(added.status == 1, "the status says not everything was added")
        #expect(added.stderr.contains("skipped 3 local files and 3 unavailable items"), "\(added.stderr)")
        #expect(try records(added).first?["items_total"]?.intValue == 3 + 24)
    }

    @Test func aLineThatIsNoItemIsExit65NamingIt() async throws {
        let library = try await Self.editor()
        let input = "spotify:track:5xZpAwlSQAc00000000000\n{\"type\":\"playlist\",\"id\":\"x\"}\n"
        let run = try await library.run("spotify-playlists", ["add", generated(3)], stdin: input)
        #expect(run.status == 65)
        #expect(
            run.stderr.contains("standard input: line 2: a playlist record, not a track or episode"), "\(run.stderr)")
        #expect(try await library.counters()["requests"]?["POST /v1/playlists/{id}/items"] == nil, "nothing written")
    }

    @Test func replaceMakesTheItemsExactlyTheInput() async throws {
        let library = try await Self.editor()
        let target = generated(60)
        let source = try await library.tracks(["--no-cache", generated(230)])
        let replaced = try await library.run("spotify-playlists", ["replace", target], stdin: source.stdout)
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try await Self.uris(library, target) == (try records(source)).compactMap { $0["uri"]?.stringValue })
        let counters = try await library.counters()
        // Nothing in common: one DELETE of the 60 old URIs, then the 230 new ones in batches of 100.
        #expect(counters["requests"]?["DELETE /v1/playlists/{id}/items"]?.intValue == 1)
        #expect(counters["requests"]?["POST /v1/playlists/{id}/items"]?.intValue == 3)
        #expect(counters["requests"]?["PUT /v1/playlists/{id}/items"] == nil)
        // An empty input never empties a playlist by accident.
        let empty = try await library.run("spotify-playlists", ["replace", target], stdin: "")
        #expect(empty.status == 64)
        #expect(empty.stderr.contains("--allow-empty"))
        // Local files cannot be written back: replace refuses rather than drop them.
        let mixed = try await library.tracks(["--no-cache", generated(20, "mix")])
        let withLocal = try await library.run(
            "spotify-playlists", ["replace", "--reset-dates", target], stdin: mixed.stdout)
        #expect(withLocal.status == 65)
        #expect(withLocal.stderr.contains("replace --reset-dates would drop them"), "\(withLocal.stderr)")
        let cleared = try await library.run("spotify-playlists", ["replace", "--allow-empty", target], stdin: "")
        #expect(cleared.status == 0, "\(cleared.stderr)")
        #expect(try records(cleared).first?["items_total"] == 0)
    }

    @Test func removeTakesOutEveryOccurrence() async throws {
        let library = try await Self.editor()
        let target = generated(10)
        let items = try await Self.uris(library, target)
        _ = try await library.run("spotify-playlists", ["add", target], stdin: items[2] + "\n" + items[2] + "\n")
        let removed = try await library.run(
            "spotify-playlists", ["remove", target], stdin: items[2] + "\n" + items[4] + "\n")
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(
            try await Self.uris(library, target)
                == items.enumerated().filter { ![2, 4].contains($0.offset) }.map(\.element))
        #expect(removed.stderr.contains("12 → 8 items: 4 removed, dates kept for 8; 1 request"), "\(removed.stderr)")
    }

    @Test func editChangesDetails() async throws {
        let library = try await Self.editor()
        let target = generated(5)
        let edited = try await library.run(
            "spotify-playlists", ["edit", target, "--name", "Renamed", "--description", "new words", "--public"])
        #expect(edited.status == 0, "\(edited.stderr)")
        let record = try #require(try records(edited).first)
        #expect(record["name"] == "Renamed" && record["description"] == "new words" && record["public"] == true)
        let nothing = try await library.run("spotify-playlists", ["edit", target])
        #expect(nothing.status == 64)
    }

    @Test func dryRunPrintsChangeRecordsAndWritesNothing() async throws {
        let library = try await Self.editor()
        let source = try await library.tracks(["--no-cache", generated(150)])
        let plan = try await library.run("spotify-playlists", ["create", "--dry-run", "Planned"], stdin: source.stdout)
        #expect(plan.status == 0, "\(plan.stderr)")
        let changes = try records(plan)
        #expect(changes.map { $0["action"]?.stringValue } == ["create", "add", "add"])
        #expect(changes[1]["items"]?.arrayValue?.count == 100 && changes[2]["items"]?.arrayValue?.count == 50)
        #expect(changes.allSatisfy { $0["type"] == "change" })
        for action in [["add", generated(5)], ["remove", generated(5)], ["replace", generated(5)]] {
            let run = try await library.run("spotify-playlists", action + ["--dry-run"], stdin: source.stdout)
            #expect(run.status == 0, "\(action): \(run.stderr)")
        }
        let requests = try await library.counters()["requests"]?.objectValue ?? [:]
        #expect(!requests.keys.contains { $0.hasPrefix("POST") || $0.hasPrefix("PUT") || $0.hasPrefix("DELETE") })
    }

    @Test func withoutTheScopeItExits77NamingTheLogin() async throws {
        let library = try await Library()  // the read-only default
        let run = try await library.run(
            "spotify-playlists", ["add", generated(5)], stdin: "spotify:track:5xZpAwlSQAc00000000000\n")
        #expect(run.status == 77)
        #expect(run.stderr.contains("spotify-auth login --scope edit"), "\(run.stderr)")
    }

    @Test func aPlaylistYouDoNotOwnIsAClear403() async throws {
        let library = try await Self.editor()
        let run = try await library.run(
            "spotify-playlists", ["add", GeneratedLibrary.notOwnedID], stdin: "spotify:track:5xZpAwlSQAc00000000000\n")
        #expect(run.status == 77, "\(run.stderr)")
        #expect(run.stderr.contains("you can change only playlists you own or collaborate on"), "\(run.stderr)")
    }

    @Test func aPlaylistPastSpotifysLimitIsAClearMessage() async throws {
        let library = try await Self.editor()
        let run = try await library.run(
            "spotify-playlists", ["add", generated(10_000)], stdin: "spotify:track:5xZpAwlSQAc00000000000\n")
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("would pass the 10,000 a playlist can hold; nothing was added"), "\(run.stderr)")
    }

    /// Faults that break a write's answer after the write landed: the tool must find out by
    /// reading the playlist, never add a batch twice, and never lose one.
    static let lostAnswers: [(String, [(String, String)])] = [
        ("connection reset after the write", [("kind", "reset"), ("every", "2"), ("path_prefix", "/v1/playlists/")]),
        (
            "5xx after the write",
            [("kind", "server_error"), ("every", "3"), ("status", "502"), ("path_prefix", "/v1/playlists/")]
        ),
        ("cut answer", [("kind", "truncate"), ("every", "2"), ("path_prefix", "/v1/playlists/")]),
        ("429 (not carried out)", [("kind", "rate_limit"), ("every", "2"), ("retry_after", "0")]),
        (
            "answer lost before its first byte",
            [("kind", "lost_answer"), ("every", "3"), ("path_prefix", "/v1/playlists/")]
        ),
    ]

    @Test(arguments: lostAnswers)
    func lostAnswersNeverDuplicateOrLoseItems(name: String, fault: [(String, String)]) async throws {
        let library = try await Self.editor()
        let target = generated(40)
        let before = try await Self.uris(library, target)
        let source = try await library.tracks(["--no-cache", generated(450)])
        let items = try records(source).compactMap { $0["uri"]?.stringValue }
        try await library.fault(fault)
        // An answer lost before its first byte cost URLSession the whole request timeout (libcurl,
        // on a write's own connection, fails at once; macOS still uses URLSession): a short one
        // keeps this quick.
        let timeout = name.contains("first byte") ? ["SPOTIFY_TOOLKIT_REQUEST_TIMEOUT": "1"] : [:]
        let added = try await library.run(
            "spotify-playlists", ["add", target], stdin: source.stdout, environment: timeout)
        _ = try await library.fake.call("POST", "/_fake/clear-faults")
        let after = try await Self.uris(library, target)
        if added.status == 0 {
            #expect(after == before + items, "\(name): exactly the intended playlist")
        } else {
            // Never silently wrong: the message says what the playlist holds.
            #expect(added.stderr.contains("now holds") || added.stderr.contains("added"), "\(name): \(added.stderr)")
        }
        if !name.contains("first byte") {
            #expect(added.status == 0, "\(name): settled by reading again: \(added.stderr)")
        }
        #expect((try await library.counters()["faults_fired"]?.intValue ?? 0) >= 1, "\(name) happened")
    }

    @Test(arguments: [[("kind", "reset")], [("kind", "server_error"), ("status", "503")], [("kind", "truncate")]])
    func aBatchThatLandedButLostItsAnswerIsNotSentAgain(fault: [(String, String)]) async throws {
        let library = try await Self.editor()
        let target = generated(40)
        let before = try await Self.uris(library, target)
        let source = try await library.tracks(["--no-cache", generated(250)])
        let items = try records(source).compactMap { $0["uri"]?.stringValue }
        // The first POST is carried out, then its answer is lost.
        try await library.fault(fault + [("at", "1"), ("path_prefix", "/v1/playlists/\(target)/items")])
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        let added = try await library.run("spotify-playlists", ["add", target], stdin: source.stdout)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(
            try await library.counters()["requests"]?["POST /v1/playlists/{id}/items"]?.intValue == 3,
            "three batches, none twice")
        #expect(try await Self.uris(library, target) == before + items)
    }

    /// Writes reuse the connection reads opened. On HTTP/1.1 libcurl sends a request
    /// again by itself when a reused connection dies before any byte of the answer, which would
    /// land a batch twice; the toolkit lets a write go out once only, and settles the lost
    /// answer by reading the playlist.
    @Test func aWriteOnAReusedConnectionThatDiesAfterItWasSentLandsOnce() async throws {
        let library = try await Self.editor()
        let target = generated(40)
        let before = try await Self.uris(library, target)
        let source = try await library.tracks(["--no-cache", generated(250)])
        let items = try records(source).compactMap { $0["uri"]?.stringValue }
        // The first POST is carried out, then its connection closes without a byte of the answer.
        try await library.fault([
            ("kind", "lost_answer"), ("at", "1"), ("carry", "yes"), ("path_prefix", "/v1/playlists/\(target)/items"),
        ])
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        let added = try await library.run(
            "spotify-playlists", ["add", target], stdin: source.stdout,
            environment: ["SPOTIFY_TOOLKIT_SETTLE_PAUSE": "0.05"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(
            try await library.counters()["requests"]?["POST /v1/playlists/{id}/items"]?.intValue == 3,
            "three batches, none twice")
        #expect((try await library.counters()["faults_fired"]?.intValue ?? 0) == 1)
        #expect(try await Self.uris(library, target) == before + items)
        // The POST goes out on one of the connections the reads left open (HTTP/1.1: up to 8);
        // without the once-only send libcurl sends it again on another, and the batch lands
        // twice. TLSFrontTests.writesShareTheReadsConnection shows writes taking the reads'.
    }

    @Test func aBatchThatDidNotLandIsSentAgain() async throws {
        let library = try await Self.editor()
        let target = generated(40)
        let before = try await Self.uris(library, target)
        let source = try await library.tracks(["--no-cache", generated(250)])
        let items = try records(source).compactMap { $0["uri"]?.stringValue }
        // A gateway 503 that never reached the playlist (the canned answer skips the handler).
        _ = try await library.fake.call(
            "POST", "/_fake/fail",
            form: [("path", "/v1/playlists/\(target)/items"), ("method", "POST"), ("status", "503")])
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        let added = try await library.run("spotify-playlists", ["add", target], stdin: source.stdout)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(
            try await library.counters()["requests"]?["POST /v1/playlists/{id}/items"]?.intValue == 4,
            "the lost batch once more")
        #expect(try await Self.uris(library, target) == before + items)
    }

    @Test func aWriteThatKeepsFailingSaysWhatLanded() async throws {
        let library = try await Self.editor()
        let target = generated(40)
        let source = try await library.tracks(["--no-cache", generated(250)])
        let first = try await library.run("spotify-playlists", ["add", target], stdin: source.stdout)
        #expect(first.status == 0, "\(first.stderr)")
        // Now every send of the first batch gets a 503 that never reaches the playlist.
        _ = try await library.fake.call(
            "POST", "/_fake/fail",
            form: [("path", "/v1/playlists/\(target)/items"), ("method", "POST"), ("status", "503"), ("count", "3")])
        let added = try await library.run("spotify-playlists", ["add", target], stdin: source.stdout)
        #expect(added.status == 69, "\(added.stderr)")
        #expect(added.stderr.contains("playlist \(target) holds 0 of the 250 items asked for"), "\(added.stderr)")
        #expect(
            added.stderr.contains("add the rest with: spotify-playlists add \(target) --position 290 <"),
            "\(added.stderr)")
        #expect(try await Self.uris(library, target).count == 40 + 250, "nothing of the failed run landed")
    }

    @Test func likedSongsAreSavedAndRemovedFortyARequest() async throws {
        let library = try await Self.editor()
        let source = try await library.tracks(["--no-cache", generated(90)])
        let items = try records(source).compactMap { $0["uri"]?.stringValue }
        let saved = try await library.run("spotify-playlists", ["add", "--liked"], stdin: source.stdout)
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(saved.stdout == "")
        #expect(saved.stderr.contains("saved 90 items to your Liked Songs"), "\(saved.stderr)")
        #expect(try await library.counters()["requests"]?["PUT /v1/me/library"]?.intValue == 3, "batches of 40")
        let liked = try await library.tracks(["--liked"])
        let likedURIs = try records(liked).compactMap { $0["uri"]?.stringValue }
        #expect(Set(likedURIs.prefix(90)) == Set(items), "the new ones come first")

        let removed = try await library.run(
            "spotify-playlists", ["remove", "--liked"], stdin: items.prefix(10).joined(separator: "\n") + "\n")
        #expect(removed.status == 0, "\(removed.stderr)")
        let after = try records(try await library.tracks(["--liked"])).compactMap { $0["uri"]?.stringValue }
        #expect(Set(after).isDisjoint(with: items.prefix(10)))
        #expect(after.count == likedURIs.count - 10)

        let readOnly = try await Library()
        let refused = try await readOnly.run("spotify-playlists", ["add", "--liked"], stdin: items[0] + "\n")
        #expect(refused.status == 77)
        #expect(refused.stderr.contains("spotify-auth login --scope edit"), "\(refused.stderr)")
        let both = try await library.run("spotify-playlists", ["add", "--liked", generated(3)], stdin: items[0] + "\n")
        #expect(both.status == 64)
    }

    @Test func deleteUnfollowsAndSaysThatSpotifyHasNoDelete() async throws {
        let library = try await Self.editor()
        let created = try await library.run("spotify-playlists", ["create", "--allow-empty", "Short-lived"])
        let id = try #require(try records(created).first?["id"]?.stringValue)
        let deleted = try await library.run("spotify-playlists", ["delete", id])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(try records(deleted).first?["name"] == "Short-lived", "the record as it was")
        #expect(deleted.stderr.contains("Spotify has no real delete"), "\(deleted.stderr)")
        let list = try await library.run("spotify-playlists", [])
        #expect(!(try records(list)).contains { $0["id"]?.stringValue == id }, "gone from the library")
        let plan = try await library.run("spotify-playlists", ["delete", "--dry-run", generated(3)])
        #expect(try records(plan).first?["action"] == "delete")
    }

    @Test func aLostCreateIsFoundNotMadeTwice() async throws {
        let library = try await Self.editor()
        try await library.fault([("kind", "reset"), ("at", "2"), ("path_prefix", "/v1/me/playlists")])
        let created = try await library.run(
            "spotify-playlists", ["create", "Only once"], stdin: "spotify:track:5xZpAwlSQAc00000000000\n")
        #expect(created.status == 0, "\(created.stderr)")
        let list = try await library.run("spotify-playlists", [])
        #expect(try records(list).filter { $0["name"] == "Only once" }.count == 1)
    }
}
