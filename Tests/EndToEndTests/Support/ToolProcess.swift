import Foundation
import TestSupport
import Testing

/// What a spawned tool did: the same `ToolRun` an in-process run returns.
typealias ToolResult = ToolRun

enum ToolProcess {
    /// A tool that exits before reading all its stdin (on purpose, or on bad input) must not
    /// kill the test process with SIGPIPE when the feeder thread writes on.
    static let ignoreSIGPIPE: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// The folder holding the built executables: beside the test bundle (`make test` builds them first).
    static let binDirectory: URL = {
        if let override = ProcessInfo.processInfo.environment["SPOTIFY_TOOLKIT_BIN"] {
            return URL(fileURLWithPath: override)
        }
        let candidates =
            [
                URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
                Bundle.main.bundleURL,
                Bundle.main.bundleURL.deletingLastPathComponent(),
            ] + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        for candidate in candidates
        where FileManager.default.isExecutableFile(atPath: candidate.appendingPathComponent("songcount").path) {
            return candidate
        }
        return candidates[0]
    }()

    static func url(of tool: String) -> URL { binDirectory.appendingPathComponent(tool) }

    /// Runs a built tool with arguments, stdin bytes and extra environment; kills it after `timeout`.
    static func run(
        _ tool: String, _ arguments: [String] = [], stdin: String? = nil, stdinData: Data? = nil,
        environment: [String: String] = [:], timeout: TimeInterval = 30
    ) throws -> ToolResult {
        try run(
            executable: url(of: tool), arguments, stdin: stdin, stdinData: stdinData, environment: environment,
            timeout: timeout)
    }

    /// Runs an executable by its path (an installed link, say) as `run` runs a built tool.
    static func run(
        executable: URL, _ arguments: [String] = [], stdin: String? = nil, stdinData: Data? = nil,
        environment: [String: String] = [:], timeout: TimeInterval = 30
    ) throws -> ToolResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "SPOTIFY_TOOLKIT_FORCE_TTY")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        return try capture(process, stdin: stdinData ?? stdin.map { Data($0.utf8) }, timeout: timeout)
    }

    /// Runs a shell pipeline with the built tools first on PATH.
    static func shell(_ script: String, environment: [String: String] = [:], timeout: TimeInterval = 60) throws
        -> ToolResult
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = binDirectory.path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        return try capture(process, stdin: nil, timeout: timeout)
    }

    static func capture(_ process: Process, stdin: Data?, timeout: TimeInterval) throws -> ToolResult {
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        ignoreSIGPIPE
        try process.run()
        if let stdin {
            // Write from another thread: a tool that stops reading early must not block the test.
            let writer = input.fileHandleForWriting
            Thread.detachNewThread {
                try? writer.write(contentsOf: stdin)
                try? writer.close()
            }
        }
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        // Drain both pipes before waiting, so a chatty tool cannot deadlock on a full pipe.
        let errData = LockedData()
        let errThread = Thread { errData.set(err.fileHandleForReading.readDataToEndOfFile()) }
        errThread.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        while !errData.isSet { usleep(1000) }
        return ToolResult(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData.value, as: UTF8.self))
    }
}

final class LockedData: @unchecked Sendable {  // guarded by lock
    private let lock = NSLock()
    private var data: Data?
    func set(_ value: Data) { lock.withLock { data = value } }
    var isSet: Bool { lock.withLock { data != nil } }
    var value: Data { lock.withLock { data ?? Data() } }
}
