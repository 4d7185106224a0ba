import Dispatch
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A minimal HTTP/1.1 server that only ever listens on a loopback address.
///
/// Serves the OAuth redirect listener of `spotify-auth login` and `fake-spotify`. By default
/// each connection carries exactly one request: the response says `Connection: close` and the
/// connection is closed after it. With `keepAliveIdleSeconds` (fake-spotify, to behave like
/// Spotify's servers, which keep connections open) a connection serves requests one after
/// another until the client closes it, asks to, or sends nothing for that long.
/// Request bodies must use Content-Length (chunked → 411).
/// Each connection is served on its own thread; at most `maxConnections` at a time (more wait in
/// the kernel's backlog), and a connection that has not delivered its whole request within
/// `requestTimeoutSeconds` is closed, so idle or trickling clients cannot pile up threads.
package final class LoopbackHTTPServer: Sendable {
    /// The address the socket is bound to, as given ("127.0.0.1", "127.0.0.2", "::1", ...).
    package let host: String
    /// The bound port (the kernel-chosen one when 0 was requested).
    package let port: UInt16

    /// Largest request head accepted (431 beyond).
    static let maxHeaderBytes = 64 << 10
    /// Largest request body accepted (413 beyond).
    package static let maxBodyBytes = 8 << 20
    /// Send timeout per connection, in seconds.
    static let ioTimeoutSeconds = 10
    /// Connections served at once (more wait in the backlog until one finishes).
    package let maxConnections: Int
    /// Time a client has to deliver its whole request, however it trickles in.
    package let requestTimeoutSeconds: Int
    /// How long an open connection may wait for its next request; nil: one request per connection.
    package let keepAliveIdleSeconds: Int?

    private let listenFD: Int32
    private let handler: @Sendable (HTTPRequest) -> HTTPResponse
    private let state = LockedState()

    /// Binds and listens on `host:port` (port 0 = ephemeral); call `start()` to serve.
    ///
    /// `host` must be a loopback literal: 127.x.y.z or "::1"; anything else throws `ToolError.usage`.
    /// A bind or listen failure (e.g. port in use) throws `ToolError.unavailable` with the strerror text.
    package init(
        host: String = "127.0.0.1", port: UInt16 = 0, maxConnections: Int = 64, requestTimeoutSeconds: Int = 10,
        keepAliveIdleSeconds: Int? = nil, handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse
    ) throws {
        guard let address = LoopbackAddress(host) else {
            throw ToolError.usage(
                """
                refusing to listen on '\(host)': only a loopback address (127.0.0.1, another 127.x.y.z, or ::1) is \
                allowed
                """
            )
        }
        let display = address.isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
        func failure(_ err: Int32) -> ToolError {
            ToolError.unavailable("cannot listen on \(display): \(String(cString: strerror(err)))")
        }

        let fd = Socket.make(family: address.isIPv6 ? AF_INET6 : AF_INET)
        guard fd >= 0 else { throw failure(errno) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if address.isIPv6 {
            _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        if Self.bind(fd, to: address, port: port) != 0 {
            let err = errno
            close(fd)
            throw failure(err)
        }
        // Non-blocking, so an accept() after a connection was aborted between poll() and accept()
        // returns EAGAIN instead of blocking the loop (and stop()).
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        if listen(fd, 128) != 0 {
            let err = errno
            close(fd)
            throw failure(err)
        }

        self.host = host
        self.port = Self.boundPort(fd, isIPv6: address.isIPv6) ?? port
        self.maxConnections = max(1, maxConnections)
        self.requestTimeoutSeconds = max(1, requestTimeoutSeconds)
        self.keepAliveIdleSeconds = keepAliveIdleSeconds.map { max(1, $0) }
        self.listenFD = fd
        self.handler = handler
    }

    /// Binds `fd` to the loopback `address` at `port`: 0, or -1 with errno set.
    private static func bind(_ fd: Int32, to address: LoopbackAddress, port: UInt16) -> Int32 {
        switch address {
        case .v4(let addr):
            var sa = sockaddr_in()
            sa.sin_family = sa_family_t(AF_INET)
            sa.sin_port = port.bigEndian
            sa.sin_addr = addr
            return bind(fd, to: sa)
        case .v6(let addr):
            var sa = sockaddr_in6()
            sa.sin6_family = sa_family_t(AF_INET6)
            sa.sin6_port = port.bigEndian
            sa.sin6_addr = addr
            return bind(fd, to: sa)
        }
    }

    /// The port `fd` is bound to (the kernel's choice when 0 was asked for); nil when it cannot be read back.
    private static func boundPort(_ fd: Int32, isIPv6: Bool) -> UInt16? {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let gotName = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        guard gotName == 0 else { return nil }
        return withUnsafePointer(to: &storage) { ptr in
            isIPv6
                ? ptr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
                : ptr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
    }

    /// The most connections served at once so far (for tests of the cap).
    var peakConnectionCount: Int { state.peakConnectionCount }

    deinit {
        // Only reached when the accept loop is not running (it keeps the server alive).
        state.closeOnce { close(listenFD) }
    }

    /// Starts the accept loop on a background thread. Calling it again, or after `stop()`, does nothing.
    package func start() {
        guard let wake = state.markStarted() else { return }
        detachThread { [self] in
            acceptLoop(wakeFD: wake)
        }
    }

    /// bind(2) with an IPv4 or IPv6 socket address.
    private static func bind<SocketAddress>(_ fd: Int32, to address: SocketAddress) -> Int32 {
        var address = address
        return withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                #if canImport(Darwin)
                // BSD's addresses carry their own length.
                $0.pointee.sa_len = UInt8(MemoryLayout<SocketAddress>.size)
                #endif
                return systemBind(fd, $0, socklen_t(MemoryLayout<SocketAddress>.size))
            }
        }
    }

    /// Stops accepting and closes the listening socket before returning, so new connections
    /// are refused. Idempotent. Requests already received are still answered; kept-alive
    /// connections waiting for their next request are closed.
    package func stop() {
        switch state.markStopped() {
        case .alreadyStopped:
            return
        case .neverStarted:
            break
        case .running(let wakeWriteFD, let loopExited):
            var byte: UInt8 = 1
            _ = write(wakeWriteFD, &byte, 1)
            // The loop notices within a poll() wake-up; the bound keeps stop() from ever hanging.
            _ = loopExited.wait(timeout: .now() + 5)
        }
        state.closeOnce { close(listenFD) }
        state.shutDownIdleConnections()
    }

    // MARK: - Accept loop

    private func acceptLoop(wakeFD: (read: Int32, write: Int32, exited: DispatchSemaphore)) {
        defer {
            close(wakeFD.read)
            wakeFD.exited.signal()
        }
        while true {
            // At the cap: stop accepting (new clients wait in the backlog) and look again shortly;
            // kept-alive connections that wait idle make room, as a client with a request comes first.
            let hasRoom = state.connectionCount < maxConnections
            if !hasRoom { state.shutDownIdleConnections() }
            var fds = [
                pollfd(fd: listenFD, events: hasRoom ? Int16(POLLIN) : 0, revents: 0),
                pollfd(fd: wakeFD.read, events: Int16(POLLIN), revents: 0),
            ]
            let n = poll(&fds, 2, hasRoom ? -1 : 20)
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 || state.isStopped { return }
            guard fds[0].revents & Int16(POLLIN) != 0 else {
                if fds[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return }
                continue
            }
            let client = Socket.accept(listenFD)
            if client < 0 {
                switch errno {
                case EINTR, ECONNABORTED, EAGAIN, EPROTO:
                    continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    usleep(50_000)  // out of descriptors or memory: back off instead of spinning
                    continue
                default:
                    return
                }
            }
            let handler = self.handler
            let limits = ConnectionLimits(
                requestTimeoutSeconds: requestTimeoutSeconds, keepAliveIdleSeconds: keepAliveIdleSeconds)
            let state = self.state
            state.connectionOpened()
            detachThread {
                defer { state.connectionClosed() }
                LoopbackHTTPServer.serve(client: client, limits: limits, state: state, handler: handler)
            }
        }
    }

    // MARK: - One connection

    struct ConnectionLimits: Sendable {
        var requestTimeoutSeconds: Int
        var keepAliveIdleSeconds: Int?
    }

    /// Serves requests on one connection: just one, or with keep-alive one after another until
    /// the client closes or goes quiet, a response must close (a fault, a parse error), or the
    /// server stops.
    private static func serve(
        client fd: Int32, limits: ConnectionLimits, state: LockedState, handler: @Sendable (HTTPRequest) -> HTTPResponse
    ) {
        defer { close(fd) }
        Socket.configureConnection(fd, timeoutSeconds: ioTimeoutSeconds)
        var buffer: [UInt8] = []
        while true {
            guard
                let (request, consumed, response) = readRequest(
                    fd, buffer: &buffer, timeoutSeconds: limits.requestTimeoutSeconds, handler: handler)
            else { return }
            if response.transportFault == .reset {
                _ = Socket.sendAll(fd, Array(response.statusLine.utf8))
                Socket.reset(fd)
                return
            }
            if response.transportFault == .dropAnswer { return }  // the caller closes the socket
            // How long to wait for another request on this connection; nil: close after this one.
            let idleSeconds =
                response.transportFault == nil && request?.allowsPersistentConnection == true && !state.isStopped
                ? limits.keepAliveIdleSeconds : nil
            guard
                Socket.sendAll(
                    fd, response.serialized(omitBody: request?.method == "HEAD", keepAlive: idleSeconds != nil))
            else { return }
            guard let idleSeconds else {
                Socket.lingeringClose(fd)
                return
            }
            buffer.removeFirst(consumed)
            // Between requests the connection is idle: `stop()` shuts it down so a stopped server
            // answers nothing more, as it would without keep-alive.
            if buffer.isEmpty {
                guard state.connectionIdle(fd) else { return }
                let ready = Socket.waitReadable(fd, seconds: idleSeconds)
                state.connectionBusy(fd)
                guard ready else { return }
            }
        }
    }

    /// Reads until `buffer` holds a whole request (or a malformed one) and answers it with
    /// `handler` (or the parse error). Nil when the client went away or ran out of time first.
    /// The request is nil when the response is a parse error's. The whole request must arrive
    /// within `timeoutSeconds`, however it trickles in.
    private static func readRequest(
        _ fd: Int32, buffer: inout [UInt8], timeoutSeconds: Int,
        handler: @Sendable (HTTPRequest) -> HTTPResponse
    ) -> (HTTPRequest?, Int, HTTPResponse)? {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeoutSeconds) * 1_000_000_000
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var sentContinue = false
        while true {
            do {
                if let (request, consumed) = try HTTPRequestParser.parse(
                    buffer, maxHeaderBytes: maxHeaderBytes, maxBodyBytes: maxBodyBytes)
                {
                    return (request, consumed, handler(request))
                }
                // A client that asked "Expect: 100-continue" waits for this before sending the body.
                if !sentContinue,
                    let head = try HTTPRequestParser.parseHead(
                        buffer, maxHeaderBytes: maxHeaderBytes, maxBodyBytes: maxBodyBytes),
                    head.contentLength > 0,
                    buffer.count == head.headLength,
                    head.request.header("Expect").map({ HTTPRequest.lowercasedASCII($0) == "100-continue" }) == true
                {
                    sentContinue = true
                    guard Socket.sendAll(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return nil }
                }
            } catch let error as HTTPParseError {
                return (nil, buffer.count, .text(error.message + "\n", status: error.status))
            } catch {
                return (nil, buffer.count, .text("bad request\n", status: 400))
            }
            // Each wait for more bytes gets only what is left of the request's time.
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return nil }
            Socket.setReceiveTimeout(fd, nanoseconds: deadline - now)
            let got = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if got > 0 {
                buffer.append(contentsOf: chunk[0..<got])
            } else if got < 0 && errno == EINTR {
                continue
            } else {
                return nil  // EOF, timeout (EAGAIN) or reset before a whole request arrived: just hang up
            }
        }
    }
}

