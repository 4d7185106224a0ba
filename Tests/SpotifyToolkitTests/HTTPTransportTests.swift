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
        // A compressed answer's Content-Length counts the bytes on the wire, not the body read.
        #expect(
            HTTPResponseHead(status: 200, headers: ["Content-Length": "12", "Content-Encoding": "gzip"]).expectedLength
                == nil)
        #expect(
            HTTPResponseHead(status: 200, headers: ["Content-Length": "12", "content-encoding": "identity"])
                .expectedLength == 12)
    }

    /// 128,004 bytes of JSON (`[` + 4,000 x `{"id":"4iV5W9uYEdYUVa79Axb7Rh"},` + `{}]`), gzipped to 386.
    static let gzippedJSON = Data(
        base64Encoded:
            "H4sIAAAAAAACA+3JQQpAQBQA0Lv8tSWJnYULKCRZ0CzMAZSa3N1F3tu+vURO0Uedl2btnm1M27ycbTe8Vzvd8VXee++9995777333nvvvffee++9995777333nvvvffee++9995777333nvvvffee++9995777333nvvvffee++9995777333nvvvffee++9995777333nvvvffee++9995777333nvvvffee++9995777333nvvvffee++9995777333nvvvffee++9995777333nvvvffee++9995777333nvvvffee++9995777333nvvvffee++9995777333nvvvffee++9995777333nvvvffee++9995777333nvvvffee++9995777333nvvvffee++9995777333nvvvffee++9995777333nvvvffee++9995777333nvvvffee++9995777333nvvvffee++9995777335Tt+lY0CUwT0AQA="
    )!
    static let plainJSON = "[" + String(repeating: #"{"id":"4iV5W9uYEdYUVa79Axb7Rh"},"#, count: 4000) + "{}]"

    /// Issue 27: every request asks for compression, the answer is decoded, and the size cap
    /// applies to the decoded body (128,004 bytes), not to the 386 on the wire.
    @Test func answersAreAskedForCompressedDecodedAndCappedDecoded() async throws {
        let asked = Locked<[String]>([])
        let server = try LoopbackHTTPServer { request in
            let encodings = request.header("Accept-Encoding") ?? ""
            asked.withLock { $0.append(encodings) }
            guard encodings.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == "gzip" })
            else { return HTTPResponse(status: 406, headers: [], body: Array("gzip only\n".utf8)) }
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")],
                body: Array(Self.gzippedJSON))
        }
        server.start()
        defer { server.stop() }
        let request = HTTPClientRequest(url: try #require(URL(string: "http://127.0.0.1:\(server.port)/page")))
        let result = try await HTTPTransport(timeout: 5, maxBodyBytes: 1 << 20).send(request)
        #expect(result.status == 200, "asked for: \(asked.withLock { $0 })")
        #expect(result.body.count == Self.plainJSON.utf8.count)
        #expect(result.body == Data(Self.plainJSON.utf8))
        let capped = await #expect(throws: HTTPFailure.self) {
            try await HTTPTransport(timeout: 5, maxBodyBytes: 100_000).send(request)
        }
        #expect(capped == .tooLarge(host: "127.0.0.1:\(server.port)", limit: 100_000))
    }
}
