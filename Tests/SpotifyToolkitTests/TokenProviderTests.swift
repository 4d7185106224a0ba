import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// TokenProvider against a minimal accounts service on loopback (in process).
@Suite(.tags(.medium)) struct TokenProviderTests {
    final class Counter: @unchecked Sendable {  // guarded by lock
        let lock = NSLock()
        var count = 0
        func increment() {
            lock.lock()
            count += 1
            lock.unlock()
        }
        var value: Int {
            lock.lock()
            defer { lock.unlock() }
            return count
        }
    }

    struct Fixture {
        let server: LoopbackHTTPServer
        let store: FileTokenStore
        let provider: TokenProvider
        let refreshes: Counter
    }

    func fixture(
        status: Int = 200,
        body: String =
            #"{"access_token":"NEW","token_type":"Bearer","expires_in":3600,"refresh_token":"R2","scope":"a"}"#
    ) throws -> Fixture {
        let refreshes = Counter()
        let server = try LoopbackHTTPServer { request in
            guard request.path == "/api/token", URLForm.value("grant_type", in: request.formFields()) == "refresh_token"
            else {
                return .text("unexpected\n", status: 404)
            }
            refreshes.increment()
            usleep(200_000)  // a slow refresh: every concurrent caller arrives while it is in flight
            return .json(body, status: status)
        }
        server.start()
        let directory = NSTemporaryDirectory() + "provider-\(UUID().uuidString)"
        let environment = ToolEnvironment([
            "XDG_CONFIG_HOME": directory, "SPOTIFY_ACCOUNTS_BASE": "http://127.0.0.1:\(server.port)",
        ])
        let store = FileTokenStore(directory: environment.configDirectory)
        var tokens = StoredTokens(
            accessToken: "OLD", scope: "a", expiresAt: 0, refreshToken: "R1", clientID: "c", authorizedAt: 0)
        tokens.accountsBase = "http://127.0.0.1:\(server.port)"  // a login made against this server
        try store.save(tokens)
        return Fixture(
            server: server, store: store,
            provider: try TokenProvider(
                environment: environment, store: store, clock: { Date().timeIntervalSince1970 }),
            refreshes: refreshes)
    }

    @Test func concurrentCallersShareOneRefresh() async throws {
        let f = try fixture()
        defer { f.server.stop() }
        let provider = f.provider
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<10 { group.addTask { try await provider.accessToken() } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(tokens == Array(repeating: "NEW", count: 10))
        #expect(f.refreshes.value == 1)
        #expect(try f.store.load()?.refreshToken == "R2")
        // A caller whose request was rejected with the old token gets the new one, no second refresh.
        #expect(try await provider.accessToken(afterRejectionOf: "OLD") == "NEW")
        #expect(f.refreshes.value == 1)
    }

    @Test func serverErrorsKeepTheTokens() async throws {
        let f = try fixture(status: 503, body: #"{"error":"server_error"}"#)
        defer { f.server.stop() }
        let error = await #expect(throws: ToolError.self) { try await f.provider.accessToken() }
        #expect(error?.exitCode == .unavailable)
        #expect(try f.store.load()?.refreshToken == "R1")
    }

    @Test func invalidGrantEndsTheSession() async throws {
        let f = try fixture(
            status: 400, body: #"{"error":"invalid_grant","error_description":"Refresh token revoked"}"#)
        defer { f.server.stop() }
        let error = await #expect(throws: ToolError.self) { try await f.provider.accessToken() }
        #expect(error?.exitCode == .noPermission)
        // The fixture's login is from 1970: old enough for the six-month explanation.
        #expect(
            error?.message
                == "Spotify ended the session (Refresh token revoked (invalid_grant)); refresh tokens last six months and this login is from 1970-01-01T00:00:00Z; run 'spotify-auth login' to log in again"
        )
        #expect(try f.store.load() == nil)
    }
}
