// Development only (tests): hammers a DocumentStore from a separate process.
//   document-store-writer append DIR COUNT TAG   appends TAG-1...TAG-COUNT, one update each
//   document-store-writer churn DIR              rewrites a large document until killed
import Foundation
import ToolkitCore

/// The test document: a list of entries, and in churn mode a generation that every entry repeats,
/// so a reader can tell a torn write (mixed generations) from a whole one.
struct TestLog: Codable, Sendable {
    var generation = 0
    var entries: [String] = []
}

func store(_ directory: String) -> DocumentStore<TestLog> {
    DocumentStore(directory: directory, fileName: "log.json", schemaVersion: 1, empty: TestLog())
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch (arguments.first, arguments.count) {
    case ("append", 4):
        guard let count = Int(arguments[2]) else { throw ToolError.usage("COUNT must be a number") }
        for index in 1...max(1, count) {
            try store(arguments[1]).update { $0.entries.append("\(arguments[3])-\(index)") }
        }
    case ("churn", 2):
        while true {
            try store(arguments[1]).update { log in
                log.generation += 1
                log.entries = (0..<5_000).map { "generation \(log.generation) entry \($0)" }
            }
        }
    default:
        throw ToolError.usage("usage: document-store-writer append DIR COUNT TAG | churn DIR")
    }
} catch let error as ToolError {
    FileHandle.standardError.write(Data("document-store-writer: \(error.message)\n".utf8))
    exit(error.exitCode.rawValue)
}
