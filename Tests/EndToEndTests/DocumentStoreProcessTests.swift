import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore

/// DocumentStore shared by real processes (`document-store-writer`, a development executable).
@Suite(.tags(.large)) struct DocumentStoreProcessTests {
    struct TestLog: Codable, Sendable {
        var generation = 0
        var entries: [String] = []
    }

    func store(_ directory: String) -> DocumentStore<TestLog> {
        DocumentStore(directory: directory, fileName: "log.json", schemaVersion: 1, empty: TestLog())
    }

    @Test func twentyConcurrentWriterProcessesLoseNothing() throws {
        let home = try TemporaryDirectory()
        let directory = home.path + "/store"
        let script = (1...20).map { "document-store-writer append \"$DIR\" 15 w\($0) & " }.joined() + "wait"
        let result = try ToolProcess.shell(script, environment: ["DIR": directory], timeout: 120)
        #expect(result.status == 0, "\(result.stderr)")
        let entries = try #require(try store(directory).read()).entries
        #expect(entries.count == 300)
        #expect(Set(entries) == Set((1...20).flatMap { writer in (1...15).map { "w\(writer)-\($0)" } }))
        // Each writer's entries stay in its own order.
        for writer in 1...20 {
            let own = entries.filter { $0.hasPrefix("w\(writer)-") }
            #expect(own == (1...15).map { "w\(writer)-\($0)" })
        }
    }

    /// kill -9 at arbitrary moments of a writer that rewrites a large document in a loop: the
    /// file is always a whole document (every entry of one generation), never a torn one.
    @Test func killMinusNineNeverLeavesATornFile() throws {
        let home = try TemporaryDirectory()
        let directory = home.path + "/store"
        var generator = SplitMix64(seed: 0x5eed)
        var generationsSeen = Set<Int>()
        for _ in 0..<12 {
            let writer = Process()
            writer.executableURL = ToolProcess.url(of: "document-store-writer")
            writer.arguments = ["churn", directory]
            writer.standardError = FileHandle.nullDevice
            try writer.run()
            usleep(UInt32(20_000 + generator.next() % 150_000))
            kill(writer.processIdentifier, SIGKILL)
            writer.waitUntilExit()
            #expect(
                writer.terminationReason == .uncaughtSignal && writer.terminationStatus == SIGKILL,
                "the writer must die of our SIGKILL, not crash")
            guard let log = try store(directory).read() else { continue }  // killed before the first write
            #expect(log.entries.count == 5_000)
            #expect(log.entries.allSatisfy { $0.hasPrefix("generation \(log.generation) ") })
            generationsSeen.insert(log.generation)
        }
        #expect(!generationsSeen.isEmpty)
    }
}
