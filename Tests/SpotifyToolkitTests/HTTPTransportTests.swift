import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// The transport makes its URLSession (on Linux loads libcurl) on the first request, which a run
/// that never sends (no input, not logged in) should not pay for.
@Suite(.tags(.medium)) struct HTTPTransportTests {
    @Test func buildingTheClientsMakesNoSession() async throws {
        let environment = ToolEnvironment(["XDG_CONFIG_HOME": NSTemporaryDirectory() + "transport-\(UUID().uuidString)"]
        )
        let tokens = try TokenProvider(environment: environment, clock: { Date().timeIntervalSince1970 })
        let api = SpotifyWebAPI(environment: environment, tokens: tokens)
        #expect(!api.transport.session.isMade)
        #expect(await !tokens.accounts.transport.session.isMade)
    }

    @Test func theFirstRequestMakesOneSessionThatCopiesShare() async throws {
        let server = try LoopbackHTTPServer { _ in .text("ok\n") }
        server.start()
        defer { server.stop() }
        let transport = HTTPTransport(timeout: 5)
        let copy = transport
        let result = try await copy.send(HTTPClientRequest(url: URL(string: "http://127.0.0.1:\(server.port)/")!))
        #expect(result.status == 200)
        #expect(String(decoding: result.body, as: UTF8.self) == "ok\n")
        #expect(transport.session.isMade, "a copy of the transport sends through the same session")
        #expect(ObjectIdentifier(transport.session.engine) == ObjectIdentifier(copy.session.engine))
    }

    @Test func failuresAreTypedAndSayWhatTheyAlwaysSaid() async throws {
        let server = try LoopbackHTTPServer { _ in
            HTTPResponse(status: 302, headers: [("Location", "http://elsewhere.example:8080/x?token=y")], body: [])
        }
        server.start()
        defer { server.stop() }
        let transport = HTTPTransport(timeout: 5)
        let redirect = await #expect(throws: HTTPFailure.self) {
            try await transport.send(HTTPClientRequest(url: URL(string: "http://127.0.0.1:\(server.port)/a")!))
        }
        #expect(redirect?.isTransient == false)
        #expect(
            redirect?.toolError
                == .unavailable(
                    "127.0.0.1:\(server.port) answered GET /a with a redirect (HTTP 302) to elsewhere.example:8080; Spotify does not redirect API requests, so it was not followed (check SPOTIFY_API_BASE and SPOTIFY_ACCOUNTS_BASE)"
                ))

        let closed = try LoopbackHTTPServer { _ in .text("never\n") }
        let port = closed.port
        closed.stop()
        let unreachable = await #expect(throws: HTTPFailure.self) {
            try await transport.send(HTTPClientRequest(url: URL(string: "http://127.0.0.1:\(port)/")!))
        }
        #expect(unreachable?.isTransient == true)
        #expect(unreachable?.toolError.exitCode == .unavailable)
        #expect(unreachable?.toolError.message.hasPrefix("cannot reach 127.0.0.1:\(port): ") == true)
    }

    @Test func aRequestKeepsOneHeaderPerNameWhateverItsCase() throws {
        var request = HTTPClientRequest(url: try #require(URL(string: "http://h/")), headers: ["content-type": "a"])
        #expect(request.method == "GET" && request.body == nil)
        request.setHeader("Content-Type", "b")
        #expect(request.headers == ["Content-Type": "b"])
        #expect(request.header("CONTENT-TYPE") == "b")
        request.setHeader("content-TYPE", nil)
        #expect(request.headers.isEmpty)
    }

    @Test func anAnswersAnnouncedLengthIsItsContentLengthInAnyCase() {
        #expect(HTTPResponseHead(status: 200, headers: ["content-length": " 12"]).expectedLength == 12)
        #expect(HTTPResponseHead(status: 200, headers: ["Content-Length": "x"]).expectedLength == nil)
        #expect(HTTPResponseHead(status: 200, headers: [:]).expectedLength == nil)
    }
}
