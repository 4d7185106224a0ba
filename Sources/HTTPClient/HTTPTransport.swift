import Dispatch
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sends requests with URLSession on macOS and libcurl on Linux (`CurlLoop` says why). Failures
/// to reach the server are `HTTPFailure`s naming the host (exit 69 when reported), never a crash
/// and never a token in the message. Redirects are never followed: the client would
/// send the `Authorization` header (or a refresh token in the body) on to whatever host the
/// redirect names, and Spotify does not redirect Web API or accounts requests; a 3xx is an error
/// naming where it pointed. Every answer is bounded twice: its body by `maxBodyBytes` (a hostile
/// or broken server cannot fill memory) and its whole exchange by `deadline` (URLSession's
/// `timeout` is only an idle timeout, which a body dripping one byte at a time never trips).
package struct HTTPTransport: Sendable {
    let session: LazySession

    /// 64 MiB: a page is about 50 KB, so only a broken or hostile server comes near it.
    static let defaultMaxBodyBytes = 64 << 20

    /// `timeout`: the idle timeout; `deadline`: the most one exchange may take in all (default
    /// twice the idle timeout, 60 s by default).
    /// `trust`: the CA settings (`CertificateTrust`; Linux only).
    package init(
        timeout: TimeInterval = 30, deadline: TimeInterval? = nil, maxBodyBytes: Int = defaultMaxBodyBytes,
        proxy: ProxyUse = ProxyUse(), trust: CertificateTrust = CertificateTrust()
    ) {
        session = LazySession(
            timeout: timeout, deadline: deadline ?? timeout * 2, maxBodyBytes: maxBodyBytes, proxy: proxy,
            trust: trust)
    }

    /// This transport with another idle timeout and deadline, and the same proxy and CA settings.
    package func with(timeout: TimeInterval, deadline: TimeInterval) -> HTTPTransport {
        HTTPTransport(
            timeout: timeout, deadline: deadline, maxBodyBytes: session.maxBodyBytes, proxy: session.proxy,
            trust: session.trust)
    }

    /// How requests go through a proxy. On Linux libcurl takes the proxy from the environment
    /// (`https_proxy`, `HTTPS_PROXY`, `http_proxy`, `ALL_PROXY`, `all_proxy`, `NO_PROXY`, by curl's
    /// rules): an https request goes through a CONNECT tunnel, an http one as a plain forwarded
    /// request. On macOS URLSession follows the system's settings and this is not used.
    package struct ProxyUse: Sendable, Equatable {
        /// Tunnels http requests through CONNECT too (curl's `-p`), as https ones always are: the
        /// only way to put fake-spotify, which speaks plain http, behind the tunnel every real
        /// request takes. Not the default: many proxies allow CONNECT to port 443 only. Set by
        /// `SPOTIFY_TOOLKIT_PROXY_TUNNEL` (`DeveloperSettings`), through the client's configuration.
        var tunnelsPlainHTTP: Bool
        /// This proxy instead of the environment's, for tests in a process whose environment
        /// every test shares.
        var fixedProxy: String?
        /// Whether the proxy the environment names for plain http is on this machine (a loopback
        /// address). A plain http request (to a loopback server: `ServiceBase` allows no other)
        /// carries its token in clear, so it goes through a proxy only then, and otherwise
        /// straight to its server: a proxy elsewhere would read the token off the network.
        var plainHTTPProxyIsLoopback: Bool

        package init(tunnelsPlainHTTP: Bool = false, fixedProxy: String? = nil, environment: ToolEnvironment? = nil) {
            self.tunnelsPlainHTTP = tunnelsPlainHTTP
            self.fixedProxy = fixedProxy
            plainHTTPProxyIsLoopback = environment.flatMap(Self.plainHTTPProxy).map(Self.isLoopback) ?? false
        }

        /// The proxy libcurl takes for an http URL: `http_proxy` (lower case only, as curl reads
        /// it), then `all_proxy`, then `ALL_PROXY`.
        static func plainHTTPProxy(_ environment: ToolEnvironment) -> String? {
            environment["http_proxy"] ?? environment["all_proxy"] ?? environment["ALL_PROXY"]
        }

        /// Whether a proxy as curl takes it (`[scheme://][user[:password]@]host[:port][/]`) is at a
        /// loopback address.
        static func isLoopback(proxy: String) -> Bool {
            var rest = Substring(proxy.trimmingCharacters(in: .whitespaces))
            if let scheme = rest.firstRange(of: "://") { rest = rest[scheme.upperBound...] }
            rest = rest.prefix { $0 != "/" }
            if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
            let host: Substring
            if rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]") else { return false }
                host = rest[...close]
            } else {
                host = rest.prefix { $0 != ":" }
            }
            return LoopbackAddress.isLiteral(String(host))
        }
    }

    /// The idle time-out: after it, a request the server still holds may yet be carried out.
    package var timeout: TimeInterval { session.timeout }

    /// The URLSession (on Linux the `CurlLoop`), made on the first request. Making one starts
    /// URLSession or libcurl (about 5 MB; on Linux libcurl is only loaded then, `CCurl.h`), which
    /// every run that builds a client but never sends (no input, not logged in) would otherwise
    /// pay for. Copies of the transport share one, and so do all transports of a process: on
    /// Linux the one `CurlLoop.shared`, on macOS one URLSession per idle timeout, so reads,
    /// writes and token requests share their connections (one TLS handshake per host).
    final class LazySession: Sendable {
        let timeout: TimeInterval
        let deadline: TimeInterval
        let maxBodyBytes: Int
        let proxy: ProxyUse
        let trust: CertificateTrust
        private let made = Locked(false)

        init(timeout: TimeInterval, deadline: TimeInterval, maxBodyBytes: Int, proxy: ProxyUse, trust: CertificateTrust)
        {
            self.timeout = timeout
            self.deadline = deadline
            self.maxBodyBytes = maxBodyBytes
            self.proxy = proxy
            self.trust = trust
        }

        /// Whether a request has needed the session yet.
        var isMade: Bool { made.withLock { $0 } }

        /// What sends: the same object for every copy of the transport.
        var engine: AnyObject {
            #if os(Linux)
            curl
            #else
            urlSession.session
            #endif
        }

        #if os(Linux)
        var curl: CurlLoop {
            made.withLock { $0 = true }
            return CurlLoop.shared
        }

        var settings: CurlLoop.Settings {
            CurlLoop.Settings(timeout: timeout, deadline: deadline, proxy: proxy, trust: trust)
        }
        #else
        /// The process's sessions, one per idle timeout (a URLSession's is set when it is made).
        private static let sessions = Locked<[TimeInterval: SharedSession]>([:])

        struct SharedSession: Sendable {
            let session: URLSession
            let receiver: Receiver
        }

        var urlSession: SharedSession {
            made.withLock { $0 = true }
            return Self.sessions.withLock { sessions in
                if let shared = sessions[timeout] { return shared }
                let receiver = Receiver()
                let shared = SharedSession(session: Self.make(timeout: timeout, delegate: receiver), receiver: receiver)
                sessions[timeout] = shared
                return shared
            }
        }

        private static func make(timeout: TimeInterval, delegate: Receiver) -> URLSession {
            // Making any configuration starts Foundation's URLCache.shared and
            // HTTPCookieStorage.shared, which create empty directories we never use.
            let strays = FoundationStrays()
            defer { strays.sweep() }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = timeout
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            configuration.httpShouldSetCookies = false
            // No URLCache: on Linux even an ephemeral session otherwise scans (and first creates)
            // ~/.cache/org.swift.foundation.URLCache/<tool> on every answer.
            configuration.urlCache = nil
            // The pager keeps up to 8 requests in flight on one host; the default (6) would queue two.
            configuration.httpMaximumConnectionsPerHost = ConcurrencyWindow.ceiling
            return URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        }
        #endif
    }

    #if !os(Linux)
    /// The directories swift-corelibs-foundation creates when its shared URL cache and cookie
    /// storage start (on Linux, at the first `URLSessionConfiguration`, whatever `urlCache` and
    /// `httpCookieStorage` are set to afterwards): `$XDG_CACHE_HOME/org.swift.foundation.URLCache/<tool>/`
    /// and `$XDG_DATA_HOME/<name of the executable's directory>/` (`~/.local/share/bin`). Nothing
    /// is ever written there, so the empty ones that did not exist before are removed again;
    /// `rmdir` never removes a directory with anything in it.
    struct FoundationStrays {
        let candidates: [String]
        let before: Set<String>

        init() {
            let manager = FileManager.default
            let caches = manager.urls(for: .cachesDirectory, in: .userDomainMask).first?.path
            let data = manager.urls(for: .applicationSupportDirectory, in: .userDomainMask).first?.path
            candidates = [caches, caches.map { $0 + "/org.swift.foundation.URLCache" }, data].compactMap { $0 }
            before = Self.directories(candidates)
        }

        /// The candidates that exist, and the directories directly in them.
        static func directories(_ roots: [String]) -> Set<String> {
            var found: Set<String> = []
            for root in roots {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue
                else { continue }
                found.insert(root)
                for name in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] {
                    found.insert(root + "/" + name)
                }
            }
            return found
        }

        func sweep() {
            let new = Self.directories(candidates).subtracting(before)
            // Deepest first, so a parent made empty by removing its child goes too.
            for path in new.sorted(by: { $0.count > $1.count }) { _ = rmdir(path) }
        }
    }
    #endif

    /// One exchange as it arrives: the body so far and the single hand-back of its outcome, which
    /// whichever comes first (the whole answer, the body cap, the deadline) takes. What arrives
    /// after that is dropped, so a task left to finish holds no memory.
    final class Exchange: @unchecked Sendable {  // mutable state only under `lock`
        private let lock = PlainLock()
        private var body = Data()
        private var response: HTTPResponseHead?
        private var finish: (@Sendable (Result<(Data, HTTPResponseHead), any Error>, HTTPResponseHead?) -> Void)?
        private var timer: DispatchWorkItem?
        let host: String
        let maxBodyBytes: Int

        init(
            host: String, maxBodyBytes: Int,
            finish: @escaping @Sendable (Result<(Data, HTTPResponseHead), any Error>, HTTPResponseHead?) -> Void
        ) {
            self.host = host
            self.maxBodyBytes = maxBodyBytes
            self.finish = finish
        }

        /// A queue of its own: the global queue's few threads (one per core) can all be blocked by
        /// others' work, and a deadline must fire on time whatever else the process is doing.
        static let deadlines = DispatchQueue(label: "HTTPTransport.deadlines")

        /// Ends the exchange with "timed out" unless it ended first.
        func arm(deadline seconds: TimeInterval) {
            let item = DispatchWorkItem { [weak self] in
                guard let self else { return }
                self.end(
                    .failure(
                        HTTPFailure.unreachable(
                            host: self.host, reason: "timed out after \(Int(saturating: seconds)) s")))
            }
            lock.lock()
            let open = finish != nil
            if open { timer = item }
            lock.unlock()
            if open { Self.deadlines.asyncAfter(deadline: .now() + seconds, execute: item) }
        }

        /// Whether the outcome is still to be handed back: once it is, what arrives is unwanted.
        var isOpen: Bool {
            lock.lock()
            defer { lock.unlock() }
            return finish != nil
        }

        func received(_ response: HTTPResponseHead) {
            lock.lock()
            self.response = response
            lock.unlock()
            if let length = response.expectedLength, length > Int64(maxBodyBytes) { tooLarge() }
        }

        func received(_ data: Data) {
            lock.lock()
            guard finish != nil else { return lock.unlock() }
            let over = body.count + data.count > maxBodyBytes
            if !over { body.append(data) }
            lock.unlock()
            if over { tooLarge() }
        }

        func completed(_ error: (any Error)?) {
            lock.lock()
            let outcome: Result<(Data, HTTPResponseHead), any Error>
            if let error {
                outcome = .failure(error)
            } else if let response {
                outcome = .success((body, response))
            } else {
                outcome = .failure(HTTPFailure.unreachable(host: host, reason: "the answer had no status line"))
            }
            lock.unlock()
            end(outcome)
        }

        private func tooLarge() {
            end(.failure(HTTPFailure.tooLarge(host: host, limit: maxBodyBytes)))
        }

        /// Hands the outcome back once; later calls do nothing.
        func end(_ outcome: Result<(Data, HTTPResponseHead), any Error>) {
            lock.lock()
            let finish = self.finish
            self.finish = nil
            body = Data()
            let timer = self.timer
            self.timer = nil
            let response = self.response
            lock.unlock()
            timer?.cancel()
            finish?(outcome, response)
        }
    }

    #if !os(Linux)
    /// The session's delegate: routes each task's events to its `Exchange`, and answers every
    /// redirect with "do not follow" (the 3xx itself becomes the response). It never cancels a
    /// task (see `load`): a task whose exchange ended early is left to finish, its data dropped.
    final class Receiver: NSObject, URLSessionDataDelegate, @unchecked Sendable {  // state in `exchanges`
        private let exchanges = Locked<[Int: Exchange]>([:])

        func register(_ exchange: Exchange, for task: URLSessionTask) {
            exchanges.withLock { $0[task.taskIdentifier] = exchange }
        }

        private func exchange(_ task: URLSessionTask) -> Exchange? {
            exchanges.withLock { $0[task.taskIdentifier] }
        }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            if let http = response as? HTTPURLResponse {
                var headers: [String: String] = [:]
                for (key, value) in http.allHeaderFields {
                    if let key = key as? String, let value = value as? String { headers[key] = value }
                }
                exchange(dataTask)?.received(HTTPResponseHead(status: http.statusCode, headers: headers))
            } else {
                exchange(dataTask)?.end(
                    .failure(HTTPFailure.notHTTP(host: dataTask.originalRequest?.url?.host ?? "server")))
            }
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            exchange(dataTask)?.received(data)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            let exchange = exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
            exchange?.completed(error)
        }
    }
    #endif

    /// Sends `request`; with a `slot`, only when its `InFlightLimit` has room. Throws
    /// `HTTPFailure`, or `CancellationError` when withdrawn before it was sent.
    package func send(_ request: HTTPClientRequest, slot: InFlightSlot? = nil) async throws -> HTTPResult {
        do {
            #if os(Linux)
            // libcurl is loaded at the first request; without it nothing can be sent.
            if let missing = CurlLibrary.load() { throw HTTPFailure.clientMissing(reason: missing) }
            #endif
            let (data, head) = try await Self.load(request, in: session, slot: slot)
            let result = HTTPResult(status: head.status, headers: head.headers, body: data)
            if (300..<400).contains(result.status) && result.status != 304 {
                throw Self.refusedRedirect(result, request: request)
            }
            return result
        } catch let error as HTTPFailure {
            throw error
        } catch let error as CancellationError {
            throw error  // withdrawn before it was sent: nothing failed
        } catch {
            #if !os(Linux)
            if let error = error as? URLError, error.code == .timedOut {
                throw HTTPFailure.unreachable(
                    host: Self.hostAndPort(request.url),
                    reason: "timed out after \(max(1, Int(saturating: session.timeout.rounded(.up)))) s")
            }
            if let error = error as? URLError, let failure = Self.tlsFailure(error) {
                throw HTTPFailure.tls(host: Self.hostAndPort(request.url), failure: failure)
            }
            #endif
            #if canImport(FoundationEssentials)
            let reason = String(describing: error)
            #else
            let reason = (error as NSError).localizedDescription
            #endif
            throw HTTPFailure.unreachable(host: Self.hostAndPort(request.url), reason: reason)
        }
    }

    /// Sends the request (on macOS as a delegate task, so the body can be capped as it arrives)
    /// without cancelling it: URLSession's cancelling could deadlock on Linux with a response being
    /// delivered (swift-corelibs-foundation #5412), which hung the pager when one page failed while
    /// the others were in flight. A request on the wire is left to finish (libcurl's stops at its
    /// next progress check); the caller gets its outcome once, at the whole answer, the body cap
    /// or the deadline, whichever is first. A
    /// cancelled caller whose request still waits for a place in its `slot` withdraws it unsent.
    static func load(_ request: HTTPClientRequest, in lazy: LazySession, slot: InFlightSlot? = nil) async throws -> (
        Data, HTTPResponseHead
    ) {
        let host = hostAndPort(request.url)
        @Sendable func start(
            _ finish: @escaping @Sendable (Result<(Data, HTTPResponseHead), any Error>, HTTPResponseHead?) -> Void
        ) {
            let exchange = Exchange(host: host, maxBodyBytes: lazy.maxBodyBytes, finish: finish)
            exchange.arm(deadline: lazy.deadline)
            #if os(Linux)
            lazy.curl.start(request, exchange: exchange, settings: lazy.settings)
            #else
            let shared = lazy.urlSession
            let task = shared.session.dataTask(with: request.urlRequest)
            shared.receiver.register(exchange, for: task)
            task.resume()
            #endif
        }
        guard let slot else {
            return try await withCheckedThrowingContinuation { continuation in
                start { outcome, _ in continuation.resume(with: outcome) }
            }
        }
        let limit = slot.limit
        let ticket = limit.ticket()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // Started by whichever thread frees a place: often URLSession's own, as the
                // previous answer is handed back, so the next request goes out without a task hop.
                limit.enter(
                    ticket: ticket, order: slot.order,
                    start: {
                        start { outcome, response in
                            // The next waiting request is started before this answer is handed on
                            // (also when it ended at the cap or deadline: a task left to finish
                            // holds no place). A 429 the run waits out together pauses the
                            // limit here, before any place it frees is handed on.
                            var holdOff: Double?
                            if response?.status == 429, case .success(let (body, head)) = outcome {
                                holdOff = limit.holdOff(
                                    after: HTTPResult(status: head.status, headers: head.headers, body: body))
                            }
                            limit.finished(ticket: ticket, status: response?.status, holdOff: holdOff)
                            continuation.resume(with: outcome)
                        }
                    },
                    abandon: {
                        continuation.resume(throwing: CancellationError())
                    })
            }
        } onCancel: {
            limit.withdraw(ticket: ticket)
        }
    }

    #if !os(Linux)
    /// A certificate or handshake failure URLSession reported, or nil for any other. On macOS the
    /// system's trust store decides, not SSL_CERT_FILE: the fix is the keychain.
    static func tlsFailure(_ error: URLError) -> TLSFailure? {
        let keychain =
            """
            add your CA to the System keychain, trusted for SSL (Keychain Access, or: sudo security add-trusted-cert \
            -d -r trustRoot -k /Library/Keychains/System.keychain ca.pem)
            """
        let detail = error.localizedDescription
        switch error.code {
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot:
            return TLSFailure(kind: .untrusted, detail: detail, fix: keychain)
        case .serverCertificateHasBadDate, .serverCertificateNotYetValid:
            return TLSFailure(kind: .untrusted, detail: detail, fix: TLSFailure.clockFix)
        case .secureConnectionFailed, .clientCertificateRejected, .clientCertificateRequired:
            return TLSFailure(kind: .handshake, detail: detail, fix: TLSFailure.handshakeFix)
        default:
            return nil
        }
    }
    #endif

    /// Who redirected which request, and where to (host and port only: a query could carry anything).
    static func refusedRedirect(_ result: HTTPResult, request: HTTPClientRequest) -> HTTPFailure {
        let location = result.header("Location").flatMap { URL(string: $0, relativeTo: request.url)?.absoluteURL }
        return .refusedRedirect(
            origin: hostAndPort(request.url), method: request.method, path: request.url.path,
            status: result.status, target: location.map(hostAndPort) ?? "an unnamed place (no Location header)")
    }

    static func hostAndPort(_ url: URL) -> String {
        "\(url.host ?? "?")\(url.port.map { ":\($0)" } ?? "")"
    }

    /// `application/x-www-form-urlencoded` POST, as the accounts service wants.
    package func postForm(_ url: URL, _ fields: [(String, String)]) async throws -> HTTPResult {
        let request = HTTPClientRequest(
            url: url, method: "POST", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data(URLForm.encode(fields).utf8))
        return try await send(request)
    }
}

#if !os(Linux)
extension HTTPClientRequest {
    /// The same request for URLSession.
    var urlRequest: URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        return request
    }
}
#endif