// MARK: - State

/// The server's mutable lifecycle state, behind one lock.
private final class LockedState: Sendable {
    enum StopAction {
        case alreadyStopped
        case neverStarted
        case running(wakeWriteFD: Int32, loopExited: DispatchSemaphore)
    }

    private struct Fields {
        var started = false
        var stopped = false
        var closed = false
        var wakeWriteFD: Int32 = -1
        var loopExited: DispatchSemaphore?
        var connections = 0
        var peak = 0
        var idle: Set<Int32> = []
    }

    private let fields = Locked(Fields())

    var isStopped: Bool { fields.withLock { $0.stopped } }
    /// Connections being served now, and the most there ever were at once.
    var connectionCount: Int { fields.withLock { $0.connections } }
    var peakConnectionCount: Int { fields.withLock { $0.peak } }

    func connectionOpened() {
        fields.withLock {
            $0.connections += 1
            $0.peak = max($0.peak, $0.connections)
        }
    }

    func connectionClosed() { fields.withLock { $0.connections -= 1 } }

    /// A kept-alive connection starts waiting for its next request; false once stopped (close it).
    func connectionIdle(_ fd: Int32) -> Bool {
        fields.withLock {
            guard !$0.stopped else { return false }
            $0.idle.insert(fd)
            return true
        }
    }

