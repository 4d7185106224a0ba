import Foundation
import SpotifyClient
// The shared harness (ToolRun, TemporaryDirectory, HTTPTestClient, FakeHome, the size tags) for
// every file of this target, without an import in each.
@_exported import TestSupport
import Testing
import ToolkitCLI
import ToolkitCore
import Tools

@testable import FakeSpotify

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs a tool's command in this process, through the same `ToolRunner.execute` its `main` calls,
/// with stdin, stdout and stderr as files in a scratch directory and no terminal (what a pipe
/// shows). Signals, pipes, TTYs and process groups are left to the end-to-end tests.
enum InProcess {
    /// `terminal`: which streams the tool is told are terminals (none, as in a pipe). `noInput`:
    /// stdin is /dev/null (as from cron, or `< /dev/null`), which carries no data, where `stdin`
    /// is a file, which does even when empty (an empty pipe upstream).
    static func run(
        _ tool: String, _ arguments: [String] = [], stdin: String = "", noInput: Bool = false,
        environment: [String: String] = [:], terminal: Terminal = .none
    ) async throws -> ToolRun {
        let spec = try #require(ToolCatalog.all.first { $0.name == tool }, "no tool \(tool)")
        let scratch = try Scratch()
        let input = noInput ? open("/dev/null", O_RDONLY) : try scratch.open("stdin", contents: stdin, flags: O_RDONLY)
        guard input >= 0 else { throw ToolError.ioError("cannot open /dev/null") }
        let output = try scratch.open("stdout", flags: O_WRONLY | O_CREAT | O_TRUNC)
        let errors = try scratch.open("stderr", flags: O_WRONLY | O_CREAT | O_TRUNC)
        defer { for fd in [input, output, errors] { close(fd) } }
        var variables = ProcessInfo.processInfo.environment
        variables.removeValue(forKey: "SPOTIFY_TOOLKIT_FORCE_TTY")
        for (key, value) in environment { variables[key] = value }
        let streams = ToolStreams(
            stdin: input, stdout: output, stderr: errors,
            terminal: terminal)
        let status = await ToolRunner.execute(
            spec, arguments: arguments, environment: ToolEnvironment(variables), streams: streams)
        return ToolRun(status: status, stdout: try scratch.read("stdout"), stderr: try scratch.read("stderr"))
    }

    /// A scratch directory removed when the run is over.
    typealias Scratch = TemporaryDirectory
}

/// fake-spotify in this process, on 127.0.0.1 and an ephemeral port, with a private home for
/// the tools' config and cache. Call `stop()` when done (`defer`).
final class InProcessFake: Sendable {
    let server: FakeSpotifyServer
    let home: InProcess.Scratch

    /// `arguments` as `fake-spotify` takes them (`--extra-playlists 120`, `--legacy`, `--fault ...`).
    init(_ arguments: [String] = []) throws {
        let command = try CommandLineParser.parse(
            ["--client-id", "test-client"] + arguments, spec: FakeSpotifyCommand.spec)
        let launch = try FakeSpotifyCommand.Launch(command)
        server = try FakeSpotifyServer(settings: launch.settings)
        server.service.addFaults(launch.faults)
        server.start()
        home = try InProcess.Scratch()
    }

    /// Stops the server (the test's `defer`, or when the last reference goes).
    func stop() { server.stop() }

    deinit { server.stop() }

    var base: String { server.baseURL }

