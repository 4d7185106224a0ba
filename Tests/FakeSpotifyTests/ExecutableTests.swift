import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Spawns the built `fake-spotify` (beside the test bundle; `swift test` builds it).
@Suite(.tags(.large)) struct ExecutableTests {
    static let binary: URL? = {
        let candidates =
            [
                URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
                Bundle.main.bundleURL,
                Bundle.main.bundleURL.deletingLastPathComponent(),
            ] + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        return candidates.map { $0.appendingPathComponent("fake-spotify") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    @Test func servesUntilSIGTERMThenExitsZero() async throws {
        let binary = try #require(Self.binary, "fake-spotify not found beside the test bundle")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fake-spotify-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let portFile = folder.appendingPathComponent("port").path

        let process = Process()
        process.executableURL = binary
        process.arguments = ["--port-file", portFile, "--exit-after", "600s"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        var port: String?
        // Counted polls with a blocking sleep, not a wall-clock deadline with Task.sleep: when other
        // tests hold the cooperative pool, a Task.sleep can resume a minute late and find its
        // deadline gone without having looked again. At most 3,000 looks, 20 ms apart.
        for _ in 0..<3_000 {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), text.hasSuffix("\n") {
                port = String(text.dropLast())
                break
            }
            usleep(20_000)
        }
        let found = try #require(port, "no port file after 3,000 looks 20 ms apart")
        #expect(UInt16(found) != nil)

        let reply = try await HTTPTestClient.fetch(URL(string: "http://127.0.0.1:\(found)/v1/me")!)
        #expect(reply.status == 401)

        process.terminate()  // SIGTERM
        for _ in 0..<1_500 where process.isRunning { usleep(20_000) }
        #expect(!process.isRunning)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(stdout == "http://127.0.0.1:\(found)\n")
    }

    @Test func usageErrorsExit64() throws {
        let binary = try #require(Self.binary)
        for arguments in [["--port", "99999"], ["--bogus"], ["--access-token-lifetime", "-1"]].map({
            $0 + ["--exit-after", "5s"]
        }) {
            let process = Process()
            process.executableURL = binary
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 64, "\(arguments)")
        }
    }
}
