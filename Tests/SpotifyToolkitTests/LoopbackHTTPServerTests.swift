import Foundation
import TestSupport
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Every test talks to a server on a loopback address with an ephemeral port, and every client
// operation has a timeout, so nothing here can hang or reach the network.

@Suite(.tags(.medium)) struct LoopbackHTTPServerTests {
    /// Echoes what it received, or answers specially for a few paths.
    static let echo: @Sendable (HTTPRequest) -> HTTPResponse = { request in
        switch request.path {
        case "/empty":
            return HTTPResponse(status: 204, body: Array("must not be sent".utf8))
        case "/go":
            return .redirect(to: "http://127.0.0.1:1/elsewhere?x=1")
        case "/json":
            return .json(#"{"ok":true}"#, status: 201)
        case "/big":
            return .text(String(repeating: "x", count: 4 << 20))
        default:
            var lines = ["method=\(request.method)", "path=\(request.path)"]
            lines += request.query.map { "q:\($0.name)=\($0.value)" }
            if !request.body.isEmpty {
                lines += request.formFields().map { "f:\($0.name)=\($0.value)" }
            }
            return .text(lines.joined(separator: "\n"))
        }
    }

    private func withServer<T>(host: String = "127.0.0.1", _ body: (LoopbackHTTPServer) async throws -> T) async throws
        -> T
    {
        let server = try LoopbackHTTPServer(host: host, port: 0, handler: Self.echo)
        server.start()
        defer { server.stop() }
        return try await body(server)
    }

    private func url(_ server: LoopbackHTTPServer, _ pathAndQuery: String) -> URL {
        let host = server.host.contains(":") ? "[\(server.host)]" : server.host
        return URL(string: "http://\(host):\(server.port)\(pathAndQuery)")!
    }

    @Test func bindsAnEphemeralPort() throws {
        let server = try LoopbackHTTPServer(handler: Self.echo)
        defer { server.stop() }
        #expect(server.port != 0)
        #expect(server.host == "127.0.0.1")
    }

    @Test func getWithQuery() async throws {
        try await withServer { server in
            let reply = try await HTTPTestClient.fetch(url(server, "/callback?code=abc%2F1&state=x+y"))
            #expect(reply.status == 200)
            #expect(reply.text == "method=GET\npath=/callback\nq:code=abc/1\nq:state=x y")
        }
    }

    @Test func postFormBodyArrivesDecoded() async throws {
        try await withServer { server in
            let body = URLForm.encode([
                ("grant_type", "authorization_code"), ("redirect_uri", "http://127.0.0.1:8888/callback"),
                ("name", "Björk & co"),
            ])
            let reply = try await HTTPTestClient.fetch(
                url(server, "/api/token"), method: "POST", body: Data(body.utf8),
                headers: ["Content-Type": "application/x-www-form-urlencoded"])
            #expect(reply.status == 200)
            #expect(reply.header("Content-Type") == "text/plain; charset=utf-8")
            #expect(
                reply.text
                    == "method=POST\npath=/api/token\nf:grant_type=authorization_code\nf:redirect_uri=http://127.0.0.1:8888/callback\nf:name=Björk & co"
            )
        }
    }

    @Test func largePostBody() async throws {
        try await withServer { server in
            let value = String(repeating: "z", count: 1 << 20)
            let reply = try await HTTPTestClient.fetch(
                url(server, "/upload"), method: "POST", body: Data(URLForm.encode([("v", value)]).utf8))
            #expect(reply.status == 200)
            #expect(reply.data.count == "method=POST\npath=/upload\nf:v=".utf8.count + value.utf8.count)
        }
    }

    @Test func jsonStatusAndContentType() async throws {
        try await withServer { server in
            let reply = try await HTTPTestClient.fetch(url(server, "/json"))
            #expect(reply.status == 201)
            #expect(reply.text == #"{"ok":true}"#)
            #expect(reply.header("Content-Type") == "application/json; charset=utf-8")
        }
    }

    @Test func noContentHasNoBody() async throws {
        try await withServer { server in
            let reply = try await HTTPTestClient.fetch(url(server, "/empty"))
            #expect(reply.status == 204)
            #expect(reply.data.isEmpty)
            let raw = try #require(RawClient.exchange("GET /empty HTTP/1.1\r\nHost: x\r\n\r\n", port: server.port))
            #expect(raw == "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
        }
    }

    @Test func redirectIsSentNotFollowed() async throws {
        try await withServer { server in
            let reply = try await HTTPTestClient.fetch(url(server, "/go"))
            #expect(reply.status == 302)
            #expect(reply.header("Location") == "http://127.0.0.1:1/elsewhere?x=1")
            let raw = try #require(RawClient.exchange("GET /go HTTP/1.1\r\n\r\n", port: server.port))
            #expect(raw.hasPrefix("HTTP/1.1 302 Found\r\n"))
            #expect(raw.contains("\r\nLocation: http://127.0.0.1:1/elsewhere?x=1\r\n"))
            #expect(raw.contains("\r\nContent-Length: 0\r\n"))
        }
    }

    @Test func rawResponseFraming() async throws {
        try await withServer { server in
            let raw = try #require(
                RawClient.exchange(
                    "GET /a?b=c HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n", port: server.port))
            let body = "method=GET\npath=/a\nq:b=c"
            #expect(
                raw
                    == "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
                    + body)
            let head = try #require(RawClient.exchange("HEAD /a HTTP/1.1\r\n\r\n", port: server.port))
            #expect(head.hasSuffix("Content-Length: \("method=HEAD\npath=/a".utf8.count)\r\nConnection: close\r\n\r\n"))
        }
    }

    @Test func badRequestsGetErrorStatuses() async throws {
        try await withServer { server in
            let bad = try #require(RawClient.exchange("NOT A VALID REQUEST LINE\r\n\r\n", port: server.port))
            #expect(bad.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
            let chunked = try #require(
                RawClient.exchange(
                    "POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", port: server.port))
            #expect(chunked.hasPrefix("HTTP/1.1 411 Length Required\r\n"))
            let tooBig = try #require(
                RawClient.exchange(
                    "POST /x HTTP/1.1\r\nContent-Length: \(LoopbackHTTPServer.maxBodyBytes + 1)\r\n\r\n",
                    port: server.port))
            #expect(tooBig.hasPrefix("HTTP/1.1 413 Content Too Large\r\n"))
            let hugeHead =
                "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: LoopbackHTTPServer.maxHeaderBytes) + "\r\n\r\n"
            let headReply = try #require(RawClient.exchange(hugeHead, port: server.port))
            #expect(headReply.hasPrefix("HTTP/1.1 431 "))
        }
    }

    @Test func expectContinueIsHonoured() async throws {
        try await withServer { server in
            let fd = try #require(RawClient.connect(port: server.port))
            defer { close(fd) }
            #expect(RawClient.send(fd, "POST /c HTTP/1.1\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n"))
            let interim = RawClient.receive(fd, until: "\r\n\r\n")
            #expect(interim == "HTTP/1.1 100 Continue\r\n\r\n")
            #expect(RawClient.send(fd, "a=b"))
            let rest = RawClient.receiveAll(fd)
            #expect(rest.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(rest.hasSuffix("method=POST\npath=/c\nf:a=b"))
        }
    }

    @Test func thirtyConcurrentRequests() async throws {
        try await withServer { server in
            let results = try await withThrowingTaskGroup(of: (Int, Int, String).self) { group in
                for i in 0..<30 {
                    group.addTask {
                        let reply = try await HTTPTestClient.fetch(url(server, "/n?i=\(i)"))
                        return (i, reply.status, reply.text)
                    }
                }
                var all: [(Int, Int, String)] = []
                for try await r in group { all.append(r) }
                return all
            }
            #expect(results.count == 30)
            for (i, status, text) in results {
                #expect(status == 200)
                #expect(text == "method=GET\npath=/n\nq:i=\(i)")
            }
        }
    }

    @Test func aSilentClientDoesNotBlockOthers() async throws {
        try await withServer { server in
            let silent = try #require(RawClient.connect(port: server.port))
            defer { close(silent) }
            #expect(RawClient.send(silent, "GET /partial HTTP/1.1\r\n"))  // never finishes the head
            let status = try await HTTPTestClient.fetch(url(server, "/other")).status
            #expect(status == 200)
        }
    }

    /// Idle connections (the review opened 19,000) never get more than the cap of threads,
    /// and a real request still gets its answer once the idle ones have been closed.
    @Test func idleConnectionsAreCappedAndClosed() throws {
        let server = try LoopbackHTTPServer(
            host: "127.0.0.1", port: 0, maxConnections: 3, requestTimeoutSeconds: 1, handler: Self.echo)
        server.start()
        defer { server.stop() }
        var idle: [Int32] = []
        defer { for fd in idle { close(fd) } }
        for _ in 0..<9 {  // three rounds of the cap; the real request waits in the backlog behind them
            if let fd = RawClient.connect(port: server.port) { idle.append(fd) }
        }
        let reply = RawClient.exchange("GET /real HTTP/1.1\r\nHost: x\r\n\r\n", port: server.port) ?? ""
        #expect(reply.hasPrefix("HTTP/1.1 200"))
        #expect(server.peakConnectionCount <= 3)
        // The idle ones were hung up on, not left open.
        #expect(RawClient.receiveAll(idle[0]) == "")
    }

    /// A client that trickles its request a byte at a time is closed when its time is up,
    /// however often it sends.
    @Test func aTricklingClientIsClosedAtTheDeadline() throws {
        let server = try LoopbackHTTPServer(host: "127.0.0.1", port: 0, requestTimeoutSeconds: 1, handler: Self.echo)
        server.start()
        defer { server.stop() }
        let fd = try #require(RawClient.connect(port: server.port))
        defer { close(fd) }
        var closedByServer = false
        for byte in String(repeating: "GET /slow", count: 20) {  // bounded: 180 bytes, 50 ms apart = 9 s
            usleep(50_000)
            var probe = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&probe, 1, 0) > 0 {  // readable with nothing to read: the server hung up
                closedByServer = true
                break
            }
            _ = RawClient.send(fd, String(byte))
        }
        #expect(closedByServer)
    }

    @Test func clientHangingUpMidResponseDoesNotKillTheServer() async throws {
        try await withServer { server in
            for _ in 0..<3 {
                let fd = try #require(RawClient.connect(port: server.port))
                #expect(RawClient.send(fd, "GET /big HTTP/1.1\r\n\r\n"))
                close(fd)  // the server's 4 MiB write now hits a closed socket (EPIPE/ECONNRESET, never SIGPIPE)
            }
            try await Task.sleep(nanoseconds: 200_000_000)
            let status = try await HTTPTestClient.fetch(url(server, "/still-alive")).status
            #expect(status == 200)
        }
    }

    // MARK: Keep-alive (fake-spotify's servers; the login listener keeps one request per connection)

    private func withKeptAliveServer<T>(idleSeconds: Int = 5, _ body: (LoopbackHTTPServer) throws -> T) throws -> T {
        let server = try LoopbackHTTPServer(host: "127.0.0.1", port: 0, keepAliveIdleSeconds: idleSeconds) { request in
            if request.path == "/truncate" {
                var response = HTTPResponse.text("0123456789")
                response.transportFault = .truncateBody(keeping: 4)
                return response
            }
            return Self.echo(request)
        }
        server.start()
        defer { server.stop() }
        return try body(server)
    }

    @Test func aKeptAliveConnectionServesRequestsInTurn() throws {
        try withKeptAliveServer { server in
            let fd = try #require(RawClient.connect(port: server.port))
            defer { close(fd) }
            for path in ["/one", "/two"] {
                #expect(RawClient.send(fd, "GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n"))
                let reply = RawClient.receiveResponse(fd)
                #expect(reply.hasPrefix("HTTP/1.1 200 OK\r\n"))
                #expect(reply.contains("\r\nConnection: keep-alive\r\n"))
                #expect(reply.hasSuffix("method=GET\npath=\(path)"))
            }
            // Two requests sent at once (pipelined) are answered in order; the second asks to close.
            #expect(RawClient.send(fd, "GET /three HTTP/1.1\r\n\r\nGET /four HTTP/1.1\r\nConnection: close\r\n\r\n"))
            #expect(RawClient.receiveResponse(fd).hasSuffix("path=/three"))
            let last = RawClient.receiveResponse(fd)
            #expect(last.contains("\r\nConnection: close\r\n"))
            #expect(last.hasSuffix("path=/four"))
            #expect(RawClient.receiveAll(fd) == "")  // and then it hangs up
        }
    }

    @Test func anHTTP10ClientGetsOneAnswerPerConnection() throws {
        try withKeptAliveServer { server in
            let reply = try #require(RawClient.exchange("GET /old HTTP/1.0\r\n\r\n", port: server.port))
            #expect(reply.contains("\r\nConnection: close\r\n"))
            #expect(reply.hasSuffix("path=/old"))
        }
    }

    @Test func aBrokenAnswerEndsTheConnection() throws {
        try withKeptAliveServer { server in
            let fd = try #require(RawClient.connect(port: server.port))
            defer { close(fd) }
            #expect(RawClient.send(fd, "GET /truncate HTTP/1.1\r\n\r\n"))
            let reply = RawClient.receiveAll(fd)  // returns only because the server closed
            #expect(reply.contains("Content-Length: 10\r\nConnection: close\r\n\r\n0123"))
            #expect(!reply.contains("0123456789"))
        }
    }

    @Test func anIdleKeptAliveConnectionIsClosedAfterItsIdleTime() throws {
        try withKeptAliveServer(idleSeconds: 1) { server in
            let fd = try #require(RawClient.connect(port: server.port))
            defer { close(fd) }
            #expect(RawClient.send(fd, "GET /once HTTP/1.1\r\n\r\n"))
            #expect(RawClient.receiveResponse(fd).hasSuffix("path=/once"))
            let start = DispatchTime.now().uptimeNanoseconds
            #expect(RawClient.receiveAll(fd) == "")
            // Closed by the server after about a second, not by the client's 10 s receive timeout.
            #expect(DispatchTime.now().uptimeNanoseconds - start < 8_000_000_000)
        }
    }

    /// Idle kept-alive connections never lock out a client with a request: at the cap they are
    /// closed to make room.
    @Test func idleKeptAliveConnectionsMakeRoomAtTheCap() throws {
        let server = try LoopbackHTTPServer(
            host: "127.0.0.1", port: 0, maxConnections: 2, keepAliveIdleSeconds: 30, handler: Self.echo)
        server.start()
        defer { server.stop() }
        var kept: [Int32] = []
        defer { for fd in kept { close(fd) } }
        for path in ["/a", "/b"] {
            let fd = try #require(RawClient.connect(port: server.port))
            kept.append(fd)
            #expect(RawClient.send(fd, "GET \(path) HTTP/1.1\r\n\r\n"))
            #expect(RawClient.receiveResponse(fd).hasSuffix("path=\(path)"))
        }
        let start = DispatchTime.now().uptimeNanoseconds
        let reply = RawClient.exchange("GET /third HTTP/1.1\r\nConnection: close\r\n\r\n", port: server.port) ?? ""
        #expect(reply.hasSuffix("path=/third"))
        #expect(DispatchTime.now().uptimeNanoseconds - start < 8_000_000_000)  // not the 30 s idle time
        #expect(server.peakConnectionCount <= 2)
    }

    @Test func stopClosesKeptAliveConnectionsWaitingForARequest() throws {
        let server = try LoopbackHTTPServer(host: "127.0.0.1", port: 0, keepAliveIdleSeconds: 30, handler: Self.echo)
        server.start()
        defer { server.stop() }
        let fd = try #require(RawClient.connect(port: server.port))
        defer { close(fd) }
        #expect(RawClient.send(fd, "GET /before HTTP/1.1\r\n\r\n"))
        #expect(RawClient.receiveResponse(fd).hasSuffix("path=/before"))
        server.stop()
        let start = DispatchTime.now().uptimeNanoseconds
        #expect(RawClient.receiveAll(fd) == "")
        #expect(DispatchTime.now().uptimeNanoseconds - start < 8_000_000_000)  // not the 30 s idle time
    }

    @Test func stopClosesTheListeningSocket() async throws {
        let server = try LoopbackHTTPServer(handler: Self.echo)
        server.start()
        let status = try await HTTPTestClient.fetch(url(server, "/before")).status
        #expect(status == 200)
        server.stop()
        server.stop()  // idempotent
        #expect(RawClient.connect(port: server.port) == nil)
        await #expect(throws: (any Error).self) {
            _ = try await HTTPTestClient.fetch(url(server, "/after"), timeout: 3)
        }
        server.start()  // no effect after stop
        #expect(RawClient.connect(port: server.port) == nil)
    }

    /// The OAuth listener's pattern: the handler that receives the callback stops the server.
    @Test func handlerMayStopItsOwnServer() async throws {
        let box = ServerBox()
        let server = try LoopbackHTTPServer { request in
            box.server?.stop()
            return .html("<p>done \(request.queryValue("code") ?? "")</p>")
        }
        box.server = server
        server.start()
        let reply = try await HTTPTestClient.fetch(url(server, "/callback?code=c0de"))
        #expect(reply.status == 200)
        #expect(reply.text == "<p>done c0de</p>")
        #expect(RawClient.connect(port: server.port) == nil)
    }

    @Test func stopWithoutStartReleasesThePort() throws {
        let server = try LoopbackHTTPServer(handler: Self.echo)
        let port = server.port
        server.stop()
        let again = try LoopbackHTTPServer(port: port, handler: Self.echo)
        again.stop()
    }

    @Test(.enabled(if: RawClient.canBindIPv6Loopback(), "::1 cannot be bound on this machine"))
    func ipv6Loopback() async throws {
        // The IPv4 probe below must tell this listener from any other: the echo servers other
        // tests run at the same time would echo its path too, should one hold the same number.
        let server = try LoopbackHTTPServer(host: "::1", port: 0) { request in
            request.path == "/only-on-six" ? .text("the IPv6-only listener") : Self.echo(request)
        }
        server.start()
        defer { server.stop() }
        #expect(server.host == "::1")
        // A raw client: URLSession on Linux rejects IPv6-literal URLs with NSURLErrorBadURL
        // (swift-corelibs-foundation issue #5496), which is not what this test is about.
        let raw = try #require(
            RawClient.exchange("GET /six?v=6 HTTP/1.1\r\nHost: [::1]\r\n\r\n", host: "::1", port: server.port))
        #expect(raw.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(raw.hasSuffix("\r\n\r\nmethod=GET\npath=/six\nq:v=6"))
        // IPV6_V6ONLY: nothing of ours answers on the IPv4 side of this port. Another listener
        // may hold the same number for IPv4 (ports are per family; this process runs many
        // servers at once), so what counts is that it is not this one answering.
        let four = RawClient.exchange(
            "GET /only-on-six HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", port: server.port)
        #expect(four?.contains("the IPv6-only listener") != true, "the IPv6-only listener answered on IPv4")
    }

    @Test(arguments: [
        "0.0.0.0", "192.168.1.1", "10.0.0.1", "128.0.0.1", "localhost", "::", "::ffff:127.0.0.1", "", "example.com",
        "127.0.0.1 ",
    ])
    func nonLoopbackHostsAreRejected(host: String) {
        do {
            let server = try LoopbackHTTPServer(host: host, handler: Self.echo)
            server.stop()
            Issue.record("accepted \(host.debugDescription)")
        } catch let error as ToolError {
            #expect(error.exitCode == .usage)
            #expect(error.message.contains("loopback"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func otherLoopbackAddressesAreAllowed() {
        // All of 127/8 is loopback. Linux routes it all to lo; macOS only configures 127.0.0.1,
        // so there binding 127.0.0.2 may fail, but with .unavailable, never .usage.
        do {
            let server = try LoopbackHTTPServer(host: "127.0.0.2", handler: Self.echo)
            #expect(server.host == "127.0.0.2")
            server.stop()
        } catch let error as ToolError {
            #expect(error.exitCode == .unavailable)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func portInUseIsUnavailable() throws {
        let first = try LoopbackHTTPServer(handler: Self.echo)
        defer { first.stop() }
        do {
            let second = try LoopbackHTTPServer(port: first.port, handler: Self.echo)
            second.stop()
            Issue.record("bound port \(first.port) twice")
        } catch let error as ToolError {
            #expect(error.exitCode == .unavailable)
            #expect(
                error.message == "cannot listen on 127.0.0.1:\(first.port): \(String(cString: strerror(EADDRINUSE)))")
        }
    }
}

