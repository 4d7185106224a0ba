import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

@Suite(.tags(.small)) struct HTTPRequestParserTests {
    private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    private func parseError(_ s: String, maxHeaderBytes: Int = 64 << 10, maxBodyBytes: Int = 8 << 20) -> HTTPParseError?
    {
        do {
            _ = try HTTPRequestParser.parse(bytes(s), maxHeaderBytes: maxHeaderBytes, maxBodyBytes: maxBodyBytes)
            return nil
        } catch let e as HTTPParseError {
            return e
        } catch {
            return nil
        }
    }

    @Test func getWithQuery() throws {
        let raw = "GET /callback?code=AQB%2Fx&state=s+1 HTTP/1.1\r\nHost: 127.0.0.1:8888\r\nAccept: */*\r\n\r\n"
        let (request, consumed) = try #require(try HTTPRequestParser.parse(bytes(raw)))
        #expect(consumed == raw.utf8.count)
        #expect(request.method == "GET")
        #expect(request.target == "/callback?code=AQB%2Fx&state=s+1")
        #expect(request.path == "/callback")
        #expect(request.queryValue("code") == "AQB/x")
        #expect(request.queryValue("state") == "s 1")
        #expect(request.queryValue("nope") == nil)
        #expect(request.header("host") == "127.0.0.1:8888")
        #expect(request.body.isEmpty)
    }

    @Test func pathIsPercentDecodedWithoutPlus() throws {
        let (request, _) = try #require(try HTTPRequestParser.parse(bytes("GET /v1/search/a%20b+c HTTP/1.1\r\n\r\n")))
        #expect(request.path == "/v1/search/a b+c")
        #expect(request.query.isEmpty)
    }

    @Test func absoluteFormTarget() throws {
        let (request, _) = try #require(
            try HTTPRequestParser.parse(bytes("GET http://127.0.0.1:9/v1/me?x=1 HTTP/1.1\r\n\r\n")))
        #expect(request.path == "/v1/me")
        #expect(request.queryValue("x") == "1")
    }

    @Test func postWithFormBody() throws {
        let body =
            "grant_type=authorization_code&code=abc&redirect_uri=http%3A%2F%2F127.0.0.1%3A8888%2Fcallback&code_verifier=v"
        let raw =
            "POST /api/token HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
            + body
        let (request, consumed) = try #require(try HTTPRequestParser.parse(bytes(raw)))
        #expect(consumed == raw.utf8.count)
        #expect(request.method == "POST")
        #expect(request.bodyText == body)
        let form = request.formFields()
        #expect(URLForm.value("redirect_uri", in: form) == "http://127.0.0.1:8888/callback")
        #expect(URLForm.value("code_verifier", in: form) == "v")
    }

    @Test func consumedStopsAtTheEndOfTheBody() throws {
        let raw = "PUT /x HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcGET /next HTTP/1.1\r\n\r\n"
        let (request, consumed) = try #require(try HTTPRequestParser.parse(bytes(raw)))
        #expect(request.bodyText == "abc")
        #expect(consumed == raw.utf8.count - "GET /next HTTP/1.1\r\n\r\n".utf8.count)
    }

    @Test func headerNamesAreCaseInsensitiveAndValuesTrimmed() throws {
        let raw =
            "GET / HTTP/1.1\r\nAUTHORIZATION:   Bearer tok \t\r\ncontent-TYPE: application/json\r\nX-Empty:\r\n\r\n"
        let (request, _) = try #require(try HTTPRequestParser.parse(Array(raw.utf8)))
        #expect(request.header("Authorization") == "Bearer tok")
        #expect(request.header("authorization") == "Bearer tok")
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("x-empty") == "")
        #expect(request.header("Missing") == nil)
        #expect(request.headers.map(\.name) == ["AUTHORIZATION", "content-TYPE", "X-Empty"])
    }

    @Test func bareLFLineEndingsAndLeadingBlankLine() throws {
        let (request, _) = try #require(try HTTPRequestParser.parse(bytes("\r\nGET /a HTTP/1.0\nHost: x\n\n")))
        #expect(request.path == "/a")
        #expect(request.header("host") == "x")
    }

    @Test func incompleteInputNeedsMoreBytes() throws {
        let full = "POST /t HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello"
        let all = bytes(full)
        for n in 0..<all.count {
            #expect(try HTTPRequestParser.parse(Array(all.prefix(n))) == nil, "prefix \(n)")
        }
        #expect(try HTTPRequestParser.parse(all) != nil)
    }

    @Test(arguments: [
        "GET\r\n\r\n",
        "GET /\r\n\r\n",
        "GET / HTTP/1.1 extra\r\n\r\n",
        "GET  / HTTP/1.1\r\n\r\n",
        "G(T / HTTP/1.1\r\n\r\n",
        "GET / HTTX/1.1\r\n\r\n",
        "GET / HTTP/11\r\n\r\n",
        "GET nopath HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\nNoColon\r\n\r\n",
        "GET / HTTP/1.1\r\nBad Name: x\r\n\r\n",
        "GET / HTTP/1.1\r\n: empty-name\r\n\r\n",
        "GET / HTTP/1.1\r\nA: b\r\n  folded\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: abc\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
    ])
    func malformedRequestsAre400(raw: String) {
        #expect(parseError(raw)?.status == 400, "\(raw.debugDescription)")
    }

    @Test func repeatedIdenticalContentLengthIsFine() throws {
        let (request, _) = try #require(
            try HTTPRequestParser.parse(bytes("POST / HTTP/1.1\r\nContent-Length: 2\r\ncontent-length: 2\r\n\r\nok")))
        #expect(request.bodyText == "ok")
    }

    @Test func http2VersionIs505() {
        #expect(parseError("GET / HTTP/2.0\r\n\r\n")?.status == 505)
    }

    @Test func oversizedHead() {
        // Complete but too long, and incomplete but already too long: both fail instead of waiting.
        let big = "GET / HTTP/1.1\r\nX-Big: " + String(repeating: "a", count: 2000) + "\r\n\r\n"
        #expect(parseError(big, maxHeaderBytes: 1024)?.status == 431)
        let endless = "GET / HTTP/1.1\r\nX-Big: " + String(repeating: "a", count: 2000)
        #expect(parseError(endless, maxHeaderBytes: 1024)?.status == 431)
        #expect(parseError(big)?.status == nil)
    }

    @Test func oversizedBodyIs413BeforeTheBodyArrives() {
        #expect(parseError("POST / HTTP/1.1\r\nContent-Length: 101\r\n\r\n", maxBodyBytes: 100)?.status == 413)
        #expect(parseError("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n")?.status != nil)
    }

    @Test func chunkedIs411() {
        #expect(
            parseError("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")?.status == 411)
        #expect(parseError("POST / HTTP/1.1\r\ntransfer-encoding: gzip, chunked\r\n\r\n")?.status == 411)
    }

    @Test func requestInitDerivesPathAndQuery() {
        let r = HTTPRequest(method: "GET", target: "/a%2Fb?x=1&y")
        #expect(r.path == "/a/b")
        #expect(r.queryValue("x") == "1")
        #expect(r.queryValue("y") == "")
    }
}

