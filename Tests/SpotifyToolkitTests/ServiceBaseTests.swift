import Foundation
import Testing

@testable import SpotifyClient
@testable import ToolkitCore

/// Where tokens may go: never in clear beyond loopback, and a stored login only to
/// the services it was made against.
@Suite(.tags(.medium)) struct ServiceBaseTests {
    @Test func onlyLoopbackLiteralsAreLoopback() {
        for host in ["127.0.0.1", "127.1.2.3", "::1", "[::1]"] {
            #expect(LoopbackAddress.isLiteral(host), "\(host)")
        }
        for host in ["localhost", "192.0.2.10", "128.0.0.1", "127.0.0.1.evil.example", "api.spotify.test", "::2", ""] {
            #expect(!LoopbackAddress.isLiteral(host), "\(host)")
        }
    }

    @Test func httpBeyondLoopbackIsRefusedNamingTheSetting() throws {
        #expect(throws: ToolError.self) { try SpotifyWebAPI.apiBase("http://192.0.2.10/v1") }
        do {
            _ = try SpotifyWebAPI.apiBase("http://api.example.com/v1")
            Issue.record("accepted")
        } catch {
            #expect(error.exitCode == .config)
            #expect(error.message.contains("SPOTIFY_API_BASE is http://api.example.com"), "\(error.message)")
        }
        #expect(try SpotifyWebAPI.apiBase("http://127.0.0.1:8080/v1") == "http://127.0.0.1:8080/v1")
        #expect(try SpotifyWebAPI.apiBase("https://api.example.com/v1") == "https://api.example.com/v1")
        #expect(
            try SpotifyWebAPI.apiBase("http://api.example.com/v1", allowsInsecure: true) == "http://api.example.com/v1")
        let accounts = ToolEnvironment(["SPOTIFY_ACCOUNTS_BASE": "http://accounts.example.com"])
        let refused = #expect(throws: ToolError.self) { try AccountsClient(environment: accounts) }
        #expect(refused?.message.contains("SPOTIFY_ACCOUNTS_BASE is http://accounts.example.com") == true)
        #expect((try? AccountsClient(environment: ToolEnvironment(["SPOTIFY_ACCOUNTS_BASE": "http://[::1]:9"]))) != nil)
    }

    @Test func aStoredLoginIsSentOnlyToTheServicesItCameFrom() async throws {
        let library = try await Library()
        let fine = try await library.tracks(["3cEYpjA9oz9GiPac4AsH4n"])
        #expect(fine.status == 0, "\(fine.stderr)")
        // The same login with SPOTIFY_API_BASE pointing elsewhere: refused before any request.
        let elsewhere = try await library.tracks(
            ["3cEYpjA9oz9GiPac4AsH4n"], environment: ["SPOTIFY_API_BASE": "https://api.spotify.com/v1"])
        #expect(elsewhere.status == 77, "\(elsewhere.stderr)")
        #expect(
            elsewhere.stderr.contains("the stored login was made against \(library.fake.base)/v1"),
            "\(elsewhere.stderr)")
        #expect(
            elsewhere.stderr.contains("SPOTIFY_API_BASE now points to https://api.spotify.com/v1"),
            "\(elsewhere.stderr)")
        let accounts = try await library.run(
            "spotify-auth", ["refresh"], environment: ["SPOTIFY_ACCOUNTS_BASE": "https://accounts.spotify.com"])
        #expect(accounts.status == 77, "\(accounts.stderr)")
        #expect(
            accounts.stderr.contains("SPOTIFY_ACCOUNTS_BASE now points to https://accounts.spotify.com"),
            "\(accounts.stderr)")
    }

    /// A login stored before logins recorded their services came from Spotify: its tokens go to
    /// Spotify's own services only, not to whatever the environment names now.
    @Test func aLoginWithoutRecordedServicesIsSentOnlyToSpotify() async throws {
        let library = try await Library()
        var legacy = try #require(try library.fake.store.load())
        legacy.accountsBase = nil
        legacy.apiBase = nil
        try library.fake.store.save(legacy)
        let before = try await library.counters()["requests"]
        let read = try await library.tracks(["3cEYpjA9oz9GiPac4AsH4n"])
        #expect(read.status == 77, "\(read.stderr)")
        #expect(
            read.stderr.contains("the stored login was made against https://accounts.spotify.com"), "\(read.stderr)")
        #expect(read.stderr.contains("run 'spotify-auth login' for this one"), "\(read.stderr)")
        let refresh = try await library.run("spotify-auth", ["refresh"])
        #expect(refresh.status == 77, "\(refresh.stderr)")
        #expect(try await library.counters()["requests"] == before, "no request reached the server")
        #expect(try library.fake.store.load() == legacy, "the login is kept")
    }
}
