import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

@Suite(.tags(.medium)) struct DocumentStoreTests {
    struct Notes: Codable, Sendable, Equatable {
        var notes: [String] = []
        var owner: String?
    }

    func scratch() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("document-store-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        chmod(path, 0o700)
        return path
    }

    func store(_ directory: String, version: Int = 2, migrate: (@Sendable (Int, Data) throws -> Notes)? = nil)
        -> DocumentStore<Notes>
    {
        DocumentStore(
            directory: directory + "/spotify-toolkit", fileName: "notes.json", schemaVersion: version, empty: Notes(),
            migrate: migrate)
    }

    @Test func readsNothingThenWhatWasWritten() throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let notes = store(base)
        #expect(try notes.read() == nil)
        let count = try notes.update { document in
            document.notes.append("first")
            return document.notes.count
        }
        #expect(count == 1)
        #expect(try notes.read() == Notes(notes: ["first"]))
        let text = try String(contentsOfFile: notes.path, encoding: .utf8)
        #expect(text == #"{"notes":["first"],"schema_version":2}"# + "\n")
        let mode = (try FileManager.default.attributesOfItem(atPath: notes.folder.path)[.posixPermissions]) as? Int
        #expect(mode == 0o700)
    }

    @Test func aThrowingUpdateWritesNothing() throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let notes = store(base)
        try notes.update { $0.notes = ["kept"] }
        #expect(throws: ToolError.self) {
            try notes.update { document in
                document.notes = []
                throw ToolError.usage("no")
            }
        }
        #expect(try notes.read()?.notes == ["kept"])
    }

    @Test(arguments: [
        "{not json", "[1,2]", #"{"notes":["a"]}"#, #"{"schema_version":"2"}"#, #"{"schema_version":2,"notes":"a"}"#, "",
    ])
    func anUnreadableFileIsADataErrorAndIsLeftByteForByte(content: String) throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let notes = store(base)
        try notes.folder.write(Data(content.utf8), to: notes.fileName)
        let readError = try #require(throws: ToolError.self) { try notes.read() }
        #expect(readError.exitCode == .dataError)
        #expect(readError.message.hasPrefix(notes.path + " cannot be read"))
        let updateError = #expect(throws: ToolError.self) { try notes.update { $0.notes.append("x") } }
        #expect(updateError?.exitCode == .dataError)
        #expect(try Data(contentsOf: URL(fileURLWithPath: notes.path)) == Data(content.utf8))
    }

    @Test func aNewerVersionIsAConfigErrorAndIsLeftByteForByte() throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let notes = store(base)
        let content = #"{"schema_version":3,"notes":["from the future"]}"#
        try notes.folder.write(Data(content.utf8), to: notes.fileName)
        let error = #expect(throws: ToolError.self) { try notes.update { $0.notes.append("x") } }
        #expect(error?.exitCode == .config)
        #expect(
            error?.message
                == "\(notes.path) was written by a newer spotify-toolkit (schema_version 3; this one knows up to 2); it was left as it is; upgrade spotify-toolkit to use it"
        )
        #expect(try String(contentsOfFile: notes.path, encoding: .utf8) == content)
    }

    @Test func anOlderVersionIsMigratedAndRewrittenAtTheCurrentVersion() throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        struct Version1: Decodable { var lines: [String] }
        let notes = store(base) { version, data in
            #expect(version == 1)
            return Notes(notes: try JSONDecoder().decode(Version1.self, from: data).lines)
        }
        try notes.folder.write(Data(#"{"schema_version":1,"lines":["old"]}"#.utf8), to: notes.fileName)
        #expect(try notes.read() == Notes(notes: ["old"]))
        try notes.update { $0.owner = "me" }
        #expect(
            try String(contentsOfFile: notes.path, encoding: .utf8)
                == #"{"notes":["old"],"owner":"me","schema_version":2}"# + "\n")
    }

    @Test func anUntrustedDirectoryIsRefused() throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let notes = store(base)
        try notes.update { $0.notes = ["a"] }
        chmod(notes.folder.path, 0o777)
        let error = try #require(throws: ToolError.self) { try notes.read() }
        #expect(error.exitCode == .config)
        #expect(error.message.hasSuffix("fix: chmod 700 \(notes.folder.path)"))
    }
}