// MARK: - Clients

/// Lets a handler reach the server it belongs to. The lock makes the cross-thread access sound.
final class ServerBox: @unchecked Sendable {
    private let lock = NSLock()
    private var _server: LoopbackHTTPServer?
    var server: LoopbackHTTPServer? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return _server
        }
        set {
            lock.lock()
            defer { lock.unlock() }
            _server = newValue
        }
    }
}

/// A blocking socket client for checking exact bytes on the wire. Loopback only, 10 s timeouts.
enum RawClient {
    static func connect(host: String = "127.0.0.1", port: UInt16) -> Int32? {
        let isIPv6 = host.contains(":")
        let family = isIPv6 ? AF_INET6 : AF_INET
        #if canImport(Glibc)
        let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(family, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return nil }
        var tv = timeval()
        tv.tv_sec = 10
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        let rc: Int32
        if isIPv6 {
            var sa = sockaddr_in6()
            #if canImport(Darwin)
            sa.sin6_len = UInt8(MemoryLayout<sockaddr_in6>.size)
            #endif
            sa.sin6_family = sa_family_t(AF_INET6)
            sa.sin6_port = port.bigEndian
            _ = inet_pton(AF_INET6, host, &sa.sin6_addr)
            rc = withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sysConnect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var sa = sockaddr_in()
            #if canImport(Darwin)
            sa.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            #endif
            sa.sin_family = sa_family_t(AF_INET)
            sa.sin_port = port.bigEndian
            _ = inet_pton(AF_INET, host, &sa.sin_addr)
            rc = withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sysConnect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        if rc != 0 {
            close(fd)
            return nil
        }
        return fd
    }

    private static func sysConnect(_ fd: Int32, _ addr: UnsafePointer<sockaddr>, _ len: socklen_t) -> Int32 {
        #if canImport(Glibc)
        Glibc.connect(fd, addr, len)
        #else
        Darwin.connect(fd, addr, len)
        #endif
    }

    static func send(_ fd: Int32, _ text: String) -> Bool {
        #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { raw in
                #if canImport(Glibc)
                Glibc.send(fd, raw.baseAddress, raw.count, flags)
                #else
                Darwin.send(fd, raw.baseAddress, raw.count, flags)
                #endif
            }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    /// Reads until the peer closes (or the 10 s timeout, or an error).
    static func receiveAll(_ fd: Int32) -> String {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            out += chunk[0..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Reads one byte at a time until `marker` has arrived.
    static func receive(_ fd: Int32, until marker: String) -> String {
        var out: [UInt8] = []
        var byte: UInt8 = 0
        while !String(decoding: out, as: UTF8.self).hasSuffix(marker) {
            if recv(fd, &byte, 1, 0) != 1 { break }
            out.append(byte)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Reads one response whose body length is given by Content-Length (or that has none).
    static func receiveResponse(_ fd: Int32) -> String {
        let head = receive(fd, until: "\r\n\r\n")
        let length =
            head.split(separator: "\r\n")
            .first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        var body = [UInt8](repeating: 0, count: length)
        var got = 0
        while got < length {
            let n = body[got...].withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            got += n
        }
        return head + String(decoding: body[0..<got], as: UTF8.self)
    }

    /// Sends `request` (ignoring a failure part-way, as a server may answer early) and reads the whole reply.
    static func exchange(_ request: String, host: String = "127.0.0.1", port: UInt16) -> String? {
        guard let fd = connect(host: host, port: port) else { return nil }
        defer { close(fd) }
        _ = send(fd, request)
        return receiveAll(fd)
    }

    static func canBindIPv6Loopback() -> Bool {
        guard let server = try? LoopbackHTTPServer(host: "::1", handler: { _ in .text("") }) else { return false }
        server.stop()
        return true
    }
}
