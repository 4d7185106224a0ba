import Foundation
import Testing

@testable import FakeSpotify
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// The replace guard fed what spotify-tracks really prints, a
/// read whose last short page failed, a write that changed nothing hiding the one before it
/// from undo, create past the 10,000-item limit, and another client's removal during a
/// long write. In-process against fake-spotify.
@Suite(.tags(.medium)) struct WriteGuardHardeningTests {
    static let quick = PlaylistEditCommandTests.quick

    static func lines(_ records: [JSONValue]) -> String { records.map { $0.serialized() + "\n" }.joined() }

    /// `spotify-tracks P > recs; another client adds 3; replace P < recs` (as is, through a
    /// filter, and from --offline's cached copy) is refused, 75, naming the change; --force replaces.
    @Test func recordsOfAPlaylistChangedSinceTheReadAreRefusedUnlessForced() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(120)
        let cache = ["SPOTIFY_TOOLKIT_CACHE_SIZE": "10M"]
        let read = try await library.tracks([id], environment: cache)  // kept, for --offline below
        #expect(read.status == 0, "\(read.stderr)")
        let printed = try records(read)
        #expect(printed.count == 120)
        let snapshot = try #require(printed.first?["playlist"]?["snapshot_id"]?.stringValue, "\(printed.first!)")
        #expect(printed.allSatisfy { $0["playlist"]?["snapshot_id"]?.stringValue == snapshot })
        let original = printed.compactMap { $0["uri"]?.stringValue }

        let extra = Array(try await PlaylistWriteTests.uris(library, generated(10)).prefix(3))
        let added = try await library.run(
            "spotify-playlists", ["add", id], stdin: PlaylistEditCommandTests.lines(extra))
        #expect(added.status == 0, "\(added.stderr)")

        // jq -c 'select(.duration_ms < …)': a filter that keeps most.
        let filtered = printed.enumerated().filter { $0.offset % 7 != 3 }.map(\.element)
        let offline = try await library.tracks(["--offline", id], environment: cache)
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(offline.stdout == read.stdout, "the cached copy's records name the snapshot it was read at")
        for (what, input) in [("as printed", printed), ("filtered", filtered), ("offline", try records(offline))] {
            let refused = try await library.run(
                "spotify-playlists", ["replace", id], stdin: Self.lines(input), environment: Self.quick)
            #expect(refused.status == 75, "\(what): \(refused.stderr)")
            #expect(
                refused.stderr.contains("at snapshot_id \(snapshot), and it has changed since"), "\(refused.stderr)")
            #expect(refused.stderr.contains("nothing was written"), "\(refused.stderr)")
        }
        #expect(try await PlaylistWriteTests.uris(library, id) == original + extra, "the other client's 3 stay")

        let forced = try await library.run(
            "spotify-playlists", ["replace", "--force", id], stdin: Self.lines(printed), environment: Self.quick)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try await PlaylistWriteTests.uris(library, id) == original)
    }

    /// 120 items, the page at offset 100 answering 503 every time: spotify-tracks prints the
    /// first 100 and fails; those records, through a filter, into replace, change nothing.
    @Test func aReadWhoseShortLastPageFailedChangesNothing() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(120)
        let before = try await PlaylistEditCommandTests.entries(library, id)
        try await library.fault([
            ("kind", "server_error"), ("every", "1"), ("path_prefix", "/v1/playlists/\(id)/items"), ("offset", "100"),
        ])
        let read = try await library.tracks(["--no-cache", id])
        #expect(read.status == 69, "the read failed: \(read.stderr)")
        let partial = try records(read)
        #expect(partial.count == 100, "\(partial.count)")
        _ = try await library.fake.call("POST", "/_fake/clear-faults")
        // jq -c 'select(.duration_ms > 0)'
        let kept = partial.filter { ($0["duration_ms"]?.intValue ?? 0) > 0 }
        let refused = try await library.run(
            "spotify-playlists", ["replace", id], stdin: Self.lines(kept), environment: Self.quick)
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("the 20 items after it are not in the input"), "\(refused.stderr)")
        #expect(try await PlaylistEditCommandTests.entries(library, id) == before, "nothing was written")
    }

    /// The cut-short rule, pure: the fewest items a read cut short lacks is the size of its last page.
    @Test func theCutShortSlackIsTheLastPage() {
        #expect(ReplaceGuard.cutShortSlack(of: 120) == 20)
        #expect(ReplaceGuard.cutShortSlack(of: 149) == 49)
        #expect(ReplaceGuard.cutShortSlack(of: 170) == 20)
        #expect(ReplaceGuard.cutShortSlack(of: 150) == 50)
        #expect(ReplaceGuard.cutShortSlack(of: 1) == 1)
        #expect(ReplaceGuard.cutShortSlack(of: 0) == 50)
    }

    /// Sort, then a remove whose DELETE is refused: undo still restores the order before the sort.
    @Test func aWriteThatChangedNothingDoesNotHideTheOneBeforeFromUndo() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(40)
        let original = try await PlaylistEditCommandTests.entries(library, id)
        let sorted = try await library.run("spotify-playlists", ["sort", id, "--by", "name"], environment: Self.quick)
        #expect(sorted.status == 0, "\(sorted.stderr)")
        let sortedEntries = try await PlaylistEditCommandTests.entries(library, id)
        #expect(sortedEntries != original)

        // Every DELETE fails before it is carried out; the reads that settle it go through.
        try await library.fault([
            ("kind", "server_error"), ("status", "500"), ("every", "1"), ("carry", "no"), ("method", "DELETE"),
            ("path_prefix", "/v1/playlists/\(id)/items"),
        ])
        let removed = try await library.run(
            "spotify-playlists", ["remove", id],
            stdin: PlaylistEditCommandTests.lines(sortedEntries.prefix(3).compactMap(\.uri)), environment: Self.quick)
        _ = try await library.fake.call("POST", "/_fake/clear-faults")
        #expect(removed.status != 0, "\(removed.stderr)")
        #expect(removed.stderr.contains("nothing was changed"), "\(removed.stderr)")
        #expect(!removed.stderr.contains("put it back with"), "\(removed.stderr)")
        #expect(try await PlaylistEditCommandTests.entries(library, id) == sortedEntries)

        let undone = try await library.run("spotify-playlists", ["undo", id], environment: Self.quick)
        #expect(undone.status == 0, "\(undone.stderr)")
        #expect(undone.stderr.contains("undoing the sort"), "\(undone.stderr)")
        #expect(try await PlaylistEditCommandTests.entries(library, id) == original)
    }

    /// Another client removes an item while a replace is part-way; the next move, planned for
    /// the playlist as it was, is refused (400, out of bounds). That is 75 with what the playlist
    /// holds, not 65 with a count from the model and a "finish" that would put the item back.
    @Test func anotherClientsRemovalPartWayIs75NotARefusal() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(40)
        let before = try await PlaylistWriteTests.uris(library, id)
        // One DELETE (before[5]), then one range move (before[0] to the end, insert_before 39).
        let wanted = Array(before[1..<5]) + Array(before[6...]) + [before[0]]
        // The move waits in the fake before it is carried out; meanwhile another client removes one.
        try await library.fault([
            ("kind", "delay"), ("at", "1"), ("delay_ms", "3000"), ("method", "PUT"),
            ("path_prefix", "/v1/playlists/\(id)/items"),
        ])
        let write = Task {
            try await library.run(
                "spotify-playlists", ["replace", id], stdin: PlaylistEditCommandTests.lines(wanted),
                environment: Self.quick)
        }
        // Until the move has arrived (bounded: 3,000 looks).
        for _ in 0..<3000 {
            if try await PlaylistEditCommandTests.requests(library, "PUT /v1/playlists/{id}/items") > 0 { break }
            try await Task.sleep(nanoseconds: 2_000_000)
        }
        let other = try await HTTPTestClient.fetch(
            URL(string: library.fake.base + "/v1/playlists/\(id)/items")!, method: "DELETE",
            body: Data(#"{"items":[{"uri":"\#(before[10])"}]}"#.utf8),
            headers: ["Authorization": "Bearer \(library.tokens.accessToken)", "Content-Type": "application/json"])
        #expect(other.status == 200, "\(other.text)")
        let run = try await write.value
        #expect(run.status == 75, "\(run.stderr)")
        #expect(run.stderr.contains("changed meanwhile (someone else edited it): it holds 38 items"), "\(run.stderr)")
        #expect(!run.stderr.contains("finish with"), "\(run.stderr)")
    }

    /// When the file of items to finish with cannot be written, the report of a write that
    /// stopped still says what the playlist holds and how to undo it.
    @Test func aStoppedWriteWhoseFinishFileCannotBeWrittenStillSaysHowToUndo() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(40)
        let before = try await PlaylistWriteTests.uris(library, id)
        let wanted = Array(before[1..<5]) + Array(before[6...]) + [before[0]]
        // The DELETE lands; every move fails before it is carried out.
        try await library.fault([
            ("kind", "server_error"), ("every", "1"), ("carry", "no"), ("method", "PUT"),
            ("path_prefix", "/v1/playlists/\(id)/items"),
        ])
        // Where the directory of unfinished writes belongs, a file.
        let state = library.fake.environment()["XDG_STATE_HOME"]! + "/spotify-toolkit"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        chmod(state, 0o700)
        _ = FileManager.default.createFile(atPath: state + "/unfinished", contents: Data("not a directory".utf8))
        let run = try await library.run(
            "spotify-playlists", ["replace", id], stdin: PlaylistEditCommandTests.lines(wanted),
            environment: Self.quick)
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.stderr.contains("the items to finish with could not be kept"), "\(run.stderr)")
        #expect(run.stderr.contains("holds 39 items, after 1 of 2 requests"), "\(run.stderr)")
        #expect(run.stderr.contains("put it back with: spotify-playlists undo \(id)"), "\(run.stderr)")
        #expect(!run.stderr.contains("finish with: spotify-playlists replace"), "\(run.stderr)")
    }

    /// Rewrite keeps at most 64 MiB of COMMAND's output; past it the command is stopped and
    /// nothing is written.
    @Test func rewriteStopsACommandThatPrintsWithoutEnd() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(10)
        let before = try await PlaylistWriteTests.uris(library, id)
        let flood = "yes spotify:track:4iV5W9uYEdYUVa79Axb7Rh | head -c 70000000"
        let run = try await library.run("spotify-playlists", ["rewrite", id, "--", "/bin/sh", "-c", flood])
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("printed more than 64 MiB"), "\(run.stderr)")
        #expect(try await PlaylistWriteTests.uris(library, id) == before)
    }

    /// While another destructive write of the playlist runs on this machine, a second one
    /// changes nothing and says so (75); once it is over, the second goes through.
    @Test func twoDestructiveWritesOfOnePlaylistDoNotRunAtOnce() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(20)
        let before = try await PlaylistEditCommandTests.entries(library, id)
        let undo = PrivateDirectory(library.fake.environment()["XDG_STATE_HOME"]! + "/spotify-toolkit/undo")
        let held = try await undo.lock(id + ".lock").withLock {
            try await library.run("spotify-playlists", ["sort", id, "--by", "name"], environment: Self.quick)
        }
        #expect(held.status == 75, "\(held.stderr)")
        #expect(held.stderr.contains("another spotify-playlists is changing playlist \(id)"), "\(held.stderr)")
        #expect(try await PlaylistEditCommandTests.entries(library, id) == before)
        let alone = try await library.run("spotify-playlists", ["sort", id, "--by", "name"], environment: Self.quick)
        #expect(alone.status == 0, "\(alone.stderr)")
    }

    /// A write killed part-way (SIGKILL) never records what it left; undo takes the playlist
    /// as that write's when it holds what the write could have left, without --force; another
    /// client's new item still needs --force.
    @Test func undoAfterAKilledWriteNeedsNoForceUnlessSomeoneElseChangedIt() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(30)
        let original = try await PlaylistEditCommandTests.entries(library, id)
        let sorted = try await library.run("spotify-playlists", ["sort", id, "--by", "name"], environment: Self.quick)
        #expect(sorted.status == 0, "\(sorted.stderr)")
        // The journal as a sort killed after its requests left it: begun, never updated.
        let path = library.fake.environment()["XDG_STATE_HOME"]! + "/spotify-toolkit/undo/\(id).json"
        var journal = try #require(try JSONValue.parse(String(contentsOfFile: path, encoding: .utf8)).objectValue)
        var entries = try #require(journal["entries"]?.arrayValue)
        var last = try #require(entries.last?.objectValue)
        #expect(last["planned"]?.arrayValue?.isEmpty == false)
        last["after"] = last["before"]
        last["complete"] = false
        entries[entries.count - 1] = .object(last)
        journal["entries"] = .array(entries)
        try Data((JSONValue.object(journal).serialized() + "\n").utf8).write(to: URL(fileURLWithPath: path))

        let undone = try await library.run("spotify-playlists", ["undo", id], environment: Self.quick)
        #expect(undone.status == 0, "\(undone.stderr)")
        #expect(undone.stderr.contains("(which did not finish)"), "\(undone.stderr)")
        #expect(try await PlaylistEditCommandTests.entries(library, id).map(\.uri) == original.map(\.uri))

        // Killed again, and then someone adds an item: that is not the write's, so --force is needed.
        let again = try await library.run("spotify-playlists", ["sort", id, "--by", "name"], environment: Self.quick)
        #expect(again.status == 0, "\(again.stderr)")
        journal = try #require(try JSONValue.parse(String(contentsOfFile: path, encoding: .utf8)).objectValue)
        entries = try #require(journal["entries"]?.arrayValue)
        last = try #require(entries.last?.objectValue)
        last["after"] = last["before"]
        last["complete"] = false
        entries[entries.count - 1] = .object(last)
        journal["entries"] = .array(entries)
        try Data((JSONValue.object(journal).serialized() + "\n").utf8).write(to: URL(fileURLWithPath: path))
        let extra = try #require(try await PlaylistWriteTests.uris(library, generated(10)).first)
        _ = try await library.run("spotify-playlists", ["add", id], stdin: extra + "\n")
        let refused = try await library.run("spotify-playlists", ["undo", id], environment: Self.quick)
        #expect(refused.status == 75, "\(refused.stderr)")
    }

    /// A create of 10,001 items sends nothing and exits 65.
    @Test func createPastTheLimitSendsNothing() async throws {
        let library = try await PlaylistWriteTests.editor()
        let uris = (0...10_000).map {
            "spotify:track:" + String(repeating: "0", count: 16) + String(format: "%06d", $0)
        }
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        let run = try await library.run(
            "spotify-playlists", ["create", "Big"], stdin: PlaylistEditCommandTests.lines(uris))
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("10,001 items would pass the 10,000 a playlist can hold"), "\(run.stderr)")
        #expect(try await library.counters()["requests"]?["POST /v1/me/playlists"]?.intValue ?? 0 == 0)
        #expect(try await library.counters()["requests"]?["POST /v1/playlists/{id}/items"]?.intValue ?? 0 == 0)
    }
}
