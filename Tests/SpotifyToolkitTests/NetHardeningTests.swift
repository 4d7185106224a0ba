import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// The reliability review's network, number and cache defects, each reproduced in
/// process against an in-process fake-spotify.
@Suite(.tags(.medium)) struct NetHardeningTests {
    static let intMaxItem =
        #"{"item":{"type":"track","uri":"spotify:track:a","name":"a","duration_ms":9223372036854775807}}"#

    /// Serves `body` for the next `count` requests of `path`.
    static func can(_ library: Library, path: String, status: Int = 200, body: String? = nil, count: Int = 1)
        async throws
    {
        var form = [("path", path), ("status", String(status)), ("count", String(count))]
        if let body { form.append(("body", body)) }
        try await library.fake.call("POST", "/_fake/fail", form: form)
    }

    /// Cans the playlist object of `id` with `page` as its embedded first page (as a playlist's
    /// first request reads it), under the snapshot_id fake-spotify gives the playlist.
    static func canObject(_ library: Library, id: String, page: String, count: Int = 1) async throws {
        let record = try await library.run("spotify-playlists", ["get", id])
        let snapshot = try #require(try records(record).first?["snapshot_id"]?.stringValue)
        let object = #"{"id":"\#(id)","snapshot_id":"\#(snapshot)","items":\#(page)}"#
        try await can(library, path: "/v1/playlists/\(id)", body: object, count: count)
    }

    // Durations that add past Int64 must saturate, not trap, also from a cached copy.
    @Test func durationsPastInt64Saturate() async throws {
        let library = try await Library()
        let id = generated(2)
        let page = #"{"total":2,"items":[\#(Self.intMaxItem),\#(Self.intMaxItem)]}"#
        // The record, then the durations' read: the object, whose embedded page holds both items.
        try await Self.canObject(library, id: id, page: page, count: 2)
        let fresh = try await library.run("spotify-playlists", ["get", "--duration", "--no-cache", id])
        #expect(fresh.status == 0, "\(fresh.stderr)")
        #expect(try records(fresh).first?["duration_ms"]?.intValue == Int.max)

        let cache = ["SPOTIFY_TOOLKIT_CACHE_SIZE": "10M"]
        try await Self.canObject(library, id: id, page: page)
        let cached = try await library.tracks([id], environment: cache)
        #expect(cached.status == 0 && cached.stdoutLines.count == 2, "\(cached.stderr)")
        let fromCache = try await library.run("spotify-playlists", ["get", "--duration", id], environment: cache)
        #expect(fromCache.status == 0, "\(fromCache.stderr)")
        #expect(try records(fromCache).first?["duration_ms"]?.intValue == Int.max)
    }

    // The table total and a local playlist's duration saturate instead of wrapping.
    @Test func durationTotalsDoNotWrap() async throws {
        let library = try await Library()
        let id = generated(3)
        let page = #"{"total":3,"items":[\#(Self.intMaxItem),\#(Self.intMaxItem),\#(Self.intMaxItem)]}"#
        try await Self.canObject(library, id: id, page: page, count: 2)
        let table = try await library.tracks(["--no-cache", id], environment: ["SPOTIFY_TOOLKIT_FORCE_TTY": "1"])
        #expect(table.status == 0, "\(table.stderr)")
        let total = try #require(table.stdoutLines.last)
        #expect(total.contains(formatClock(milliseconds: Int.max)), "\(total)")
        let piped = try await library.tracks(["--no-cache", id])
        let local = try await library.run("spotify-playlists", ["local", "create", "big"], stdin: piped.stdout)
        #expect(local.status == 0, "\(local.stderr)")
        #expect(try records(local).first?["duration_ms"]?.intValue == Int.max, "\(local.stdout)")
    }

    // A body past the cap is refused (exit 69 "too large"), not retried and not buffered whole.
    @Test func anAnswerPastTheCapIsRefused() async throws {
        let server = try LoopbackHTTPServer { _ in .text(String(repeating: "x", count: 5000)) }
        server.start()
        defer { server.stop() }
        let request = HTTPClientRequest(url: URL(string: "http://127.0.0.1:\(server.port)/")!)
        let failure = await #expect(throws: HTTPFailure.self) {
            try await HTTPTransport(timeout: 5, maxBodyBytes: 1000).send(request)
        }
        #expect(failure == .tooLarge(host: "127.0.0.1:\(server.port)", limit: 1000))
        #expect(failure?.isTransient == false)
        #expect(failure?.toolError.exitCode == .unavailable)
        #expect(failure?.toolError.message.contains("too large") == true)
        let roomy = try await HTTPTransport(timeout: 5, maxBodyBytes: 5000).send(request)
        #expect(roomy.body.count == 5000)
        #expect(HTTPTransport.defaultMaxBodyBytes == 64 << 20)
    }

    // The idle timeout never trips on a server that keeps the exchange going; the total
    // deadline does, and says "timed out".
    @Test func anExchangeEndsAtItsDeadline() async throws {
        let server = try LoopbackHTTPServer { _ in
            Thread.sleep(forTimeInterval: 6)
            return .text("late\n")
        }
        server.start()
        defer { server.stop() }
        let request = HTTPClientRequest(url: URL(string: "http://127.0.0.1:\(server.port)/")!)
        // The answer (at 6 s) would be a 200; only the deadline says "after 1 s". No wall-clock
        // check: under a loaded parallel test run the awaiting task itself may resume late.
        let failure = await #expect(throws: HTTPFailure.self) {
            try await HTTPTransport(timeout: 30, deadline: 1).send(request)
        }
        #expect(failure == .unreachable(host: "127.0.0.1:\(server.port)", reason: "timed out after 1 s"))
        #expect(failure?.isTransient == true, "retried like any timeout")
    }

    // A malformed SPOTIFY_API_BASE is a configuration error (78) naming it, before any request.
    @Test(arguments: ["http://[::1", "not a url", "file:///x", "javascript:alert(1)", "ftp://example.com/v1"])
    func aBadAPIBaseIsRefused(base: String) async throws {
        let library = try await Library()
        let result = try await library.tracks([generated(2)], environment: ["SPOTIFY_API_BASE": base])
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("SPOTIFY_API_BASE"), "\(result.stderr)")
        #expect(try await library.counters()["requests"] == [:])
        let accounts = try await library.tracks([generated(2)], environment: ["SPOTIFY_ACCOUNTS_BASE": base])
        #expect(accounts.status == 78 && accounts.stderr.contains("SPOTIFY_ACCOUNTS_BASE"), "\(accounts.stderr)")
    }

    // A malformed SPOTIFY_TOOLKIT_MAX_RETRY_WAIT is refused like a bad SPOTIFY_TOOLKIT_CACHE_SIZE.
    @Test(arguments: ["nan", "-1", "1e300", "abc", "0x10", "inf"])
    func aBadMaxRetryWaitIsRefused(value: String) async throws {
        let library = try await Library()
        let result = try await library.tracks(
            [generated(2)], environment: ["SPOTIFY_TOOLKIT_MAX_RETRY_WAIT": value])
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("SPOTIFY_TOOLKIT_MAX_RETRY_WAIT"), "\(result.stderr)")
        let fine = try await library.tracks([generated(2)], environment: ["SPOTIFY_TOOLKIT_MAX_RETRY_WAIT": "0.5"])
        #expect(fine.status == 0, "\(fine.stderr)")
    }

    // A 403 on the snapshot check explains that playlist and lets the others print, as
    // the items request's 403 does without the cache.
    @Test func aRefusedSnapshotCheckDoesNotAbortTheRun() async throws {
        let library = try await Library()
        let (refused, fine) = (generated(20), generated(30))
        try await Self.can(library, path: "/v1/playlists/\(refused)", status: 403, count: 9)
        try await Self.can(library, path: "/v1/playlists/\(refused)/items", status: 403, count: 9)
        let cached = try await library.tracks([refused, fine], environment: ["SPOTIFY_TOOLKIT_CACHE_SIZE": "10M"])
        let uncached = try await library.tracks(["--no-cache", refused, fine])
        #expect(cached.stdoutLines.count == 30, "\(cached.stderr)")
        #expect(cached.stdout == uncached.stdout)
        #expect(cached.status == uncached.status && cached.status != 0)
        #expect(cached.stderr == uncached.stderr, "the same explanation")
    }

    // Cached copies belong to the account that fetched them.
    @Test func anotherAccountNeverSeesACachedCopy() async throws {
        let library = try await Library()
        let id = generated(20)
        let cache = ["SPOTIFY_TOOLKIT_CACHE_SIZE": "10M"]
        let first = try await library.tracks([id], environment: cache)
        #expect(first.status == 0 && first.stdoutLines.count == 20, "\(first.stderr)")
        // Another account logs in; Spotify refuses it the items, the snapshot is unchanged.
        var other = library.tokens
        other.userID = "someone-else"
        try FileTokenStore(directory: library.fake.configDirectory).save(other)
        // Spotify shows it the playlist's metadata only (no items), and refuses its items page.
        try await Self.can(library, path: "/v1/playlists/\(id)", body: #"{"id":"\#(id)","snapshot_id":"x"}"#, count: 9)
        try await Self.can(library, path: "/v1/playlists/\(id)/items", status: 403, count: 9)
        let second = try await library.tracks([id], environment: cache)
        #expect(second.stdout == "", "not the first account's copy")
        #expect(second.status != 0)
        let offline = try await library.tracks(["--offline", id], environment: cache)
        #expect(offline.stdout == "" && offline.status == 69, "\(offline.stderr)")
        // The first account still has its copy.
        try FileTokenStore(directory: library.fake.configDirectory).save(library.tokens)
        let back = try await library.tracks(["--offline", id], environment: cache)
        #expect(back.status == 0 && back.stdout == first.stdout, "\(back.stderr)")
    }

    // Logout removes the cache; --offline without a login serves nothing.
    @Test func logoutRemovesTheCacheAndOfflineNeedsALogin() async throws {
        let library = try await Library()
        let id = generated(20)
        let cache = ["SPOTIFY_TOOLKIT_CACHE_SIZE": "10M"]
        #expect(try await library.tracks([id], environment: cache).status == 0)
        try FileTokenStore(directory: library.fake.configDirectory).remove()
        let loggedOut = try await library.tracks(["--offline", id], environment: cache)
        #expect(loggedOut.stdout == "" && loggedOut.status == 77, "\(loggedOut.stderr)")
        #expect(loggedOut.stderr.contains("spotify-auth login"))

        try FileTokenStore(directory: library.fake.configDirectory).save(library.tokens)
        let logout = try await library.run("spotify-auth", ["logout"])
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(logout.stderr.contains("removed the snapshot cache (1 playlist)"), "\(logout.stderr)")
        let playlists = library.fake.home.url.appendingPathComponent("cache/spotify-toolkit/playlists").path
        #expect(!FileManager.default.fileExists(atPath: playlists))
        try FileTokenStore(directory: library.fake.configDirectory).save(library.tokens)
        let offline = try await library.tracks(["--offline", id], environment: cache)
        #expect(offline.stdout == "" && offline.status == 69, "nothing cached any more: \(offline.stderr)")
    }

    // A cached copy is served one parsed page at a time; what it prints is unchanged.
    @Test(arguments: [0, 50, 120])
    func aCachedCopyServedPageByPagePrintsWhatAFetchPrints(size: Int) async throws {
        let library = try await Library()
        let id = generated(size)
        let cache = ["SPOTIFY_TOOLKIT_CACHE_SIZE": "10M"]
        let table = ["SPOTIFY_TOOLKIT_FORCE_TTY": "1", "COLUMNS": "100"]
        #expect(try await library.tracks([id], environment: cache).status == 0)
        let fromCache = try await library.tracks(["--offline", id], environment: cache.merging(table) { $1 })
        let fetched = try await library.tracks(["--no-cache", id], environment: table)
        #expect(fromCache.status == 0, "\(fromCache.stderr)")
        #expect(fromCache.stdout == fetched.stdout)
        let duration = try await library.run("spotify-playlists", ["get", "--duration", id], environment: cache)
        let uncached = try await library.run("spotify-playlists", ["get", "--duration", "--no-cache", id])
        #expect(duration.stdout == uncached.stdout && duration.status == 0, "\(duration.stderr)")
    }

    // A request that keeps timing out says "timed out", not "NSURLErrorDomain error -1001".
    @Test func aTimeoutSaysTimedOut() async throws {
        let library = try await Library()
        try await library.fault([
            ("kind", "delay"), ("rate", "1"), ("delay_ms", "2500"), ("path_prefix", "/v1/playlists/"),
        ])
        let result = try await library.tracks(
            ["--no-cache", generated(2)], environment: ["SPOTIFY_TOOLKIT_REQUEST_TIMEOUT": "1"])
        #expect(result.status == 69)
        #expect(
            result.stderr.contains("timed out") && result.stderr.contains("gave up after 5 tries"), "\(result.stderr)")
        #expect(!result.stderr.contains("NSURLErrorDomain"))
    }

    // A body without a Content-Length (chunked) is cut off as it passes the cap, and what
    // arrives afterwards is dropped; the outcome is handed back once.
    @Test func aBodyWithoutALengthIsCappedAsItArrives() throws {
        let outcomes = Locked<[String]>([])
        let exchange = HTTPTransport.Exchange(host: "h:1", maxBodyBytes: 10) { outcome, _ in
            let text =
                switch outcome {
                case .success(let (data, _)): "body \(data.count)"
                case .failure(let error): "\(error)"
                }
            outcomes.withLock { $0.append(text) }
        }
        exchange.received(HTTPResponseHead(status: 200, headers: [:]))
        exchange.received(Data(count: 8))
        #expect(outcomes.withLock { $0 }.isEmpty)
        exchange.received(Data(count: 8))
        exchange.received(Data(count: 8))
        exchange.completed(nil)
        #expect(outcomes.withLock { $0 } == ["\(HTTPFailure.tooLarge(host: "h:1", limit: 10))"])
    }
}