    /// The connection is no longer waiting (it must be, before its descriptor is closed).
    func connectionBusy(_ fd: Int32) { _ = fields.withLock { $0.idle.remove(fd) } }

    /// Wakes every idle connection with end-of-file; registered descriptors are still open.
    func shutDownIdleConnections() {
        fields.withLock {
            for fd in $0.idle { _ = shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Returns the wake-up pipe for the accept loop, or nil when already started or stopped.
    func markStarted() -> (read: Int32, write: Int32, exited: DispatchSemaphore)? {
        fields.withLock {
            guard !$0.started, !$0.stopped else { return nil }
            guard let pipe = Socket.makeWakePipe() else { return nil }
            $0.started = true
            $0.wakeWriteFD = pipe.write
            let exited = DispatchSemaphore(value: 0)
            $0.loopExited = exited
            return (pipe.read, pipe.write, exited)
        }
    }

    func markStopped() -> StopAction {
        fields.withLock {
            if $0.stopped { return .alreadyStopped }
            $0.stopped = true
            guard $0.started, let exited = $0.loopExited else { return .neverStarted }
            return .running(wakeWriteFD: $0.wakeWriteFD, loopExited: exited)
        }
    }

    /// Runs `body` (closing the descriptors) exactly once over the server's life.
    func closeOnce(_ body: () -> Void) {
        let first = fields.withLock {
            if $0.closed { return false }
            $0.closed = true
            return true
        }
        guard first else { return }
        body()
        let wake = fields.withLock { (fields: inout Fields) -> Int32 in
            defer { fields.wakeWriteFD = -1 }
            return fields.wakeWriteFD
        }
        if wake >= 0 { close(wake) }
    }
}

// MARK: - Addresses

private enum LoopbackAddress {
    case v4(in_addr)
    case v6(in6_addr)

    var isIPv6: Bool { if case .v6 = self { true } else { false } }

    /// Accepts only 127.0.0.0/8 dotted quads and "::1" (any spelling inet_pton accepts).
    init?(_ host: String) {
        var a4 = in_addr()
        if host.utf8.allSatisfy({ $0 == UInt8(ascii: ".") || (0x30...0x39).contains($0) }),
            inet_pton(AF_INET, host, &a4) == 1
        {
            // s_addr is in network byte order: the first octet is the high byte of the big-endian value.
            guard UInt32(bigEndian: a4.s_addr) >> 24 == 127 else { return nil }
            self = .v4(a4)
            return
        }
        var a6 = in6_addr()
        if inet_pton(AF_INET6, host, &a6) == 1 {
            let bytes = withUnsafeBytes(of: &a6) { Array($0) }
            guard bytes == [UInt8](repeating: 0, count: 15) + [1] else { return nil }
            self = .v6(a6)
            return
        }
        return nil
    }
}

// MARK: - Socket helpers

private enum Socket {
    static func make(family: Int32) -> Int32 {
        #if canImport(Glibc)
        return socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(family, SOCK_STREAM, 0)
        if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return fd
        #endif
    }

    static func accept(_ listenFD: Int32) -> Int32 {
        // accept4/pipe2 are not exported by the Glibc module; set FD_CLOEXEC right after instead,
        // so processes spawned by the host program (fake-spotify tests) do not inherit sockets.
        #if canImport(Glibc)
        let fd = Glibc.accept(listenFD, nil, nil)
        #else
        let fd = Darwin.accept(listenFD, nil, nil)
        #endif
        if fd >= 0 {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            // BSD sockets inherit O_NONBLOCK from the listener; connections use blocking I/O with timeouts.
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        }
        return fd
    }

    /// A close-on-exec pipe used to wake the accept loop's poll().
    static func makeWakePipe() -> (read: Int32, write: Int32)? {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return (fds[0], fds[1])
    }

    static func setReceiveTimeout(_ fd: Int32, nanoseconds: UInt64) {
        var tv = timeval()
        tv.tv_sec = Int(nanoseconds / 1_000_000_000)
        tv.tv_usec = max(1000, Int(nanoseconds % 1_000_000_000 / 1000))  // never 0: that means "no timeout"
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    static func configureConnection(_ fd: Int32, timeoutSeconds: Int) {
        var tv = timeval()
        tv.tv_sec = timeoutSeconds
        tv.tv_usec = 0
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// Sends every byte; false if the peer went away or the send timed out. Never raises SIGPIPE.
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { writeAll(fd, $0, using: .send) } == 0
    }

    /// Whether `fd` has something to read (a request, or end-of-file) within `seconds`.
    static func waitReadable(_ fd: Int32, seconds: Int) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds) * 1_000_000_000
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return false }
            let n = poll(&entry, 1, Int32(min(UInt64(Int32.max), (deadline - now) / 1_000_000 + 1)))
            if n > 0 { return true }
            if n < 0 && errno != EINTR { return false }
            // Timed out (the deadline check ends it) or interrupted: wait for what is left.
        }
    }

    /// Makes the coming close() send RST instead of FIN: the peer sees "connection reset".
    static func reset(_ fd: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// Half-closes, then reads and discards what the client still sends (bounded in bytes and
    /// time) before the caller closes. Closing with unread input makes the kernel send RST,
    /// which can destroy a response (e.g. a 413) before the client has read it.
    static func lingeringClose(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_WR))
        var tv = timeval()
        tv.tv_sec = 2
        tv.tv_usec = 0
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var scratch = [UInt8](repeating: 0, count: 16 << 10)
        var drained = 0
        while drained < 1 << 20 {
            let n = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                drained += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}

#if canImport(Glibc)
private let systemBind = Glibc.bind
#else
private let systemBind = Darwin.bind
#endif