@Suite(.tags(.small)) struct HTTPResponseTests {
    private func text(_ r: HTTPResponse, omitBody: Bool = false) -> String {
        String(decoding: r.serialized(omitBody: omitBody), as: UTF8.self)
    }

    @Test func textResponse() {
        let s = text(.text("héllo"))
        #expect(
            s
                == "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 6\r\nConnection: close\r\n\r\nhéllo"
        )
    }

    @Test func jsonAndHTMLContentTypes() {
        #expect(HTTPResponse.json("{}").header("content-type") == "application/json; charset=utf-8")
        #expect(HTTPResponse.html("<p>").header("Content-Type") == "text/html; charset=utf-8")
        #expect(HTTPResponse.json("{}", status: 201).status == 201)
    }

    @Test func noContentHasNoBodyOrLength() {
        let s = text(HTTPResponse(status: 204, body: Array("ignored".utf8)))
        #expect(s == "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
    }

    @Test func redirect() {
        let s = text(.redirect(to: "http://127.0.0.1:1/x?y=z"))
        #expect(
            s
                == "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:1/x?y=z\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
    }

    @Test func serverOwnedHeadersAreReplacedAndValuesCannotSplit() {
        let r = HTTPResponse(
            status: 200,
            headers: [("Content-Length", "999"), ("connection", "keep-alive"), ("X-A", "a\r\nX-Injected: 1")],
            body: [65])
        #expect(
            text(r) == "HTTP/1.1 200 OK\r\nX-A: a  X-Injected: 1\r\nContent-Length: 1\r\nConnection: close\r\n\r\nA")
    }

    @Test func headResponseKeepsLengthWithoutBody() {
        #expect(text(.text("abc"), omitBody: true).hasSuffix("Content-Length: 3\r\nConnection: close\r\n\r\n"))
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\n\r\n", true),
        ("GET / HTTP/1.1\r\nConnection: keep-alive\r\n\r\n", true),
        ("GET / HTTP/1.1\r\nConnection: close\r\n\r\n", false),
        ("GET / HTTP/1.1\r\nconnection: Upgrade, CLOSE\r\n\r\n", false),
        ("GET / HTTP/1.1\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n", false),
        ("GET / HTTP/1.0\r\n\r\n", false),
        ("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", true),
    ])
    func persistentConnectionFollowsVersionAndConnectionHeader(raw: String, persistent: Bool) throws {
        let (request, _) = try #require(try HTTPRequestParser.parse(Array(raw.utf8)))
        #expect(request.allowsPersistentConnection == persistent)
    }

    @Test func keptAliveResponseSaysSo() {
        #expect(text(.text("abc")).contains("\r\nConnection: close\r\n"))
        let kept = String(decoding: HTTPResponse.text("abc").serialized(keepAlive: true), as: UTF8.self)
        #expect(kept.hasSuffix("Content-Length: 3\r\nConnection: keep-alive\r\n\r\nabc"))
    }

    @Test func reasonPhrases() {
        let expected: [Int: String] = [
            200: "OK", 201: "Created", 204: "No Content", 302: "Found", 400: "Bad Request",
            401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
            411: "Length Required", 413: "Content Too Large", 429: "Too Many Requests",
            500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable",
        ]
        for (code, phrase) in expected { #expect(HTTPResponse.reasonPhrase(for: code) == phrase) }
    }
}
