#if os(Linux)
import CCurl
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// HTTP on Linux, through libcurl's multi API. Not URLSession: FoundationNetworking's multi-handle
/// loop keeps the write DispatchSource it made for the connect when libcurl then asks for read
/// readiness only (`_SocketSources.createSources` adds sources, never drops one). A connected
/// socket is always writable, so while a request waits for its answer that source fires without
/// pause and each firing has libcurl poll the socket again: about 2,000 epoll_wait + poll + 4,000
/// futex a second, a whole core per request in flight. Here one thread sleeps in
/// `curl_multi_poll` until a socket or one of libcurl's own timers needs it, so a wait is idle.
/// The thread ends when nothing is in flight, and the next request starts it again. libcurl is
/// called through CCurl's `tk_curl_*` (loaded at the first request: `HTTPTransport.send` checks
/// `CurlLibrary.load()` before anything here runs).
final class CurlLoop: @unchecked Sendable {  // `multi`, `running`: loop thread only; `queued`, `looping`: under `lock`
    private let multi: UnsafeMutableRawPointer
    private let lock = PlainLock()
    private var queued: [CurlTransfer] = []
    private var looping = false
    private var running: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    let timeout: TimeInterval
    let deadline: TimeInterval
    let proxy: HTTPTransport.ProxyUse

    init(timeout: TimeInterval, deadline: TimeInterval, proxy: HTTPTransport.ProxyUse) {
        precondition(CurlLibrary.load() == nil, "libcurl is used before it was loaded")
        self.timeout = timeout
        self.deadline = deadline
        self.proxy = proxy
        guard let multi = tk_curl_multi_init() else { fatalError("libcurl could not make a multi handle") }
        self.multi = multi
        // The pager keeps up to 8 requests in flight on one host.
        _ = tk_curl_multi_setopt_long(multi, TK_CURLMOPT_MAX_HOST_CONNECTIONS, ConcurrencyWindow.ceiling)
    }

    deinit { tk_curl_multi_cleanup(multi) }

    /// Sends `request`; its outcome reaches `exchange` from the loop thread.
    func start(_ request: HTTPClientRequest, exchange: HTTPTransport.Exchange) {
        guard
            let transfer = CurlTransfer(
                request, exchange: exchange, timeout: timeout, deadline: deadline, proxy: proxy)
        else {
            return exchange.completed(
                HTTPFailure.unreachable(host: exchange.host, reason: "libcurl could not prepare the request"))
        }
        lock.lock()
        queued.append(transfer)
        let startThread = !looping
        looping = true
        lock.unlock()
        if startThread {
            detachThread { self.loop() }
        } else {
            // Sticky: a loop not yet asleep returns from its next poll at once.
            _ = tk_curl_multi_wakeup(multi)
        }
    }

    private func loop() {
        while true {
            lock.lock()
            let added = queued
            queued = []
            if added.isEmpty && running.isEmpty {
                looping = false
                return lock.unlock()
            }
            lock.unlock()
            for transfer in added {
                if tk_curl_multi_add_handle(multi, transfer.handle) == TK_CURLM_OK {
                    running[transfer.handle] = transfer
                } else {
                    transfer.finished(TK_CURLE_FAILED_INIT)
                }
            }
            var active: Int32 = 0
            _ = tk_curl_multi_perform(multi, &active)
            var left: Int32 = 0
            while let message = tk_curl_multi_info_read(multi, &left) {
                guard let handle = tk_curl_message_handle(message) else { continue }
                let result = tk_curl_message_result(message)
                _ = tk_curl_multi_remove_handle(multi, handle)
                running.removeValue(forKey: handle)?.finished(result)
            }
            if running.isEmpty { continue }
            // Returns early when a socket or libcurl's next timer needs us, or on a wakeup.
            _ = tk_curl_multi_poll(multi, 60_000)
        }
    }
}

