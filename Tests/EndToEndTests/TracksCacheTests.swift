import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore

/// The snapshot cache where it needs processes: two spotify-tracks filling one entry at once, and
/// the README's Makefile. The rest runs in process (TracksCacheCommandTests).
@Suite(.tags(.large)) struct TracksCacheEndToEndTests {
    static let small = "gen0000000000000000120"  // 3 pages

    /// A fake-spotify, a login and a private cache directory for one test.
    final class Setup {
        let fake: FakeSpotifyProcess
        let cacheHome: String
        var extra: [String: String] = [:]

        init(_ arguments: [String] = []) throws {
            fake = try FakeSpotifyProcess(arguments)
            cacheHome = fake.home.url.appendingPathComponent("cache").path
            try fake.seedLogin(expiresIn: 3600)
        }

        /// The cache on, at its default size, unless `extra` says otherwise.
        var environment: [String: String] {
            fake.environment(["XDG_CACHE_HOME": cacheHome, CachePolicy.sizeVariable: ""].merging(extra) { $1 })
        }
        var playlistsDirectory: String { cacheHome + "/spotify-toolkit/playlists" }
        func entryPath(_ id: String) -> String { playlistsDirectory + "/\(id).jsonl" }

        func tracks(_ arguments: [String], stdin: String? = nil) throws -> ToolResult {
            try ToolProcess.run("spotify-tracks", arguments, stdin: stdin, environment: environment)
        }

        /// Requests by route since the last call, then reset.
        func requests() throws -> [String: Int] {
            let counters = try fake.counters()
            try fake.call("POST", "/_fake/reset-counters")
            var result: [String: Int] = [:]
            for (key, value) in counters["requests"]?.objectValue ?? [:] { result[key] = value.intValue ?? 0 }
            return result
        }

        func edit(_ id: String, position: Int = 0) throws -> JSONValue {
            try fake.call("POST", "/_fake/edit-playlist", form: [("id", id), ("position", String(position))])
        }
    }

    /// The playlist object: its snapshot_id with the first 100 entries, or the snapshot check.
    static let object = "GET /v1/playlists/{id}"
    static let items = "GET /v1/playlists/{id}/items"

    /// A fetch that fills the cache: the playlist object (snapshot, total and the first 100
    /// entries), the pages after those, and the snapshot check after them when there were any.
    static func filling(items count: Int) -> [String: Int] {
        count <= 100 ? [object: 1] : [object: 2, items: (count - 100 + 49) / 50]
    }

    @Test func twoProcessesFillingTheSameEntryAtOnce() throws {
        let setup = try Setup(["--latency-ms", "5"])
        let id = "gen0000000000000001000"
        let expected = try setup.tracks(["--no-cache", id])
        _ = try setup.requests()
        let results = LockedResults()
        let group = DispatchGroup()
        for _ in 0..<2 {
            group.enter()
            let environment = setup.environment
            Thread.detachNewThread {
                results.append(Result { try ToolProcess.run("spotify-tracks", [id], environment: environment) })
                group.leave()
            }
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        for result in results.all {
            let run = try result.get()
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == expected.stdout)
        }
        // Both filled (neither found an entry), and what is left is one whole entry.
        #expect(try setup.requests()[Self.items] == 2 * 18)
        let names = try FileManager.default.contentsOfDirectory(atPath: setup.playlistsDirectory)
        #expect(names == ["\(id).jsonl"])
        #expect(try setup.tracks([id]).stdout == expected.stdout)
        #expect(try setup.requests() == [Self.object: 1])
    }

    @Test func readmeMakefileRebuildsTheReportOnlyWhenThePlaylistChanged() throws {
        for tool in ["make", "jq"] {
            #expect(
                FileManager.default.isExecutableFile(atPath: "/usr/bin/\(tool)"),
                "the README recipe needs \(tool) (.ci/run installs it)")
        }
        let setup = try Setup()
        let readme = try String(contentsOf: Self.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let recipe = try #require(Self.fencedBlock(in: readme, language: "make"), "README.md has no ```make block")
        let directory = setup.fake.home.url.appendingPathComponent("report").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try recipe.write(toFile: directory + "/Makefile", atomically: true, encoding: .utf8)
        var environment = setup.environment
        environment["PLAYLIST"] = Self.small
        func make() throws -> ToolResult {
            try ToolProcess.shell("cd '\(directory)' && make --no-print-directory", environment: environment)
        }
        let report = directory + "/report.txt"

        let first = try make()
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let built = try String(contentsOfFile: report, encoding: .utf8)
        #expect(built.contains("\"type\":\"song_count\""))
        let builtAt = try modified(report)
        _ = try setup.requests()

        let again = try make()
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try modified(report) == builtAt)
        #expect(try String(contentsOfFile: report, encoding: .utf8) == built)
        #expect(try setup.requests() == [Self.object: 1])  // the record; spotify-tracks did not run

        _ = try setup.edit(Self.small)
        let rebuilt = try make()
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        let changed = try String(contentsOfFile: report, encoding: .utf8)
        #expect(changed != built)
        // The first 100 came with the playlist object, so at most the page after them: songcount
        // stops reading at 1 h (18 songs), and spotify-tracks may end on EPIPE before it asks.
        #expect(try (setup.requests()[Self.items] ?? 0) <= 1)
    }

    // MARK: Helpers

    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The first fenced block of `language` in a Markdown text.
    static func fencedBlock(in text: String, language: String) -> String? {
        guard let start = text.range(of: "```\(language)\n"),
            let end = text.range(of: "\n```", range: start.upperBound..<text.endIndex)
        else { return nil }
        return String(text[start.upperBound..<end.lowerBound]) + "\n"
    }

    func modified(_ path: String) throws -> Date {
        (try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? .distantPast
    }
}

final class LockedResults: @unchecked Sendable {  // guarded by lock
    private let lock = NSLock()
    private var results: [Result<ToolResult, Error>] = []
    func append(_ result: Result<ToolResult, Error>) { lock.withLock { results.append(result) } }
    var all: [Result<ToolResult, Error>] { lock.withLock { results } }
}
