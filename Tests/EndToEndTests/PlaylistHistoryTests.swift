import Foundation
import Testing

@testable import SpotifyClient
@testable import ToolkitCore

/// A playlist's versions with the built tools and fake-spotify as processes: another client removes
/// 30 of 300 items and moves one, both versions read by spotify-tracks; history lists both, diff
/// names exactly the 30, and restore brings all 300 back with the dates of those never removed.
/// And spotify-tracks processes racing to keep versions in one history directory.
@Suite(.tags(.large)) struct PlaylistHistoryEndToEndTests {
    static let scope =
        """
        playlist-read-private playlist-read-collaborative user-library-read user-library-modify \
        playlist-modify-private playlist-modify-public
        """

    final class Setup: @unchecked Sendable {  // immutable after init
        let fake: FakeSpotifyProcess

        init() throws {
            fake = try FakeSpotifyProcess()
            try fake.seedLogin(expiresIn: 3600, scope: PlaylistHistoryEndToEndTests.scope)
        }

        /// The history on (tests keep it off unless they turn it on), under the fake's home.
        var environment: [String: String] {
            fake.environment([
                PlaylistVersions.sizeVariable: "", "XDG_DATA_HOME": fake.home.url.appendingPathComponent("data").path,
            ])
        }

        var versionsDirectory: String {
            fake.home.url.appendingPathComponent("data").path + "/spotify-toolkit/playlist-versions"
        }

        func run(_ tool: String, _ arguments: [String]) throws -> ToolResult {
            try ToolProcess.run(tool, arguments, environment: environment, timeout: 120)
        }

        func records(_ result: ToolResult) throws -> [JSONValue] {
            try result.stdoutLines.map { try JSONValue.parse($0) }
        }
    }

    @Test func anotherClientRemovesThirtyAndMovesOneThenHistoryDiffAndRestore() throws {
        let setup = try Setup()
        let id = "gen0000000000000000300"
        let firstRead = try setup.run("spotify-tracks", [id])
        #expect(firstRead.status == 0, "\(firstRead.stderr)")
        let first = try setup.records(firstRead)
        #expect(first.count == 300)
        let removedPositions = Array(stride(from: 3, to: 300, by: 10))
        try setup.fake.call(
            "POST", "/_fake/other-client",
            form: [("id", id), ("remove_positions", removedPositions.map(String.init).joined(separator: ","))])
        try setup.fake.call(
            "POST", "/_fake/other-client", form: [("id", id), ("range_start", "250"), ("insert_before", "0")])
        let second = try setup.records(try setup.run("spotify-tracks", [id]))
        #expect(second.count == 270)

        let history = try setup.run("spotify-playlists", ["history", id])
        #expect(history.status == 0, "\(history.stderr)")
        let versions = try setup.records(history)
        #expect(versions.map { $0["items_total"]?.intValue } == [270, 300])
        let firstSnapshot = try #require(versions.last?["snapshot_id"]?.stringValue)
        #expect(first[0]["playlist"]?["snapshot_id"]?.stringValue == firstSnapshot)

        let diff = try setup.run("spotify-playlists", ["diff", id])
        #expect(diff.status == 0, "\(diff.stderr)")
        let changes = try setup.records(diff)
        #expect(!changes.contains { $0["action"] == "add" })
        let removed = changes.filter { $0["action"] == "remove" }.flatMap { $0["items"]?.arrayValue ?? [] }
        #expect(
            Set(removed.compactMap(\.stringValue)) == Set(removedPositions.compactMap { first[$0]["uri"]?.stringValue })
        )
        #expect(removed.count == 30)

        let restore = try setup.run("spotify-playlists", ["restore", id, firstSnapshot])
        #expect(restore.status == 0, "\(restore.stderr)")
        let after = try setup.records(try setup.run("spotify-tracks", [id]))
        #expect(after.map { $0["uri"] } == first.map { $0["uri"] })
        let removedSet = Set(removedPositions)
        let keptDates = after.indices.filter { !removedSet.contains($0) }.filter {
            after[$0]["added_at"] == first[$0]["added_at"]
        }
        #expect(keptDates.count == 270, "the 270 never removed keep their dates")
    }

    @Test func racingReadersEachKeepTheirVersionsWhole() throws {
        let setup = try Setup()
        let ids = (0..<6).map { "gen" + String(repeating: "0", count: 16) + String(200 + $0) }
        // Six processes on six playlists and six more on one, all at once.
        let runs = Locked<[ToolResult]>([])
        DispatchQueue.concurrentPerform(iterations: 12) { index in
            let id = index < 6 ? ids[index] : ids[0]
            if let result = try? setup.run("spotify-tracks", [id]) { runs.withLock { $0.append(result) } }
        }
        let results = runs.withLock { $0 }
        #expect(results.count == 12 && results.allSatisfy { $0.status == 0 }, "\(results.map(\.stderr))")
        let store = PlaylistVersions(
            directory: setup.versionsDirectory, maxVersions: 100, maxBytes: 1 << 30, maxTotalBytes: 1 << 30,
            clock: { 0 })
        for (number, id) in ids.enumerated() {
            let book = try store.book(id)
            #expect(book.count == 1, "\(id): one version, however many read it")
            #expect(book.summaries.first?.itemsTotal == 200 + number)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: setup.versionsDirectory)
        #expect(!names.contains { $0.contains(".tmp-") || $0.hasSuffix(".damaged") }, "\(names)")
    }
}
