import Foundation
// The shared harness (ToolRun, TemporaryDirectory, HTTPTestClient, FakeHome, the size tags) for
// every file of this target, as when it was defined here.
@_exported import TestSupport

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `fake-spotify` process for one test, on 127.0.0.1 and an ephemeral port; killed when the
/// test lets go of it (and by its own --exit-after safety net if a test crashes: half an hour, as
/// a test made at the start of a whole suite on a loaded machine may wait minutes for its turn,
/// and a net of 300 s killed the fakes of three proxy tests that ran 370 s into one).
final class FakeSpotifyProcess: @unchecked Sendable {  // immutable after init
    let process = Process()
    let port: Int
    let home: TemporaryDirectory

    init(_ arguments: [String] = []) throws {
        home = try TemporaryDirectory()
        let portFile = home.url.appendingPathComponent("port").path
        process.executableURL = ToolProcess.url(of: "fake-spotify")
        process.arguments = ["--port-file", portFile, "--exit-after", "1800s"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var port: Int?
        for _ in 0..<500 where port == nil {  // bounded: up to 10 s
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8),
                let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                port = value
            } else {
                usleep(20_000)
            }
        }
        guard let port else {
            process.terminate()
            throw ToolError.unavailable("fake-spotify did not report a port")
        }
        self.port = port
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    var base: String { "http://127.0.0.1:\(port)" }

    /// The environment that points the tools at this server (`FakeHome`), with a private config directory.
    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        FakeHome.environment(base: base, home: home.url, extra)
    }

    var configDirectory: String { FakeHome.configDirectory(home: home.url) }
    var store: FileTokenStore { FileTokenStore(directory: configDirectory) }

    /// Synchronous HTTP to the fake's test controls (curl keeps the test free of async plumbing).
    @discardableResult
    func call(_ method: String, _ path: String, form: [(String, String)] = []) throws -> JSONValue {
        var arguments = ["-s", "--max-time", "10", "-X", method]
        for (name, value) in form { arguments += ["--data-urlencode", "\(name)=\(value)"] }
        arguments.append(base + path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (try? JSONValue.parse(data)) ?? .string(String(decoding: data, as: UTF8.self))
    }

    func counters() throws -> JSONValue { try call("GET", "/_fake/counters") }

    /// Seeds the token store as if the user had logged in (`FakeHome.tokens`), with an access token
    /// living `expiresIn` seconds, against this fake (or `accountsBase` and `apiBase`, where the tools
    /// reach it under other names): its tokens go there only.
    @discardableResult
    func seedLogin(
        expiresIn: Int, storeExpiresIn: Int? = nil, scope: String? = nil, accountsBase: String? = nil,
        apiBase: String? = nil
    ) throws -> StoredTokens {
        let minted = try call("POST", "/_fake/tokens", form: FakeHome.tokenForm(expiresIn: expiresIn, scope: scope))
        var tokens = FakeHome.tokens(minted: minted, expiresIn: expiresIn, storeExpiresIn: storeExpiresIn)
        tokens.accountsBase = accountsBase ?? base
        tokens.apiBase = apiBase ?? base + "/v1"
        try store.save(tokens)
        return tokens
    }
}