    /// The environment that points the tools at this server (`FakeHome`), with a private data home
    /// too: in process, nothing else keeps the tools' files apart from the runner's.
    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        let data = ["XDG_DATA_HOME": home.url.appendingPathComponent("data").path]
        return FakeHome.environment(base: base, home: home.url, data.merging(extra) { $1 })
    }

    /// Runs `tool` against this server.
    func run(
        _ tool: String, _ arguments: [String] = [], stdin: String = "", noInput: Bool = false,
        environment extra: [String: String] = [:], terminal: Terminal = .none
    ) async throws -> ToolRun {
        try await InProcess.run(
            tool, arguments, stdin: stdin, noInput: noInput, environment: environment(extra), terminal: terminal)
    }

    /// A test control of the fake (`/_fake/...`), as JSON.
    @discardableResult
    func call(_ method: String, _ path: String, form: [(String, String)] = []) async throws -> JSONValue {
        try await HTTPTestClient.control(method, URL(string: base + path)!, form: form)
    }

    func counters() async throws -> JSONValue { try await call("GET", "/_fake/counters") }

    var configDirectory: String { FakeHome.configDirectory(home: home.url) }
    var store: FileTokenStore { FileTokenStore(directory: configDirectory) }

    /// Seeds the token store as if the user had logged in (`FakeHome.tokens`), bound to this fake.
    @discardableResult
    func seedLogin(expiresIn: Int, scope: String? = nil) async throws -> StoredTokens {
        let minted = try await call(
            "POST", "/_fake/tokens", form: FakeHome.tokenForm(expiresIn: expiresIn, scope: scope))
        var tokens = FakeHome.tokens(minted: minted, expiresIn: expiresIn)
        // As a login against this fake stores them: its tokens go to this fake only.
        tokens.accountsBase = base
        tokens.apiBase = base + "/v1"
        try FileTokenStore(directory: configDirectory).save(tokens)
        return tokens
    }

    /// Makes the stored login one made against `accountsBase` and `apiBase` (each kept where nil):
    /// its tokens go there, and nowhere else.
    @discardableResult
    func bindLogin(accountsBase: String? = nil, apiBase: String? = nil) throws -> StoredTokens {
        var tokens = try #require(try store.load(), "no login to bind")
        tokens.accountsBase = accountsBase ?? tokens.accountsBase
        tokens.apiBase = apiBase ?? tokens.apiBase
        try store.save(tokens)
        return tokens
    }
}

/// A logged-in user of an in-process fake-spotify (the in-process twin of the end-to-end `Library`).
struct Library {
    let fake: InProcessFake
    let tokens: StoredTokens

    /// `scope`: what the login grants (default: the toolkit's read-only set).
    init(_ arguments: [String] = [], scope: String? = nil) async throws {
        fake = try InProcessFake(arguments)
        tokens = try await fake.seedLogin(expiresIn: 3600, scope: scope)
    }

    /// `terminal`: which streams the tool is told are terminals (none, as in a pipe).
    func run(
        _ tool: String, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
        terminal: Terminal = .none
    ) async throws -> ToolRun {
        let result = try await fake.run(
            tool, arguments, stdin: stdin ?? "", environment: environment, terminal: terminal)
        #expect(
            !result.stdout.contains(tokens.accessToken) && !result.stderr.contains(tokens.accessToken),
            "no token in output")
        return result
    }

    /// Runs `tool` (a watch) until `done` holds, checked every 20 ms for at most a minute, then
    /// stops it as Ctrl-C would: a test waits for what it needs to see, as long as a loaded
    /// machine takes, and no longer than that on an idle one.
    func run(
        _ tool: String, _ arguments: [String], environment: [String: String] = [:], terminal: Terminal = .none,
        stoppingWhen done: () async throws -> Bool
    ) async throws -> ToolRun {
        let stop = StopSignal()
        let finished = Locked(false)
        return try await StopSignal.$requested.withValue(stop) {
            async let running: ToolRun = {
                defer { finished.withLock { $0 = true } }
                return try await run(tool, arguments, environment: environment, terminal: terminal)
            }()
            for _ in 0..<3000 where !finished.withLock({ $0 }) {
                if try await done() { break }
                try await Task.sleep(nanoseconds: 20_000_000)
            }
            stop.stop()
            return try await running
        }
    }

    /// How many times the player was asked what plays (GET currently-playing), as fake-spotify counted.
    func polls() async throws -> Int {
        let requests = try await counters()["requests"]?.objectValue ?? [:]
        return requests.first { $0.key.contains("currently-playing") }?.value.intValue ?? 0
    }

    func tracks(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) async throws
        -> ToolRun
    {
        try await run("spotify-tracks", arguments, stdin: stdin, environment: environment)
    }

    func fault(_ fields: [(String, String)]) async throws {
        let answer = try await fake.call("POST", "/_fake/faults", form: fields)
        #expect(answer["kind"] != nil, "\(answer)")
    }

    func counters() async throws -> JSONValue { try await fake.counters() }
}

func records(_ result: ToolRun) throws -> [JSONValue] {
    try result.stdoutLines.map { try JSONValue.parse($0) }
}

/// The id of a generated playlist of `count` tracks (see fake-spotify's generated library).
func generated(_ count: Int, _ prefix: String = "gen") -> String {
    prefix + String(repeating: "0", count: max(0, 19 - String(count).count)) + String(count)
}
