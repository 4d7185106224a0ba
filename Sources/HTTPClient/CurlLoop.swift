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
///
/// One loop, so one multi handle, for the whole process (`shared`): every transport of a run
/// (reads, writes, the accounts service, a name lookup) takes its connections from one pool, so
/// a host gets one HTTP/2 connection and one TLS handshake per process, and one DNS lookup.
/// TLS sessions are kept in a share handle too, so a second connection to a host (HTTP/1.1)
/// resumes the first one's session instead of a full handshake.
final class CurlLoop: @unchecked Sendable {  // `multi`, `running`: loop thread only; `queued`, `looping`: under `lock`
    private let multi: UnsafeMutableRawPointer
    private let lock = PlainLock()
    private var queued: [CurlTransfer] = []
    private var looping = false
    private var running: [UnsafeMutableRawPointer: CurlTransfer] = [:]

    /// The process's loop, made at the first request (after `CurlLibrary.load()` said yes).
    static let shared = CurlLoop()

    private init() {
        precondition(CurlLibrary.load() == nil, "libcurl is used before it was loaded")
        guard let multi = tk_curl_multi_init() else { fatalError("libcurl could not make a multi handle") }
        self.multi = multi
        // The pager keeps up to 8 requests in flight on one host.
        _ = tk_curl_multi_setopt_long(multi, TK_CURLMOPT_MAX_HOST_CONNECTIONS, ConcurrencyWindow.ceiling)
        // Idle connections kept for reuse: libcurl's default (4 per handle in flight) closes
        // HTTP/1.1 connections mid-run whenever few requests are in flight, to reopen them later.
        // A tool talks to one or two hosts (8 connections each at most); room for many more, so
        // that a process serving many hosts at once (the test suite) keeps each one's warm too.
        _ = tk_curl_multi_setopt_long(multi, TK_CURLMOPT_MAXCONNECTS, 16 * ConcurrencyWindow.ceiling)
    }

    /// What a transport asks of each of its requests.
    struct Settings: Sendable {
        var timeout: TimeInterval
        var deadline: TimeInterval
        var proxy: HTTPTransport.ProxyUse
        var trust: CertificateTrust
    }

