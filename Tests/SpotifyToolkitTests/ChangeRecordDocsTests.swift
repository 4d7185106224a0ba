import Foundation
import Testing

@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// Every change record `--dry-run` prints is documented: each action, with each field
/// its records carry, in the man page's list of change actions and in the README's record
/// reference. What is printed comes from running every kind of write with --dry-run against
/// fake-spotify, so a field or an action the docs lack fails here.
@Suite(.tags(.medium)) struct ChangeRecordDocsTests {
    /// Fields every change record has, documented once before the list of actions.
    static let common: Set<String> = ["type", "action", "playlist"]

    /// Each action printed, with the fields its records carried beyond the common ones.
    static func printed() async throws -> [String: Set<String>] {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(150)
        let uris = try await PlaylistWriteTests.uris(library, id)
        let extra = try await PlaylistWriteTests.uris(library, generated(3))
        func lines(_ uris: [String]) -> String { uris.map { $0 + "\n" }.joined() }
        // Two dropped, the first moved to the end, one new: remove, move and add.
        let edited = Array(uris.dropFirst(2)) + [uris[0]] + [extra[0]]
        let runs: [([String], String)] = [
            (["create", "--dry-run", "Planned"], lines(uris)),
            (["add", "--dry-run", id], lines(extra)),
            (["remove", "--dry-run", id], lines([uris[3]])),
            (["replace", "--dry-run", id], lines(edited)),
            (["replace", "--dry-run", "--reset-dates", id], lines(edited)),
            (["edit", "--dry-run", id, "--name", "N", "--description", "D", "--collaborative"], ""),
            (["delete", "--dry-run", id], ""),
            (["add", "--liked", "--dry-run"], lines(extra)),
            (["remove", "--liked", "--dry-run"], lines(extra)),
        ]
        var printed: [String: Set<String>] = [:]
        for (arguments, stdin) in runs {
            let run = try await library.run("spotify-playlists", arguments, stdin: stdin)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            for record in try records(run) {
                #expect(record["type"] == "change", "\(arguments): \(record)")
                let action = try #require(record["action"]?.stringValue)
                let fields = Set(try #require(record.objectValue).keys)
                #expect(fields.isSuperset(of: common), "\(arguments): \(record)")
                printed[action, default: []].formUnion(fields.subtracting(common))
            }
        }
        let requests = try await library.counters()["requests"]?.objectValue?.keys ?? []
        #expect(!requests.contains { !$0.hasPrefix("GET") && $0.contains("/v1/") }, "a dry run sends no write")
        return printed
    }

    /// "a: x, y; b, c: z" (after `start`) as each action's text: the clauses split at "; ", each
    /// naming its actions before its first ": ".
    static func clauses(_ text: Substring, actions: (Substring) -> [String]) -> [String: Substring] {
        var clauses: [String: Substring] = [:]
        for clause in text.split(separator: "; ") {
            guard let colon = clause.range(of: ": ") else { continue }
            for action in actions(clause[..<colon.lowerBound]) { clauses[action] = clause[colon.upperBound...] }
        }
        return clauses
    }

    @Test func theManPageAndTheReadmeDocumentEveryChangeRecordDryRunPrints() async throws {
        let printed = try await Self.printed()
        let actions = SpotifyPlaylists.ChangeRecord.Action.allCases.map(\.rawValue)
        #expect(Set(printed.keys) == Set(actions), "every action is printed by one of the runs, and no other")

        let man = ManPageRenderer.render(SpotifyPlaylists.spec, version: Toolkit.version)
        let paragraph = try #require(man.split(separator: "\n").first { $0.contains("one change record per planned") })
        let manList = try #require(paragraph.range(of: "by action: "))
        let manClauses = Self.clauses(paragraph[manList.upperBound...].dropLast()) { [String($0)] }

        let readme = try String(
            contentsOf: RateLimitExitCodeTests.root.appendingPathComponent("README.md"), encoding: .utf8)
        let row = try #require(readme.split(separator: "\n").first { $0.hasPrefix("| `change` |") })
        let readmeList = try #require(row.range(of: "then by `action`: "))
        let readmeClauses = Self.clauses(row[readmeList.upperBound...].dropLast(2)) { head in
            actions.filter { head.contains("`\($0)`") }
        }
        for field in Self.common.subtracting(["type"]) {
            #expect(paragraph.contains(field) && row.contains("`\(field)`"), "\(field)")
        }

        for action in actions {
            let fields = printed[action] ?? []
            let inMan = manClauses[action]
            #expect(inMan != nil, "the man page lists no \(action)")
            let inReadme = readmeClauses[action]
            #expect(inReadme != nil, "the README's record reference lists no \(action)")
            for field in fields {
                #expect(inMan?.contains(field) == true, "the man page's \(action) lacks \(field)")
                #expect(inReadme?.contains("`\(field)`") == true, "the README's \(action) lacks `\(field)`")
            }
        }
        #expect(printed["move"] == ["range_start", "insert_before", "range_length"])
    }
}
