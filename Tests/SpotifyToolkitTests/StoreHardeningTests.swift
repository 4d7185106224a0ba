import Foundation
import Testing

@testable import SpotifyClient
@testable import ToolkitCore
@testable import Tools

/// The stores: unknown fields survive, temporary files of killed writers are swept, and links and
/// parents are judged as ssh's StrictModes judges them.
@Suite(.tags(.medium)) struct StoreHardeningTests {
    struct Notes: Codable, Sendable, Equatable { var notes: [String] = [] }

    func scratch() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("store-hardening-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        chmod(path, 0o700)
        return path
    }

    // MARK: Unknown fields survive

    @Test func membersANewerBuildWroteSurviveAnUpdate() async throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let environment = ["XDG_DATA_HOME": base]
        #expect(try await InProcess.run("routine-link", ["add", "m"], environment: environment).status == 0)
        let path = base + "/spotify-toolkit/routines.json"
        var document = try #require(try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: path))).objectValue)
        var routines = try #require(document["routines"]?.arrayValue)
        var first = try #require(routines[0].objectValue)
        first["tags"] = ["morning"]
        routines[0] = .object(first)
        document["routines"] = .array(routines)
        document["settings"] = ["theme": "dark"]
        try Data(JSONValue.object(document).serialized().utf8).write(to: URL(fileURLWithPath: path))

        #expect(try await InProcess.run("routine-link", ["add", "other"], environment: environment).status == 0)
        #expect(try await InProcess.run("routine-link", ["rename", "m", "M2"], environment: environment).status == 0)
        let after = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(after["settings"] == ["theme": "dark"])
        let routinesAfter = try #require(after["routines"]?.arrayValue)
        #expect(routinesAfter.count == 2)
        #expect(routinesAfter.first { $0["name"] == "M2" }?["tags"] == ["morning"], "kept through a rename")
        #expect(routinesAfter.first { $0["name"] == "other" }?["tags"] == nil)
    }

    @Test func pairingByIdThenNameThenPosition() {
        let old: JSONValue = [
            "a": ["x": 1, "extra": true], "list": [["id": "1", "keep": 1], ["id": "2", "keep": 2]],
        ]
        let new: JSONValue = ["a": ["x": 2], "list": [["id": "2"], ["id": "3"]]]
        let known: JSONValue = ["a": ["x": 1], "list": [["id": "1"], ["id": "2"]]]
        let merged = UnknownFields.carried(from: old, knownAs: known, into: new)
        #expect(merged == ["a": ["x": 2, "extra": true], "list": [["id": "2", "keep": 2], ["id": "3"]]])
        #expect(merged?["a"]?.objectValue?.keys == ["extra", "x"], "key order, as the encoder writes")
        #expect(
            UnknownFields.carried(from: ["x": 1], knownAs: ["x": 1], into: ["y": 3]) == JSONValue?.none, "all known")
        #expect(
            UnknownFields.carried(from: ["x": 1, "cleared": 2], knownAs: ["x": 1, "cleared": 2], into: ["x": 1])
                == JSONValue?.none, "a known member left out stays out")
        #expect(
            UnknownFields.carried(from: [["u": 1], ["u": 2]], knownAs: [[:], [:]], into: [[:]]) == JSONValue?.none,
            "unpaired: nothing")
    }

    // MARK: Temporary files of killed writers are swept

    @Test func temporaryFilesOfKilledWritersAreSwept() throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let store = DocumentStore(
            directory: base + "/spotify-toolkit", fileName: "notes.json", schemaVersion: 1, empty: Notes())
        try store.update { $0.notes.append("one") }
        let folder = base + "/spotify-toolkit/"
        let stale = folder + "notes.json.tmp-123-456"
        let fresh = folder + "notes.json.tmp-789-012"
        let other = folder + "other.json.tmp-1-2"
        for path in [stale, fresh, other] {
            _ = FileManager.default.createFile(atPath: path, contents: Data(count: 10))
        }
        let old = Date(timeIntervalSinceNow: -7200)
        for path in [stale, other] {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: path)
        }

        try store.update { $0.notes.append("two") }
        #expect(!FileManager.default.fileExists(atPath: stale), "an hour old: a killed writer's")
        #expect(FileManager.default.fileExists(atPath: fresh), "may be a writer at work")
        #expect(FileManager.default.fileExists(atPath: other), "not this document's")
        #expect(try store.read() == Notes(notes: ["one", "two"]))
    }

    // MARK: Links and parents as ssh's StrictModes sees them

    @Test func someoneElsesLinkIsRefused() {
        #expect(FileTrust.linkProblem(ownerID: 0, userID: 1000, path: "/x") == nil, "root's")
        #expect(FileTrust.linkProblem(ownerID: 1000, userID: 1000, path: "/x") == nil, "yours")
        let problem = FileTrust.linkProblem(ownerID: 65534, userID: 1000, path: "/tmp/cache/spotify-toolkit")
        #expect(
            problem?.hasPrefix("refusing to use /tmp/cache/spotify-toolkit: it is a symbolic link owned by uid 65534")
                == true)
        #expect(problem?.hasSuffix("fix: rm /tmp/cache/spotify-toolkit") == true)
    }

    @Test func parentsAsStrictModesSeesThem() {
        func problem(_ owner: uid_t, _ mode: mode_t) -> String? {
            FileTrust.parentProblem(ownerID: owner, mode: mode, userID: 1000, parent: "/p", path: "/p/spotify-toolkit")
        }
        #expect(problem(1000, 0o755) == nil)
        #expect(problem(0, 0o755) == nil)
        #expect(problem(0, 0o1777) == nil, "sticky, like /tmp")
        #expect(problem(1000, 0o775)?.contains("writable by group or others (mode 775)") == true)
        #expect(problem(1000, 0o775)?.hasSuffix("fix: chmod go-w /p") == true)
        #expect(problem(65534, 0o755)?.contains("owned by uid 65534, not by you or root") == true)
    }

    @Test func aPrivateDirectoryUnderAWritableParentIsRefused() throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let shared = base + "/shared"
        try FileManager.default.createDirectory(atPath: shared + "/spotify-toolkit", withIntermediateDirectories: true)
        chmod(shared + "/spotify-toolkit", 0o700)
        chmod(shared, 0o777)
        #expect(throws: ToolError.self) { try PrivateDirectory(shared + "/spotify-toolkit").verifyIfPresent() }
        chmod(shared, 0o1777)
        #expect(try PrivateDirectory(shared + "/spotify-toolkit").verifyIfPresent())
    }

    @Test func aLinkToAPrivateDirectoryIsStillFineWhenItIsYours() throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base + "/real", withIntermediateDirectories: true)
        chmod(base + "/real", 0o700)
        try FileManager.default.createSymbolicLink(
            atPath: base + "/spotify-toolkit", withDestinationPath: base + "/real")
        #expect(try PrivateDirectory(base + "/spotify-toolkit").verifyIfPresent())
    }
}

extension StoreHardeningTests {
    @Test func theTokenStoreSweepsItsStaleTemporariesToo() throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let store = FileTokenStore(directory: base + "/spotify-toolkit")
        let tokens = StoredTokens(
            accessToken: "A", scope: "s", expiresAt: 1, refreshToken: "R", clientID: "c", authorizedAt: 0)
        try store.save(tokens)
        let stale = base + "/spotify-toolkit/tokens.json.tmp-123-456"
        _ = FileManager.default.createFile(atPath: stale, contents: Data("old secret".utf8))
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: stale)
        try store.save(tokens)
        #expect(!FileManager.default.fileExists(atPath: stale))
    }
}