    /// Sends `request`; its outcome reaches `exchange` from the loop thread.
    func start(_ request: HTTPClientRequest, exchange: HTTPTransport.Exchange, settings: Settings) {
        guard let transfer = CurlTransfer(request, exchange: exchange, settings: settings) else {
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
    let settings: CurlLoop.Settings
    private var headerList: OpaquePointer?  // tk_curl_slist, libcurl's own
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(TK_CURL_ERROR_SIZE) + 1)
    private var head = ResponseHead()
    private var delivered = false
    /// For a write: how many times libcurl went to send it (`onPrereq`).
    private var sends = 0
    /// A write libcurl was about to send a second time, which it was not let do.
    private var resendRefused = false

    init?(_ request: HTTPClientRequest, exchange: HTTPTransport.Exchange, settings: CurlLoop.Settings) {
        errorBuffer.initialize(repeating: 0, count: Int(TK_CURL_ERROR_SIZE) + 1)
        guard let handle = tk_curl_easy_init() else {
            errorBuffer.deallocate()
            return nil
        }
        self.handle = handle
        self.exchange = exchange
        self.settings = settings
        let user = Unmanaged.passUnretained(self).toOpaque()
        guard setTransfer(request, user: user), setRequest(request, user: user) else { return nil }
    }

    /// Where the request goes and how the transfer runs: timeouts, callbacks, encodings, the
    /// connection, trust and proxy. false when libcurl refused an option.
    private func setTransfer(_ request: HTTPClientRequest, user: UnsafeMutableRawPointer) -> Bool {
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
        let idle = max(1, Int(saturating: settings.timeout.rounded(.up)))
        check(tk_curl_setopt_long(handle, TK_CURLOPT_CONNECTTIMEOUT, idle))
        check(tk_curl_setopt_long(handle, TK_CURLOPT_LOW_SPEED_LIMIT, 1))
        check(tk_curl_setopt_long(handle, TK_CURLOPT_LOW_SPEED_TIME, idle))
        check(tk_curl_setopt_long(handle, TK_CURLOPT_TIMEOUT_MS, Int(saturating: (settings.deadline + 1) * 1000)))
        check(tk_curl_setopt_pointer(handle, TK_CURLOPT_WRITEDATA, user))
        check(tk_curl_setopt_write(handle, TK_CURLOPT_WRITEFUNCTION, Self.onBody))
        check(tk_curl_setopt_pointer(handle, TK_CURLOPT_HEADERDATA, user))
        check(tk_curl_setopt_write(handle, TK_CURLOPT_HEADERFUNCTION, Self.onHeader))
        // Called about once a second while idle: a transfer whose exchange ended (deadline, cap) stops.
        check(tk_curl_setopt_long(handle, TK_CURLOPT_NOPROGRESS, 0))
        check(tk_curl_setopt_pointer(handle, TK_CURLOPT_XFERINFODATA, user))
        check(tk_curl_setopt_xferinfo(handle, Self.onProgress))
        // Every encoding this libcurl can decode (gzip, deflate, br, zstd: "" asks for them all);
        // the body reaches `onBody`, and so the size cap, decoded. A page of JSON shrinks ~10x.
        check("".withCString { tk_curl_setopt_pointer(handle, TK_CURLOPT_ACCEPT_ENCODING, $0) })
        // A request that finds a connection to its host being made (or in use, on HTTP/2) waits
        // for it rather than opening another: a burst of requests at the start shares one
        // connection and one handshake. Only over https, where ALPN may give HTTP/2 (and says
        // at the handshake when it does not); plain http is HTTP/1.1, where waiting would
        // serialise a burst behind the first answer.
        if request.url.scheme?.lowercased() == "https" { check(tk_curl_setopt_long(handle, TK_CURLOPT_PIPEWAIT, 1)) }
        if let share = tk_curl_share_make() { check(tk_curl_setopt_pointer(handle, TK_CURLOPT_SHARE, share)) }
        if let file = settings.trust.file {
            check(file.path.withCString { tk_curl_setopt_pointer(handle, TK_CURLOPT_CAINFO, $0) })
        }
        if let directory = settings.trust.directory {
            check(directory.path.withCString { tk_curl_setopt_pointer(handle, TK_CURLOPT_CAPATH, $0) })
        }
        // Behind a proxy (libcurl takes it from https_proxy, ALL_PROXY... in the environment), the
        // proxy's "HTTP/1.1 200 Connection established" to CONNECT would reach the header callback
        // as if Spotify had answered; only the server's own answer is ours to read.
        check(tk_curl_setopt_long(handle, TK_CURLOPT_SUPPRESS_CONNECT_HEADERS, 1))
        if settings.proxy.tunnelsPlainHTTP { check(tk_curl_setopt_long(handle, TK_CURLOPT_HTTPPROXYTUNNEL, 1)) }
        // Plain http carries the token in clear: through a proxy on this machine, or none.
        if request.url.scheme?.lowercased() == "http", settings.proxy.fixedProxy == nil,
            !settings.proxy.plainHTTPProxyIsLoopback
        {
            check("".withCString { tk_curl_setopt_pointer(handle, TK_CURLOPT_PROXY, $0) })
        }
        if let fixed = settings.proxy.fixedProxy {
            check(fixed.withCString { tk_curl_setopt_pointer(handle, TK_CURLOPT_PROXY, $0) })
        }
        return ok
    }

    /// The request itself: method, body and header lines. false when libcurl refused an option.
    private func setRequest(_ request: HTTPClientRequest, user: UnsafeMutableRawPointer) -> Bool {
        var ok = true
        func check(_ code: tk_curl_code) { ok = ok && code == TK_CURLE_OK }
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
        // by libcurl on a new one, by itself: harmless for a read, but a write (a batch of
        // playlist items, a token refresh) could land twice. So a write is let go out once only:
        // libcurl asks `onPrereq` before each send, and a second send is refused, which reports
        // the lost answer (an unknown outcome, which SpotifyWebAPI's writers settle by reading
        // again). Writes then share the warm connection with reads. A libcurl older than 7.80
        // has no such hook: there a write takes a connection of its own, where nothing is resent.
        if method != "GET" && method != "HEAD" {
            check(tk_curl_setopt_pointer(handle, TK_CURLOPT_PREREQDATA, user))
            switch tk_curl_setopt_prereq(handle, Self.onPrereq) {
            case TK_CURLE_OK: break
            case TK_CURLE_UNKNOWN_OPTION: check(tk_curl_setopt_long(handle, TK_CURLOPT_FRESH_CONNECT, 1))
            case let other: check(other)
            }
        }
        for line in lines { headerList = tk_curl_slist_append(headerList, line) }
        check(tk_curl_setopt_pointer(handle, TK_CURLOPT_HTTPHEADER, UnsafeRawPointer(headerList)))
        return ok
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

    /// Before each send of a write: the first goes, a second (libcurl's own resend) does not.
    private static let onPrereq: tk_curl_prereq_callback = { user, _, _, _, _ in
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue()
        transfer.sends += 1
        guard transfer.sends > 1 else { return TK_CURL_PREREQFUNC_OK }
        transfer.resendRefused = true
        return TK_CURL_PREREQFUNC_ABORT
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
                            """
                            the answer's status line (HTTP \(head.status)) is not the status libcurl read (HTTP \
                            \(responseCode))
                            """
                    ))
            }
            return exchange.completed(nil)
        }
        let message =
            errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: tk_curl_easy_strerror(result))
        if let tls = Self.tlsFailure(result, message: message, trust: settings.trust) {
            return exchange.completed(HTTPFailure.tls(host: exchange.host, failure: tls))
        }
        let reason: String
        switch result {
        case TK_CURLE_OPERATION_TIMEDOUT:
            reason = "timed out after \(max(1, Int(saturating: settings.timeout.rounded(.up)))) s"
        case TK_CURLE_GOT_NOTHING:
            reason = "the connection was closed without an answer"
        case TK_CURLE_ABORTED_BY_CALLBACK where resendRefused:
            reason = "the connection was closed without an answer after the request was sent"
        default:
            reason = message
        }
        exchange.completed(HTTPFailure.unreachable(host: exchange.host, reason: reason))
    }

    /// The TLS failure libcurl's `code` and `message` tell of, or nil for any other failure. Only
    /// failures that would happen again are TLS ones here: a connection reset in the middle of a
    /// handshake is an unreachable host like any other, and tried again.
    static func tlsFailure(_ code: tk_curl_code, message: String, trust: CertificateTrust) -> TLSFailure? {
        func trimmed(_ prefix: String) -> String {
            message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message
        }
        switch code {
        case TK_CURLE_PEER_FAILED_VERIFICATION, TK_CURLE_SSL_ISSUER_ERROR, TK_CURLE_SSL_INVALIDCERTSTATUS,
            TK_CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            if message.contains("subject name") && message.contains("host name") {
                return TLSFailure(
                    kind: .wrongHost, detail: trimmed("SSL: "),
                    fix:
                        """
                        check SPOTIFY_API_BASE and SPOTIFY_ACCOUNTS_BASE; a proxy that inspects TLS must sign for \
                        this host
                        """
                )
            }
            let detail = trimmed("SSL certificate problem: ")
            return TLSFailure(kind: .untrusted, detail: detail, fix: TLSFailure.untrustedFix(trust, detail: detail))
        case TK_CURLE_SSL_CACERT_BADFILE, TK_CURLE_SSL_CRL_BADFILE:
            let fix =
                trust.inForce.map { "\($0) names no readable PEM certificates; point it at a CA bundle" }
                ?? "set \(CertificateTrust.fileVariable) to a CA bundle (PEM)"
            return TLSFailure(kind: .unreadableCA, detail: message, fix: fix)
        case TK_CURLE_SSL_CONNECT_ERROR, TK_CURLE_SSL_CERTPROBLEM, TK_CURLE_SSL_CIPHER, TK_CURLE_USE_SSL_FAILED,
            TK_CURLE_SSL_ENGINE_NOTFOUND, TK_CURLE_SSL_ENGINE_SETFAILED, TK_CURLE_SSL_ENGINE_INITFAILED:
            // The network failing mid-handshake, not TLS: retried like any lost connection.
            if code == TK_CURLE_SSL_CONNECT_ERROR
                && ["reset by peer", "SSL_ERROR_SYSCALL", "Broken pipe", "timed out"].contains(where: message.contains)
            {
                return nil
            }
            return TLSFailure(kind: .handshake, detail: message, fix: TLSFailure.handshakeFix)
        default:
            return nil
        }
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
