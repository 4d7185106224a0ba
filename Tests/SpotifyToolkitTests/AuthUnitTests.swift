import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

#if canImport(Glibc)
import Glibc
#endif

@Suite(.tags(.small)) struct RedirectURITests {
    @Test func loopbackURIs() throws {
        #expect(
            try LoopbackRedirect.parse("http://127.0.0.1:8888/callback")
                == LoopbackRedirect(host: "127.0.0.1", port: 8888, path: "/callback"))
        #expect(
            try LoopbackRedirect.parse("http://[::1]:9000/cb") == LoopbackRedirect(host: "::1", port: 9000, path: "/cb")
        )
        #expect(try LoopbackRedirect.parse("http://127.0.0.1/callback").port == nil)
        #expect(try LoopbackRedirect.parse("http://127.0.0.1:8888").path == "/")
        #expect(LoopbackRedirect(host: "::1", port: nil, path: "/cb").uri(port: 5000) == "http://[::1]:5000/cb")
    }

    @Test func localhostIsRefusedWithSpotifysRule() throws {
        let error = try #require(throws: ToolError.self) {
            try LoopbackRedirect.parse("http://localhost:8888/callback")
        }
        #expect(error.exitCode == .config)
        #expect(error.message.contains("Spotify refuses redirect URIs with 'localhost'"))
        #expect(error.message.contains("http://127.0.0.1:8888/callback"))
    }

    @Test(arguments: [
        "https://example.com/cb", "http://192.168.1.5:8888/cb", "http://127.0.0.1:99999/cb", "http://[::1/cb",
        "myapp://callback",
    ])
    func otherURIsAreRefused(uri: String) {
        #expect(throws: ToolError.self) { try LoopbackRedirect.parse(uri) }
    }

    @Test func callbackInterpretation() {
        let state = "s1"
        #expect(AuthorizationCallback.interpret([], expectedState: state) == .unrelated)
        #expect(AuthorizationCallback.interpret([("code", "c"), ("state", "s1")], expectedState: state) == .code("c"))
        #expect(
            AuthorizationCallback.interpret([("code", "c"), ("state", "x")], expectedState: state) == .stateMismatch)
        #expect(AuthorizationCallback.interpret([("code", "c")], expectedState: state) == .stateMismatch)
        #expect(
            AuthorizationCallback.interpret([("error", "access_denied"), ("state", "s1")], expectedState: state)
                == .denied("access_denied"))
    }
}

@Suite(.tags(.medium)) struct StoredTokensTests {
    let tokens = StoredTokens(
        accessToken: "A1", scope: "a b", expiresAt: 1000, refreshToken: "R1", clientID: "c", authorizedAt: 0)

    @Test func refreshMargin() {
        #expect(!tokens.needsRefresh(now: 939))
        #expect(tokens.needsRefresh(now: 941))
    }

    @Test func aRefreshWithoutRefreshTokenKeepsTheOldOne() {
        let next = tokens.refreshed(
            with: TokenResponse(accessToken: "A2", tokenType: "Bearer", scope: nil, expiresIn: 3600, refreshToken: nil),
            now: 2000)
        #expect(next.accessToken == "A2")
        #expect(next.refreshToken == "R1")
        #expect(next.expiresAt == 5600)
        #expect(next.scope == "a b")
        let rotated = tokens.refreshed(
            with: TokenResponse(accessToken: "A3", tokenType: nil, scope: "a", expiresIn: 60, refreshToken: "R2"),
            now: 0)
        #expect(rotated.refreshToken == "R2")
        #expect(rotated.scopes == ["a"])
    }

    @Test func statusRecordNeverCarriesTokens() throws {
        let store = FileTokenStore(directory: "/tmp/none")
        let record = AuthStatus(tokens: tokens, store: store, now: 400).json.serialized()
        #expect(!record.contains("A1") && !record.contains("R1"))
        #expect(
            record.hasPrefix(
                #"{"type":"auth_status","logged_in":true,"scopes":["a","b"],"expires_at":"1970-01-01T00:16:40Z","expires_in":600"#
            ))
    }
}

@Suite(.tags(.medium)) struct FileTokenStoreTests {
    func scratch() throws -> String {
        let path = NSTemporaryDirectory() + "token-store-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        chmod(path, 0o700)  // whatever umask another test has set meanwhile: the store only trusts private directories
        return path
    }

    func mode(_ path: String) -> mode_t {
        var info = stat()
        stat(path, &info)
        return info.st_mode & 0o777
    }

    let tokens = StoredTokens(
        accessToken: "A", scope: "s", expiresAt: 1, refreshToken: "R", clientID: "c", authorizedAt: 0)

    @Test func savesPrivatelyAndLoadsBack() throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        // The umask is the process's: a permissive one is tried in a child of its own
        // (UmaskTests), never here, where other tests create directories at the same time.
        let store = FileTokenStore(directory: base + "/config/spotify-toolkit")
        #expect(try store.load() == nil)
        try store.save(tokens)
        #expect(mode(store.directory) == 0o700)
        #expect(mode(store.path) == 0o600)
        #expect(try store.load() == tokens)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: store.directory).filter {
            $0.contains(".tmp")
        }
        #expect(leftovers.isEmpty)
        try store.remove()
        try store.remove()  // idempotent
        #expect(try store.load() == nil)
    }

    @Test func aDamagedStoreIsAConfigErrorNamingItsPathAndIsKept() throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let store = FileTokenStore(directory: base)
        try "{not json".write(toFile: store.path, atomically: true, encoding: .utf8)
        chmod(store.path, 0o600)
        let error = try #require(throws: ToolError.self) { try store.load() }
        #expect(error.exitCode == .config)
        #expect(error.message.contains(store.path))
        #expect(try String(contentsOfFile: store.path, encoding: .utf8) == "{not json")
    }

    @Test func anUnreadableStoreIsAConfigError() throws {
        guard getuid() != 0 else { return }  // root reads everything; the end-to-end test uses a directory instead
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let store = FileTokenStore(directory: base)
        try store.save(tokens)
        chmod(store.path, 0)
        #expect(throws: ToolError.self) { try store.load() }
    }
}
