import Foundation
import Testing

@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// The track and episode records' exact bytes, every optional field present and absent, and read
/// back; and every record `type` the code prints documented in the README's record reference
/// and in its tools' OUTPUT.
@Suite(.tags(.small)) struct RecordReferenceTests {
    static let album: JSONValue = [
        "id": "A", "name": "LP", "release_date": "1999-03", "release_date_precision": "month",
        "images": [["url": "s", "height": 64, "width": 64], ["url": "b", "height": 640, "width": 640]],
    ]
    static let trackObject: JSONValue = [
        "type": "track", "id": "T", "uri": "spotify:track:T", "name": "Song \"1\"", "duration_ms": 180_000,
        "artists": [["id": "B", "name": "Band"], ["id": nil, "name": "Guest"]], "album": album, "explicit": true,
        "external_ids": ["isrc": "USX1"], "is_playable": false, "is_local": false,
    ]
    static let episodeObject: JSONValue = [
        "type": "episode", "id": "E", "uri": "spotify:episode:E", "name": "Ep", "duration_ms": 1000,
        "show": ["id": "S", "name": "Show", "images": [["url": "i", "height": nil, "width": nil]]],
        "release_date": "2026-01-02", "release_date_precision": "day", "explicit": false, "is_playable": true,
    ]

    /// Every context field set, as no one tool sets them all: the order they share.
    static func withEverything(_ record: TrackRecord) -> TrackRecord {
        var record = record
        record.discNumber = .value(1)
        record.trackNumber = .null
        record.addedAt = .value("2026-01-01T00:00:00Z")
        record.addedBy = .value("me")
        record.position = 4
        record.playlist = .value(.init(id: "P", uri: "spotify:playlist:P", name: nil, snapshotID: "S1"))
        record.source = RecordSource(SpotifyReference(kind: .playlist, id: "P"), name: "Mix")
        record.rank = 5
        record.current = false
        record.match = .init(query: "song band", score: 0.5, quality: "good")
        return record
    }

    static let context =
        #"""
        "disc_number":1,"track_number":null,"added_at":"2026-01-01T00:00:00Z","added_by":{"id":"me"},"position":4,\#
        "playlist":{"id":"P","uri":"spotify:playlist:P","name":null,"snapshot_id":"S1"},\#
        "source":{"type":"playlist","id":"P","uri":"spotify:playlist:P","name":"Mix"},"rank":5,"current":false,\#
        "query":"song band","match":0.5,"match_quality":"good"
        """#

    @Test func aTrackRecordsBytesWithEveryOptionalFieldPresentAndAbsent() throws {
        let track = try #require(TrackRecord(spotify: Self.trackObject))
        let head =
            #"""
            {"type":"track","id":"T","uri":"spotify:track:T","name":"Song \"1\"","duration_ms":180000,\#
            "artists":[{"id":"B","name":"Band"},{"id":null,"name":"Guest"}],\#
            "album":{"id":"A","name":"LP","release_date":"1999-03","release_date_precision":"month",\#
            "images":[{"url":"b","height":640,"width":640},{"url":"s","height":64,"width":64}]},\#
            "explicit":true,"external_ids":{"isrc":"USX1"},"is_playable":false,"is_local":false
            """#
        #expect(track.json.serialized() == head + "}")
        #expect(Self.withEverything(track).json.serialized() == head + "," + Self.context + "}")

        let bare = try #require(TrackRecord(spotify: ["name": "x"]))
        #expect(
            bare.json.serialized()
                == #"""
                {"type":"track","id":null,"uri":null,"name":"x","duration_ms":null,"artists":[],"album":null,\#
                "explicit":null,"external_ids":{"isrc":null},"is_local":false}
                """#)
    }

    @Test func anEpisodeRecordsBytesWithEveryOptionalFieldPresentAndAbsent() throws {
        let episode = try #require(TrackRecord(spotify: Self.episodeObject))
        let head =
            #"""
            {"type":"episode","id":"E","uri":"spotify:episode:E","name":"Ep","duration_ms":1000,"artists":[],\#
            "album":null,"show":{"id":"S","name":"Show","images":[{"url":"i","height":null,"width":null}]},\#
            "release_date":"2026-01-02","release_date_precision":"day","explicit":false,"is_playable":true,\#
            "is_local":false
            """#
        #expect(episode.json.serialized() == head + "}")
        #expect(Self.withEverything(episode).json.serialized() == head + "," + Self.context + "}")

        let bare = try #require(TrackRecord(spotify: ["type": "episode"]))
        #expect(
            bare.json.serialized()
                == #"""
                {"type":"episode","id":null,"uri":null,"name":null,"duration_ms":null,"artists":[],"album":null,\#
                "show":null,"release_date":null,"release_date_precision":null,"explicit":null,"is_local":false}
                """#)
    }

    @Test func aRecordReadBackIsTheRecordAndAnOlderOneReadsLeniently() throws {
        for object in [Self.trackObject, Self.episodeObject] {
            let record = Self.withEverything(try #require(TrackRecord(spotify: object)))
            #expect(TrackRecord(reading: record.object) == record)
        }
        // An older version's record, or another tool's: what it lacks is nil, and its row still draws.
        let old = TrackRow(
            reading: ["type": "track", "name": "x", "artists": [["name": "A"]], "extra": 1], position: 2)
        #expect(old.record.durationMs == nil && old.record.addedAt == .absent && old.record.position == nil)
        #expect(old.cells == ["3", "x", "A", ""])
        #expect(old.json.serialized() == #"{"type":"track","name":"x","artists":[{"name":"A"}],"extra":1}"#)
    }

    // MARK: Documented

    /// Every record `type` the code writes: the track record's kinds, and every `"type": "…"`
    /// a record of the tools and the client sets (read from the source, so a new one is found).
    static func printedTypes() throws -> [String: [String]] {
        var found: [String: [String]] = [:]
        for kind in TrackRecord.Kind.allCases { found[kind.rawValue, default: []].append("TrackRecord.Kind") }
        let pattern = try NSRegularExpression(pattern: #"(?:"type": |\["type"\] = )"([a-z_]+)""#)
        let sources = RateLimitExitCodeTests.root.appendingPathComponent("Sources")
        for target in ["Tools", "SpotifyClient", "ToolkitCore", "ToolkitCLI"] {
            let directory = sources.appendingPathComponent(target)
            let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
            while let file = files?.nextObject() as? URL {
                guard file.pathExtension == "swift" else { continue }
                let text = try String(contentsOf: file, encoding: .utf8)
                let range = NSRange(text.startIndex..., in: text)
                for match in pattern.matches(in: text, range: range) {
                    guard let name = Range(match.range(at: 1), in: text) else { continue }
                    found[String(text[name]), default: []].append(file.lastPathComponent)
                }
            }
        }
        return found
    }

    /// The README's record reference: each row's type and the tools its "written by" cell names.
    static func readmeRows() throws -> [String: String] {
        let readme = try String(
            contentsOf: RateLimitExitCodeTests.root.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "\n## Record reference\n"))
        let section = readme[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        var rows: [String: String] = [:]
        for line in section[..<end].split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { cell in
                cell.trimmingCharacters(in: CharacterSet.whitespaces)
            }
            guard cells.count > 3 else { continue }
            rows[cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = cells[2]
        }
        return rows
    }

    /// A tool's OUTPUT text, its subcommands' included.
    static func outputText(_ spec: CommandSpec) -> String {
        (spec.output + spec.subcommands.map(outputText)).joined(separator: "\n")
    }

    @Test func everyPrintedRecordTypeIsInTheReadmesReferenceAndItsToolsOutput() throws {
        let printed = try Self.printedTypes()
        #expect(printed.count >= 16, "the scan finds the record types: \(printed.keys.sorted())")
        let rows = try Self.readmeRows()
        for (type, places) in printed.sorted(by: { $0.key < $1.key }) {
            guard let writtenBy = rows[type] else {
                Issue.record("README.md's record reference has no row for `\(type)` (written in \(places))")
                continue
            }
            let tools = ToolCatalog.all.filter { writtenBy.contains("`\($0.name)") }
            #expect(!tools.isEmpty, "the `\(type)` row names no tool that writes it: \(writtenBy)")
            // Named as a record: "track records", "type (device)", "type (track or episode)", "type played".
            let named = try NSRegularExpression(
                pattern: #"type \([^)]*\b\#(type)\b[^)]*\)|type \#(type)\b|\b\#(type) records?\b"#)
            for tool in tools {
                let output = Self.outputText(tool)
                #expect(
                    named.firstMatch(in: output, range: NSRange(output.startIndex..., in: output)) != nil,
                    "\(tool.name)'s OUTPUT does not name the `\(type)` record")
            }
        }
    }
}
