#if os(Linux)
import Foundation
import Glibc

/// A CONNECT proxy for one test, on 127.0.0.1 and an ephemeral port. It answers
/// `CONNECT host:port` with `HTTP/1.1 200 Connection established` and then pipes bytes both ways
/// to 127.0.0.1:port, whatever the host: a made-up name such as `api.spotify.test` reaches a
/// fake-spotify on loopback, and a client cannot skip the proxy for it as it might for
/// `localhost`. Anything but CONNECT is answered 405 and logged apart, so a test sees a request
/// that was not tunnelled. `stop()` (the test's `defer`) closes every socket it holds.
final class ConnectProxy: @unchecked Sendable {  // `connectLines`, `otherLines`, `sockets`, `stopped` under `lock`
    let port: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var connectLines: [String] = []
    private var otherLines: [String] = []
    private var sockets: Set<Int32> = []
    private var stopped = false
    private let acceptLoopExited = DispatchSemaphore(value: 0)

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw Self.failure("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 64) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound else {
            let error = Self.failure("bind")
            close(listener)
            throw error
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// What a client puts in its environment to use this proxy (`https_proxy`, `ALL_PROXY`, ...).
    var url: String { "http://127.0.0.1:\(port)" }

    /// The request lines of the CONNECTs received, in order (`CONNECT api.spotify.test:PORT HTTP/1.1`).
    var connects: [String] { lock.withLock { connectLines } }

    /// The request lines of anything else received (a plain forwarded `GET http://...`).
    var others: [String] { lock.withLock { otherLines } }

    /// Stops accepting and ends every tunnel. Idempotent.
    func stop() {
        // Under the lock, so no socket is closed (and its number reused by another test's
        // connection in this process) between being listed here and being shut down.
        let first = lock.withLock {
            if stopped { return false }
            stopped = true
            // Wakes the accept and every poll, whose threads then close their own sockets.
            shutdown(listener, Int32(SHUT_RDWR))
            for socket in sockets { shutdown(socket, Int32(SHUT_RDWR)) }
            return true
        }
        guard first else { return }
        if acceptLoopExited.wait(timeout: .now() + 5) == .success { close(listener) }
    }

    private static func failure(_ call: String) -> Error {
        NSError(
            domain: "ConnectProxy", code: Int(errno),
            userInfo: [NSLocalizedDescriptionKey: "\(call): \(String(cString: strerror(errno)))"])
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    /// Registers a socket to shut down at `stop()`; false (and the socket closed) when already stopped.
    private func track(_ socket: Int32) -> Bool {
        let tracked = lock.withLock {
            if stopped { return false }
            sockets.insert(socket)
            return true
        }
        if !tracked { close(socket) }
        return tracked
    }

    private func release(_ socket: Int32) {
        lock.withLock {
            sockets.remove(socket)
            close(socket)
        }
    }

    private func acceptLoop() {
        // `stop()` closes the listener once this loop is over.
        defer { acceptLoopExited.signal() }
        while !isStopped {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                if isStopped { return }
                usleep(10_000)  // EMFILE and the like: try again shortly rather than spin
                continue
            }
            // Not inherited by the tools a test spawns meanwhile.
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            guard track(client) else { return }
            Thread.detachNewThread { [self] in
                serve(client)
                release(client)
            }
        }
    }

    private func serve(_ client: Int32) {
        guard let (requestLine, rest) = readHead(client) else { return }
        let fields = requestLine.split(separator: " ")
        guard fields.count == 3, fields[0] == "CONNECT", let colon = fields[1].lastIndex(of: ":"),
            let targetPort = UInt16(fields[1][fields[1].index(after: colon)...])
        else {
            lock.withLock { otherLines.append(requestLine) }
            send(client, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        }
        lock.withLock { connectLines.append(requestLine) }
        guard let upstream = connectToLoopback(targetPort) else {
            send(client, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        }
        guard track(upstream) else { return }
        defer { release(upstream) }
        guard send(client, "HTTP/1.1 200 Connection established\r\n\r\n"),
            rest.isEmpty || rest.withUnsafeBytes({ sendAll(upstream, $0) })
        else { return }
        pipe(client, upstream)
    }

    /// The request line, and any bytes read past the head; nil when the client sent no whole head
    /// within 10 s (or more than 16 KB of it).
    private func readHead(_ client: Int32) -> (String, [UInt8])? {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        defer {
            // A kept-alive tunnel may stay quiet for as long as its client likes.
            var none = timeval(tv_sec: 0, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &none, socklen_t(MemoryLayout<timeval>.size))
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        while received.count < 16 << 10 {
            let count = recv(client, &chunk, chunk.count, 0)
            if count <= 0 { return nil }
            received += chunk[..<count]
            if let headEnd = received.firstRange(of: end) {
                let head = String(decoding: received[..<headEnd.lowerBound], as: UTF8.self)
                let requestLine = head.split(separator: "\r\n", maxSplits: 1).first.map(String.init) ?? ""
                return (requestLine, Array(received[headEnd.upperBound...]))
            }
        }
        return nil
    }

    private func connectToLoopback(_ port: UInt16) -> Int32? {
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard upstream >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        if !connected { close(upstream) }
        return connected ? upstream : nil
    }

    /// Copies bytes both ways until both sides have finished sending (or `stop()`).
    private func pipe(_ client: Int32, _ upstream: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        // One direction per entry; an ended direction's socket becomes -1, which poll ignores.
        var sources = [client, upstream]
        let destinations = [upstream, client]
        while sources.contains(where: { $0 >= 0 }) {
            var fds = sources.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if poll(&fds, nfds_t(fds.count), -1) < 0 {
                if errno == EINTR { continue }
                return
            }
            for direction in sources.indices where sources[direction] >= 0 && fds[direction].revents != 0 {
                let count = recv(sources[direction], &buffer, buffer.count, 0)
                if count > 0, buffer.withUnsafeBytes({ sendAll(destinations[direction], $0[..<count]) }) {
                    continue
                }
                // The sender finished (or a side failed): pass the end on.
                shutdown(destinations[direction], Int32(SHUT_WR))
                sources[direction] = -1
            }
        }
    }

    @discardableResult
    private func send(_ socket: Int32, _ text: String) -> Bool {
        Array(text.utf8).withUnsafeBytes { sendAll(socket, $0[...]) }
    }

    /// MSG_NOSIGNAL: a client gone away must not kill the test process with SIGPIPE.
    private func sendAll(_ socket: Int32, _ bytes: Slice<UnsafeRawBufferPointer>) -> Bool {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let sent = Glibc.send(
                socket, bytes.base.baseAddress! + offset, bytes.endIndex - offset, Int32(MSG_NOSIGNAL))
            if sent < 0 && errno == EINTR { continue }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    private func sendAll(_ socket: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        sendAll(socket, bytes[...])
    }
}
#endif
