import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

@Suite(.tags(.small)) struct FileTrustTests {
    @Test func ownPrivateObjectsAreTrusted() {
        #expect(
            FileTrust.directory.problem(ownerID: 1000, mode: 0o40700, userID: 1000, userName: "me", path: "/d") == nil)
        #expect(
            FileTrust.directory.problem(ownerID: 1000, mode: 0o40755, userID: 1000, userName: "me", path: "/d") == nil)
        #expect(FileTrust.file.problem(ownerID: 1000, mode: 0o100644, userID: 1000, userName: "me", path: "/f") == nil)
        #expect(
            FileTrust.secret.problem(ownerID: 1000, mode: 0o100600, userID: 1000, userName: "me", path: "/f") == nil)
    }

    @Test func writableByOthersIsRefusedWithTheChmod() {
        let problem = FileTrust.directory.problem(
            ownerID: 1000, mode: 0o40777, userID: 1000, userName: "me", path: "/home/me/.config/spotify-toolkit")
        #expect(
            problem
                == "refusing to use /home/me/.config/spotify-toolkit: it is writable by group or others (mode 777), so another user could replace what is in it; fix: chmod 700 /home/me/.config/spotify-toolkit"
        )
        #expect(
            FileTrust.file.problem(ownerID: 1000, mode: 0o100620, userID: 1000, userName: "me", path: "/f")?.hasSuffix(
                "fix: chmod 600 /f") == true)
    }

    @Test func aSecretReadableByOthersIsRefused() {
        let problem = FileTrust.secret.problem(
            ownerID: 1000, mode: 0o100644, userID: 1000, userName: "me", path: "/c/tokens.json")
        #expect(
            problem
                == "refusing to use /c/tokens.json: it is readable or writable by group or others (mode 644), so another user could read or replace it; fix: chmod 600 /c/tokens.json"
        )
    }

    @Test func someoneElsesDirectoryIsRefusedWithTheChownAndChmod() {
        let problem = FileTrust.directory.problem(
            ownerID: 1001, mode: 0o40777, userID: 1000, userName: "me", path: "/tmp/my dir")
        #expect(
            problem
                == "refusing to use /tmp/my dir: it is owned by uid 1001, not by you (me) and is writable by group or others (mode 777), so another user could replace what is in it; fix: chown me '/tmp/my dir' && chmod 700 '/tmp/my dir'"
        )
    }

    @Test func shellQuoting() {
        #expect(shellQuoted("/home/me/.config/x") == "/home/me/.config/x")
        #expect(shellQuoted("/a b") == "'/a b'")
        #expect(shellQuoted("/it's") == "'/it'\\''s'")
        #expect(shellQuoted("") == "''")
    }
}

@Suite(.tags(.medium)) struct PrivateDirectoryTests {
    func scratch() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("file-safety-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        chmod(path, 0o700)  // another test may have set a wide umask meanwhile
        return path
    }

    @Test func createsAPrivateDirectoryAndPrivateFiles() throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let folder = PrivateDirectory(base + "/a/b/spotify-toolkit")
        #expect(try folder.read("x.json", trust: .file) == nil)
        try folder.write(Data("one".utf8), to: "x.json")
        #expect(mode(folder.path) == 0o700)
        #expect(mode(folder.file("x.json")) == 0o600)
        #expect(try folder.read("x.json", trust: .secret) == Data("one".utf8))
        try folder.write(Data("two".utf8), to: "x.json")
        #expect(try folder.read("x.json", trust: .secret) == Data("two".utf8))
        // No temporary files left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["x.json"])
        try folder.remove("x.json")
        try folder.remove("x.json")  // idempotent
        #expect(try folder.read("x.json", trust: .file) == nil)
    }

    @Test func aGroupWritableDirectoryIsRefused() throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        chmod(base, 0o770)
        let error = try #require(throws: ToolError.self) { try PrivateDirectory(base).write(Data(), to: "x") }
        #expect(error.exitCode == .config)
        #expect(error.message.hasSuffix("fix: chmod 700 \(base)"))
        #expect(!FileManager.default.fileExists(atPath: base + "/x"))
    }

    @Test func symbolicLinksAreNotFollowed() throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        chmod(base, 0o700)
        let folder = PrivateDirectory(base)
        symlink(base + "/target", base + "/x.json")
        let error = try #require(throws: ToolError.self) { try folder.read("x.json", trust: .file) }
        #expect(error.exitCode == .config)
        #expect(error.message.contains("symbolic link"))
        // The lock file too: a planted link must not create its target.
        symlink(base + "/lock-target", base + "/x.lock")
        let lockError = try #require(throws: ToolError.self) { try folder.lock("x.lock").open() }
        #expect(lockError.exitCode == .config)
        #expect(!FileManager.default.fileExists(atPath: base + "/lock-target"))
        #expect(!FileManager.default.fileExists(atPath: base + "/target"))
    }

    @Test func aDirectoryWhereTheFileBelongsIsExplained() throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        chmod(base, 0o700)
        let folder = PrivateDirectory(base)
        try FileManager.default.createDirectory(atPath: folder.file("x.json"), withIntermediateDirectories: false)
        let readError = try #require(throws: ToolError.self) { try folder.read("x.json", trust: .file) }
        let removeError = try #require(throws: ToolError.self) { try folder.remove("x.json") }
        #expect(readError == removeError)
        #expect(
            readError.message
                == "\(base)/x.json is a directory; move it out of the way (mv \(base)/x.json \(base)/x.json.old) and try again"
        )
    }

    @Test func aReservedWriteLeavesTheOldFileUntilCommitted() throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let path = base + "/f"
        try AtomicFileWrite.write(Data("old".utf8), to: path)
        let pending = try AtomicFileWrite(path: path, reserving: 10_000)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("old".utf8))
        try pending.commit(Data("new".utf8))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("new".utf8))
        let cancelled = try AtomicFileWrite(path: path, reserving: 10)
        cancelled.cancel()
        #expect(try FileManager.default.contentsOfDirectory(atPath: base) == ["f"])
    }

    func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? Int) ?? -1
    }
}
