import Foundation
import Testing

@testable import SpotifyClient
@testable import ToolkitCore
@testable import Tools

/// `spotify-playlists history`, `diff` and `restore` against fake-spotify: versions kept by reads
/// and by our writes, another client's edit named exactly, and a version put back with its dates.
@Suite(.tags(.medium)) struct PlaylistHistoryCommandTests {
    /// The history on (tests keep it off unless they turn it on, as the cache).
    static let on = ["SPOTIFY_TOOLKIT_HISTORY_SIZE": "64M"]

    /// Positions another client removes: 30 of 300, spread over the playlist.
    static let removedPositions = Array(stride(from: 7, to: 300, by: 10))

    /// A 300-item playlist read by spotify-tracks, edited by another client (30 removed, one moved)
    /// and read again: the two reads' records.
    static func editedByAnotherClient(_ library: Library, _ id: String) async throws -> (
        first: [JSONValue], second: [JSONValue]
    ) {
        let first = try await library.tracks([id], environment: Self.on)
        #expect(first.status == 0, "\(first.stderr)")
        let removal = try await library.fake.call(
            "POST", "/_fake/other-client",
            form: [("id", id), ("remove_positions", removedPositions.map(String.init).joined(separator: ","))])
        #expect(removal["total"] == 270, "\(removal)")
        let move = try await library.fake.call(
            "POST", "/_fake/other-client", form: [("id", id), ("range_start", "0"), ("insert_before", "100")])
        #expect(move["total"] == 270, "\(move)")
        #expect(move["snapshot_id"] != removal["snapshot_id"], "each write is a new version")
        let second = try await library.tracks([id], environment: Self.on)
        #expect(second.status == 0, "\(second.stderr)")
        return (try records(first), try records(second))
    }

    @Test func anotherClientsEditIsListedDiffedAndRestoredWithItsDates() async throws {
        let library = try await PlaylistWriteTests.editor()
        defer { library.fake.stop() }
        let id = generated(300)
        let (first, second) = try await Self.editedByAnotherClient(library, id)
        #expect(first.count == 300 && second.count == 270)
        let firstSnapshot = try #require(first[0]["playlist"]?["snapshot_id"]?.stringValue)
        let secondSnapshot = try #require(second[0]["playlist"]?["snapshot_id"]?.stringValue)
        #expect(firstSnapshot != secondSnapshot)

        // history: both versions, newest first.
        let history = try await library.run("spotify-playlists", ["history", id], environment: Self.on)
        #expect(history.status == 0, "\(history.stderr)")
        let versions = try records(history)
        #expect(versions.map { $0["snapshot_id"]?.stringValue } == [secondSnapshot, firstSnapshot])
        #expect(versions.map { $0["items_total"]?.intValue } == [270, 300])
        #expect(versions.allSatisfy { $0["type"] == "playlist_version" && $0["met_by"] == "read" })
        #expect(versions.allSatisfy { $0["playlist"]?.stringValue == id && $0["seen_at"]?.stringValue != nil })

        // diff: exactly the 30 removed, nothing added; who added them and when kept.
        let removedURIs = Self.removedPositions.compactMap { first[$0]["uri"]?.stringValue }
        let diff = try await library.run("spotify-playlists", ["diff", id], environment: Self.on)
        #expect(diff.status == 0, "\(diff.stderr)")
        let changes = try records(diff)
        #expect(!changes.contains { $0["action"] == "add" }, "\(diff.stdout)")
        let removed = changes.filter { $0["action"] == "remove" }
        let named = removed.flatMap { $0["items"]?.arrayValue ?? [] }.compactMap(\.stringValue)
        #expect(named.count == 30 && Set(named) == Set(removedURIs), "\(named)")
        let entries = removed.flatMap { $0["entries"]?.arrayValue ?? [] }
        #expect(entries.count == 30)
        for entry in entries {
            let position = try #require(entry["position"]?.intValue)
            #expect(entry["uri"] == first[position]["uri"], "\(entry)")
            #expect(entry["added_at"] == first[position]["added_at"], "\(entry)")
            // Who added it, as the read record said (`added_by: {id}`, null where Spotify names nobody).
            #expect(entry["added_by"] == (first[position]["added_by"]?["id"] ?? .null), "\(entry)")
        }
        #expect(changes.count { $0["action"] == "move" } == 1, "\(diff.stdout)")
        #expect(diff.stderr.contains("300 → 270 items: 30 removed, 1 moved"), "\(diff.stderr)")
        // The same, named in full.
        let named2 = try await library.run(
            "spotify-playlists", ["diff", id, firstSnapshot, secondSnapshot], environment: Self.on)
        #expect(named2.stdout == diff.stdout)

        // restore: all 300 back in their order, the 270 never removed with their dates.
        let restore = try await library.run("spotify-playlists", ["restore", id, firstSnapshot], environment: Self.on)
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(restore.stderr.contains("270 → 300 items: 30 added, 1 moved, dates kept for 270"), "\(restore.stderr)")
        let after = try records(try await library.tracks([id], environment: Self.on))
        #expect(after.compactMap { $0["uri"]?.stringValue } == first.compactMap { $0["uri"]?.stringValue })
        let removedSet = Set(Self.removedPositions)
        for (position, record) in after.enumerated() where !removedSet.contains(position) {
            #expect(record["added_at"] == first[position]["added_at"], "position \(position)")
        }
        // The write's version is kept, and undo puts back what it replaced.
        let later = try records(try await library.run("spotify-playlists", ["history", id], environment: Self.on))
        #expect(later.first?["met_by"] == "restore" && later.first?["items_total"] == 300, "\(later)")
        let undo = try await library.run("spotify-playlists", ["undo", "--dry-run", id], environment: Self.on)
        #expect(undo.status == 0 && undo.stderr.contains("300 → 270 items"), "\(undo.stderr)")
        // Already that version: nothing to change.
        let again = try await library.run("spotify-playlists", ["restore", id, firstSnapshot], environment: Self.on)
        #expect(again.status == 0 && again.stderr.contains("nothing to change"), "\(again.stderr)")
    }

    @Test func restoreDryRunPrintsThePlanAndSendsNoWrite() async throws {
        let library = try await PlaylistWriteTests.editor()
        defer { library.fake.stop() }
        let id = generated(300)
        let (first, _) = try await Self.editedByAnotherClient(library, id)
        let firstSnapshot = try #require(first[0]["playlist"]?["snapshot_id"]?.stringValue)
        try await library.fake.call("POST", "/_fake/reset-counters")
        let run = try await library.run(
            "spotify-playlists", ["restore", "--dry-run", id, String(firstSnapshot)], environment: Self.on)
        #expect(run.status == 0, "\(run.stderr)")
        let changes = try records(run)
        let added = changes.filter { $0["action"] == "add" }.flatMap { $0["items"]?.arrayValue ?? [] }
        #expect(added.count == 30)
        let requests = try await library.counters()["requests"]?.objectValue?.keys ?? []
        #expect(!requests.contains { !$0.hasPrefix("GET") && $0.contains("/v1/") }, "\(requests)")
        #expect(try await PlaylistWriteTests.uris(library, id).count == 270)
    }

    @Test func aVersionNeverKeptIsAClearErrorAndChangesNothing() async throws {
        let library = try await PlaylistWriteTests.editor()
        defer { library.fake.stop() }
        let id = generated(40)
        let none = try await library.run("spotify-playlists", ["history", id], environment: Self.on)
        #expect(none.status == 1 && none.stdout.isEmpty && none.stderr.contains("no version of playlist"))
        _ = try await library.tracks([id], environment: Self.on)
        try await library.fake.call("POST", "/_fake/reset-counters")
        let run = try await library.run("spotify-playlists", ["restore", id, "AAAAnever-seen"], environment: Self.on)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("has no version 'AAAAnever-seen' kept (1 kept"), "\(run.stderr)")
        let requests = try await library.counters()["requests"]?.objectValue?.keys ?? []
        #expect(!requests.contains { $0.contains("/items") && !$0.hasPrefix("GET") }, "\(requests)")
        // diff with one version kept says how to compare it with the playlist as it is.
        let diff = try await library.run("spotify-playlists", ["diff", id], environment: Self.on)
        #expect(diff.status == 1 && diff.stderr.contains("now"), "\(diff.stderr)")
        let usage = try await library.run("spotify-playlists", ["restore", id, "now"], environment: Self.on)
        #expect(usage.status == 64, "\(usage.stderr)")
    }

    @Test func diffAgainstNowReadsThePlaylistAndKeepsThatVersion() async throws {
        let library = try await PlaylistWriteTests.editor()
        defer { library.fake.stop() }
        let id = generated(120)
        let first = try records(try await library.tracks([id], environment: Self.on))
        let snapshot = try #require(first[0]["playlist"]?["snapshot_id"]?.stringValue)
        let added = try await library.fake.call(
            "POST", "/_fake/other-client",
            form: [("id", id), ("add", "spotify:track:4iV5W9uYEdYUVa79Axb7Rh"), ("position", "3")])
        #expect(added["total"] == 121)
        // A prefix names the version.
        let diff = try await library.run(
            "spotify-playlists", ["diff", id, String(snapshot.prefix(30)), "now"], environment: Self.on)
        #expect(diff.status == 0, "\(diff.stderr)")
        let changes = try records(diff)
        #expect(changes.count == 1 && changes.first?["action"] == "add" && changes.first?["position"] == 3)
        let entry = try #require(changes.first?["entries"]?.arrayValue?.first)
        #expect(entry["added_by"] == "another-user" && entry["uri"] == "spotify:track:4iV5W9uYEdYUVa79Axb7Rh")
        let history = try records(try await library.run("spotify-playlists", ["history", id], environment: Self.on))
        #expect(history.map { $0["items_total"]?.intValue } == [121, 120])
    }

    @Test func historyOnATerminalIsATable() async throws {
        let library = try await PlaylistWriteTests.editor()
        defer { library.fake.stop() }
        let id = generated(30)
        _ = try await library.tracks([id], environment: Self.on)
        let run = try await library.run(
            "spotify-playlists", ["history", id],
            environment: Self.on.merging(["SPOTIFY_TOOLKIT_FORCE_TTY": "1", "COLUMNS": "100"]) { $1 })
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].hasPrefix("SEEN") && lines[1].contains("read"), "\(run.stdout)")
    }

    @Test func aDamagedHistoryIsRefusedThenSetAsideByTheNextRead() async throws {
        let library = try await PlaylistWriteTests.editor()
        defer { library.fake.stop() }
        let id = generated(20)
        _ = try await library.tracks([id], environment: Self.on)
        let store = try PlaylistVersions(
            environment: ToolEnvironment(library.fake.environment(Self.on)), clock: { 0 })
        let path = store.path(of: id)
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        data[data.count / 2] ^= 0x20
        try data.write(to: URL(fileURLWithPath: path))
        let refused = try await library.run("spotify-playlists", ["history", id], environment: Self.on)
        #expect(refused.status == 65 && refused.stderr.contains(path), "\(refused.stderr)")
        // A read sets it aside (saying so) and begins again; it is never printed from.
        _ = try await library.fake.call("POST", "/_fake/edit-playlist", form: [("id", id)])
        let read = try await library.tracks([id], environment: Self.on)
        #expect(read.status == 0 && read.stderr.contains("set aside"), "\(read.stderr)")
        #expect(FileManager.default.fileExists(atPath: store.directory.file(id + ".damaged")))
        let history = try records(try await library.run("spotify-playlists", ["history", id], environment: Self.on))
        #expect(history.count == 1)
    }

    @Test func aCopyPrintedFromTheCacheIsKeptWhenTheHistoryLacksIt() async throws {
        let library = try await PlaylistWriteTests.editor()
        defer { library.fake.stop() }
        let id = generated(130)
        let cacheOnly = ["SPOTIFY_TOOLKIT_CACHE_SIZE": "16M"]
        let fetched = try await library.tracks([id], environment: cacheOnly)
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let none = try await library.run("spotify-playlists", ["history", id], environment: Self.on)
        #expect(none.status == 1, "the history was off: \(none.stdout)")
        try await library.fake.call("POST", "/_fake/reset-counters")
        let both = cacheOnly.merging(Self.on) { $1 }
        let served = try await library.tracks([id], environment: both)
        #expect(served.stdout == fetched.stdout)
        let requests = try await library.counters()["requests"]?.objectValue ?? [:]
        #expect(requests.values.reduce(0) { $0 + ($1.intValue ?? 0) } == 1, "served from the cache: \(requests)")
        let history = try records(try await library.run("spotify-playlists", ["history", id], environment: Self.on))
        #expect(history.map { $0["items_total"]?.intValue } == [130])
        #expect(history.first?["snapshot_id"] == (try records(fetched)).first?["playlist"]?["snapshot_id"])
        // Served again: nothing more to keep.
        _ = try await library.tracks([id], environment: both)
        #expect(
            try records(try await library.run("spotify-playlists", ["history", id], environment: Self.on)).count == 1)
    }
}