/// One request's easy handle and what arrives for it, passed on to its `Exchange`. Callbacks run
/// on the loop thread only.
final class CurlTransfer {
    let handle: UnsafeMutableRawPointer
    let exchange: HTTPTransport.Exchange
    let timeout: TimeInterval
    private var headerList: OpaquePointer?  // tk_curl_slist, libcurl's own
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(TK_CURL_ERROR_SIZE) + 1)
    private var head = ResponseHead()
    private var delivered = false

    init?(
        _ request: HTTPClientRequest, exchange: HTTPTransport.Exchange, timeout: TimeInterval, deadline: TimeInterval,
        proxy: HTTPTransport.ProxyUse
    ) {
        errorBuffer.initialize(repeating: 0, count: Int(TK_CURL_ERROR_SIZE) + 1)
        guard let handle = tk_curl_easy_init() else {
            errorBuffer.deallocate()
            return nil
        }
        self.handle = handle
        self.exchange = exchange
        self.timeout = timeout
        let user = Unmanaged.passUnretained(self).toOpaque()
        var ok = true
        func check(_ code: tk_curl_code) { ok = ok && code == TK_CURLE_OK }
        check(request.url.absoluteString.withCString { tk_curl_setopt_pointer(handle, TK_CURLOPT_URL, $0) })
        check(tk_curl_setopt_pointer(handle, TK_CURLOPT_ERRORBUFFER, errorBuffer))
        check(tk_curl_setopt_long(handle, TK_CURLOPT_NOSIGNAL, 1))
        // Redirects are refused by HTTPTransport, never followed (the default, said anyway).
        check(tk_curl_setopt_long(handle, TK_CURLOPT_FOLLOWLOCATION, 0))
        // `timeout` is an idle timeout, as URLSession's was: to connect, and then less than one
        // byte in `timeout` seconds (waiting for the answer included). The total deadline is the
        // Exchange's; libcurl's own, a second later, only frees the connection.
        let idle = max(1, Int(saturating: timeout.rounded(.up)))
        check(tk_curl_setopt_long(handle, TK_CURLOPT_CONNECTTIMEOUT, idle))
        check(tk_curl_setopt_long(handle, TK_CURLOPT_LOW_SPEED_LIMIT, 1))
        check(tk_curl_setopt_long(handle, TK_CURLOPT_LOW_SPEED_TIME, idle))
        check(tk_curl_setopt_long(handle, TK_CURLOPT_TIMEOUT_MS, Int(saturating: (deadline + 1) * 1000)))
        check(tk_curl_setopt_pointer(handle, TK_CURLOPT_WRITEDATA, user))
        check(tk_curl_setopt_write(handle, TK_CURLOPT_WRITEFUNCTION, Self.onBody))
        check(tk_curl_setopt_pointer(handle, TK_CURLOPT_HEADERDATA, user))
        check(tk_curl_setopt_write(handle, TK_CURLOPT_HEADERFUNCTION, Self.onHeader))
        // Called about once a second while idle: a transfer whose exchange ended (deadline, cap) stops.
        check(tk_curl_setopt_long(handle, TK_CURLOPT_NOPROGRESS, 0))
        check(tk_curl_setopt_pointer(handle, TK_CURLOPT_XFERINFODATA, user))
        check(tk_curl_setopt_xferinfo(handle, Self.onProgress))
        // Behind a proxy (libcurl takes it from https_proxy, ALL_PROXY... in the environment), the
        // proxy's "HTTP/1.1 200 Connection established" to CONNECT would reach the header callback
        // as if Spotify had answered; only the server's own answer is ours to read.
        check(tk_curl_setopt_long(handle, TK_CURLOPT_SUPPRESS_CONNECT_HEADERS, 1))
        if proxy.tunnelsPlainHTTP { check(tk_curl_setopt_long(handle, TK_CURLOPT_HTTPPROXYTUNNEL, 1)) }
        if let fixed = proxy.fixedProxy {
            check(fixed.withCString { tk_curl_setopt_pointer(handle, TK_CURLOPT_PROXY, $0) })
        }

        let method = request.method
        var lines = request.headers.map { "\($0.key): \($0.value)" }
        // No "Expect: 100-continue" wait before a large body.
        lines.append("Expect:")
        if let body = request.body ?? (["POST", "PUT", "PATCH"].contains(method) ? Data() : nil) {
            check(tk_curl_setopt_off_t(handle, TK_CURLOPT_POSTFIELDSIZE_LARGE, tk_curl_off_t(body.count)))
            check(
                body.isEmpty
                    ? "".withCString { tk_curl_setopt_pointer(handle, TK_CURLOPT_COPYPOSTFIELDS, $0) }
                    : body.withUnsafeBytes { tk_curl_setopt_pointer(handle, TK_CURLOPT_COPYPOSTFIELDS, $0.baseAddress) }
            )
            if method != "POST" {
                check(method.withCString { tk_curl_setopt_pointer(handle, TK_CURLOPT_CUSTOMREQUEST, $0) })
            }
            // libcurl would otherwise call any body a form.
            if request.header("Content-Type") == nil { lines.append("Content-Type:") }
        } else if method == "HEAD" {
            check(tk_curl_setopt_long(handle, TK_CURLOPT_NOBODY, 1))
        } else if method != "GET" {
            check(method.withCString { tk_curl_setopt_pointer(handle, TK_CURLOPT_CUSTOMREQUEST, $0) })
        }
        // A request that dies on a reused connection before any byte of its answer is sent again
        // by libcurl on a new one, with no way to turn that off: harmless for a read, but a
        // write (a batch of playlist items, a token refresh) could land twice. On a connection of
        // its own, a lost answer is reported instead, and SpotifyWebAPI decides.
        if method != "GET" && method != "HEAD" {
            check(tk_curl_setopt_long(handle, TK_CURLOPT_FRESH_CONNECT, 1))
        }
        for line in lines { headerList = tk_curl_slist_append(headerList, line) }
        check(tk_curl_setopt_pointer(handle, TK_CURLOPT_HTTPHEADER, UnsafeRawPointer(headerList)))
        if !ok { return nil }
    }

    deinit {
        tk_curl_easy_cleanup(handle)
        tk_curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    private static let onBody: tk_curl_write_callback = { pointer, size, count, user in
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue()
        let length = size * count
        transfer.deliverResponse()
        if let pointer, length > 0 { transfer.exchange.received(Data(bytes: pointer, count: length)) }
        return transfer.exchange.isOpen ? length : 0  // 0 stops the transfer
    }

    private static let onHeader: tk_curl_write_callback = { pointer, size, count, user in
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue()
        let length = size * count
        guard let pointer else { return length }
        let line = String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
        transfer.header(line.trimmingCharacters(in: .whitespacesAndNewlines))
        return transfer.exchange.isOpen ? length : 0
    }

    private static let onProgress: tk_curl_xferinfo_callback = { user, _, _, _, _ in
        Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue().exchange.isOpen ? 0 : 1
    }

    private func header(_ line: String) {
        if head.take(line) == .endOfHead { deliverResponse() }
    }

    /// The status of the answer as libcurl itself read it; 0 before there is one. A proxy's
    /// answer to CONNECT and a 1xx never count as the answer here, whatever reached the callback.
    private var responseCode: Int {
        var code = 0
        return tk_curl_getinfo_long(handle, TK_CURLINFO_RESPONSE_CODE, &code) == TK_CURLE_OK ? code : 0
    }

    /// Hands the response on once: at the end of its head (so a 429 or a length over the cap is
    /// seen before the body), at its first body byte, or when the transfer is done; and only when
    /// libcurl's own response code is the status line's, so a head that was not the answer (a
    /// proxy's, a 1xx) is never taken for it.
    private func deliverResponse() {
        guard !delivered, head.status >= 200, head.status == responseCode else { return }
        delivered = true
        exchange.received(HTTPResponseHead(status: head.status, headers: head.headers))
    }

    /// libcurl is done with the transfer: the whole answer, or why there is none.
    func finished(_ result: tk_curl_code) {
        if result == TK_CURLE_OK {
            deliverResponse()
            if !delivered && head.status > 0 {
                // What we read is not what libcurl got: say so rather than report either status.
                return exchange.completed(
                    HTTPFailure.unreachable(
                        host: exchange.host,
                        reason:
                            "the answer's status line (HTTP \(head.status)) is not the status libcurl read (HTTP \(responseCode))"
                    ))
            }
            return exchange.completed(nil)
        }
        let reason: String
        switch result {
        case TK_CURLE_OPERATION_TIMEDOUT:
            reason = "timed out after \(max(1, Int(saturating: timeout.rounded(.up)))) s"
        case TK_CURLE_GOT_NOTHING:
            reason = "the connection was closed without an answer"
        default:
            reason = errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: tk_curl_easy_strerror(result))
        }
        exchange.completed(HTTPFailure.unreachable(host: exchange.host, reason: reason))
    }
}

/// The head of the response being read, from the header lines libcurl hands over one at a time.
/// Every status line starts a new head: before the answer may come a 1xx (`100 Continue`) or,
/// behind a proxy, the proxy's `HTTP/1.1 200 Connection established`, each with its own headers.
struct ResponseHead {
    private(set) var status = 0
    private(set) var headers: [String: String] = [:]

    enum Line { case statusOrHeader, endOfHead }

    /// Takes one line, without its line end.
    mutating func take(_ line: String) -> Line {
        if line.hasPrefix("HTTP/") {
            let fields = line.split(separator: " ", maxSplits: 2)
            status = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
            headers = [:]
        } else if line.isEmpty {
            return .endOfHead
        } else if let colon = line.firstIndex(of: ":") {
            let name = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
            let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        return .statusOrHeader
    }
}
#endif
