import Foundation
import SpotifyClient
import Testing
import ToolkitCLI
import ToolkitCore
import Tools

@testable import FakeSpotify

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a tool run in process did: the same three things a spawned one shows.
struct ToolRun: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String
    var stdoutLines: [String] {
        stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}

/// Runs a tool's command in this process, through the same `ToolRunner.execute` its `main` calls,
/// with stdin, stdout and stderr as files in a scratch directory and no terminal (what a pipe
/// shows). Signals, pipes, TTYs and process groups are left to the end-to-end tests.
enum InProcess {
    /// `terminal`: which streams the tool is told are terminals (none, as in a pipe).
    static func run(
        _ tool: String, _ arguments: [String] = [], stdin: String = "", environment: [String: String] = [:],
        terminal: Terminal = .none
    ) async throws -> ToolRun {
        let spec = try #require(ToolCatalog.all.first { $0.name == tool }, "no tool \(tool)")
        let scratch = try Scratch()
        let input = try scratch.open("stdin", contents: stdin, flags: O_RDONLY)
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
    final class Scratch: Sendable {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent(
                "spotify-toolkit-run-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            chmod(url.path, 0o700)  // the tools refuse a home others could write, whatever the umask
        }
        deinit { try? FileManager.default.removeItem(at: url) }

        func open(_ name: String, contents: String? = nil, flags: Int32) throws -> Int32 {
            let path = url.appendingPathComponent(name).path
            if let contents { try contents.write(toFile: path, atomically: false, encoding: .utf8) }
            let fd = Foundation.open(path, flags, 0o600)
            guard fd >= 0 else { throw ToolError.ioError("cannot open \(path)") }
            return fd
        }

        var path: String { url.path }

        /// Writes a file in the directory; its path.
        func file(_ name: String, contents: String) throws -> String {
            let path = url.appendingPathComponent(name).path
            try contents.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }

        func read(_ name: String) throws -> String {
            String(decoding: try Data(contentsOf: url.appendingPathComponent(name)), as: UTF8.self)
        }
    }
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
        let launch = try FakeSpotifyCommand.parseLaunch(command)
        server = try FakeSpotifyServer(settings: launch.settings)
        server.service.addFaults(launch.faults)
        server.start()
        home = try InProcess.Scratch()
    }

    /// Stops the server (the test's `defer`, or when the last reference goes).
    func stop() { server.stop() }

    deinit { server.stop() }

    var base: String { server.baseURL }

    /// The environment that points the tools at this server (as `FakeSpotifyProcess.environment`).
    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var env = [
            "SPOTIFY_ACCOUNTS_BASE": base,
            "SPOTIFY_API_BASE": base + "/v1",
            "XDG_CONFIG_HOME": home.url.appendingPathComponent("config").path,
            "XDG_DATA_HOME": home.url.appendingPathComponent("data").path,
            "XDG_CACHE_HOME": home.url.appendingPathComponent("cache").path,
            "XDG_STATE_HOME": home.url.appendingPathComponent("state").path,
            "SPOTIFY_TOOLKIT_CACHE_SIZE": "0",
            "SPOTIFY_TOOLKIT_TOKEN_STORE": "file",
            "SPOTIFY_CLIENT_ID": "test-client",
            "SPOTIFY_ACCESS_TOKEN": "",
            "BROWSER": "",
        ]
        for (key, value) in extra { env[key] = value }
        return env
    }

    /// Runs `tool` against this server.
    func run(
        _ tool: String, _ arguments: [String] = [], stdin: String = "", environment extra: [String: String] = [:],
        terminal: Terminal = .none
    ) async throws -> ToolRun {
        try await InProcess.run(tool, arguments, stdin: stdin, environment: environment(extra), terminal: terminal)
    }

    /// A test control of the fake (`/_fake/...`), as JSON.
    @discardableResult
    func call(_ method: String, _ path: String, form: [(String, String)] = []) async throws -> JSONValue {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        if !form.isEmpty {
            request.httpBody = Data(URLForm.encode(form).utf8)
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        }
        let (data, _) = try await URLSession.shared.data(for: request)
        return (try? JSONValue.parse(data)) ?? .string(String(decoding: data, as: UTF8.self))
    }

    func counters() async throws -> JSONValue { try await call("GET", "/_fake/counters") }

    var configDirectory: String { home.url.appendingPathComponent("config/spotify-toolkit").path }
    var store: FileTokenStore { FileTokenStore(directory: configDirectory) }

    /// Seeds the token store as if the user had logged in (as `FakeSpotifyProcess.seedLogin`).
    @discardableResult
    func seedLogin(expiresIn: Int, scope: String? = nil) async throws -> StoredTokens {
        var form = [("expires_in", String(expiresIn)), ("client_id", "test-client")]
        if let scope { form.append(("scope", scope)) }
        let minted = try await call("POST", "/_fake/tokens", form: form)
        let now = Date().timeIntervalSince1970
        var tokens = StoredTokens(
            accessToken: minted["access_token"]?.stringValue ?? "", scope: minted["scope"]?.stringValue ?? "",
            expiresAt: now + Double(expiresIn), refreshToken: minted["refresh_token"]?.stringValue,
            clientID: "test-client", authorizedAt: now, userID: "31kx7ufdeznvfbgxsw2ocqc2ql4e",
            displayName: "Fixture User")
        // As a login against this fake stores them: its tokens go to this fake only.
        tokens.accountsBase = base
        tokens.apiBase = base + "/v1"
        try FileTokenStore(directory: configDirectory).save(tokens)
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

typealias TemporaryDirectory = InProcess.Scratch
