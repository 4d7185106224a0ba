import Foundation
import ToolkitCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP exchange's outcome. Any 2xx is success; an empty body is never decoded.
package struct HTTPResult: Sendable {
    package var status: Int
    package var headers: [String: String]
    package var body: Data

    package var isSuccess: Bool { (200..<300).contains(status) }

    package func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// Sends requests with URLSession. Failures to reach the server are `HTTPFailure`s naming the
/// host (exit 69 when reported), never a crash and never a token in the message. Redirects are never followed: URLSession would
/// send the `Authorization` header (or a refresh token in the body) on to whatever host the
/// redirect names, and Spotify does not redirect Web API or accounts requests; a 3xx is an error
/// naming where it pointed.
package struct HTTPTransport: Sendable {
    let session: LazySession

    package init(timeout: TimeInterval = 30) {
        session = LazySession(timeout: timeout)
    }

    /// The URLSession, made on the first request. Making one starts FoundationNetworking and
    /// libcurl (about 5 MB), which every run that builds a client but never sends (no input, not
    /// logged in) would otherwise pay for. Copies of the transport share one session.
    final class LazySession: Sendable {
        let timeout: TimeInterval
        private let made = Locked<URLSession?>(nil)

        init(timeout: TimeInterval) { self.timeout = timeout }

        /// Whether a request has needed the session yet.
        var isMade: Bool { made.withLock { $0 != nil } }

        var urlSession: URLSession {
            made.withLock {
                if let session = $0 { return session }
                let session = Self.make(timeout: timeout)
                $0 = session
                return session
            }
        }

        private static func make(timeout: TimeInterval) -> URLSession {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = timeout
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            configuration.httpShouldSetCookies = false
            // No URLCache: on Linux even an ephemeral session otherwise scans (and first creates)
            // ~/.cache/org.swift.foundation.URLCache/<tool> on every answer.
            configuration.urlCache = nil
            // The pager keeps up to 8 requests in flight on one host; the default (6) would queue two.
            configuration.httpMaximumConnectionsPerHost = ConcurrencyWindow.ceiling
            return URLSession(configuration: configuration, delegate: RedirectRefusal(), delegateQueue: nil)
        }
    }

    /// Answers every redirect with "do not follow": the 3xx itself becomes the response.
    final class RedirectRefusal: NSObject, URLSessionTaskDelegate, @unchecked Sendable {  // stateless
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }

    /// Sends `request`; with a `slot`, only when its `InFlightLimit` has room. Throws
    /// `HTTPFailure`, or `CancellationError` when withdrawn before it was sent.
    package func send(_ request: URLRequest, slot: InFlightSlot? = nil) async throws -> HTTPResult {
        do {
            let (data, response) = try await Self.load(request, in: session.urlSession, slot: slot)
            guard let http = response as? HTTPURLResponse else {
                throw HTTPFailure.notHTTP(host: request.url?.host ?? "server")
            }
            var headers: [String: String] = [:]
            for (key, value) in http.allHeaderFields {
                if let key = key as? String, let value = value as? String { headers[key] = value }
            }
            let result = HTTPResult(status: http.statusCode, headers: headers, body: data)
            if (300..<400).contains(result.status) && result.status != 304 {
                throw Self.refusedRedirect(result, request: request)
            }
            return result
        } catch let error as HTTPFailure {
            throw error
        } catch let error as CancellationError {
            throw error  // withdrawn before it was sent: nothing failed
        } catch {
            throw HTTPFailure.unreachable(
                host: request.url.map(Self.hostAndPort) ?? "server", reason: (error as NSError).localizedDescription)
        }
    }

    /// `session.data(for:)` without its cancellation handler: on Linux that handler can deadlock
    /// with a response being delivered (swift-corelibs-foundation #5412), which hung the pager when
    /// one page failed while the others were in flight. A request on the wire is left to finish; a
    /// cancelled caller whose request still waits for a place in its `slot` withdraws it unsent.
    static func load(_ request: URLRequest, in session: URLSession, slot: InFlightSlot? = nil) async throws -> (
        Data, URLResponse
    ) {
        guard let slot else {
            return try await withCheckedThrowingContinuation { continuation in
                session.dataTask(with: request) { data, response, error in
                    continuation.resume(with: outcome(data, response, error))
                }.resume()
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
                        session.dataTask(with: request) { data, response, error in
                            // The next waiting request is started before this answer is handed on.
                            limit.finished(ticket: ticket, status: (response as? HTTPURLResponse)?.statusCode)
                            continuation.resume(with: outcome(data, response, error))
                        }.resume()
                    },
                    abandon: {
                        continuation.resume(throwing: CancellationError())
                    })
            }
        } onCancel: {
            limit.withdraw(ticket: ticket)
        }
    }

    private static func outcome(_ data: Data?, _ response: URLResponse?, _ error: (any Error)?) -> Result<
        (Data, URLResponse), any Error
    > {
        if let error { return .failure(error) }
        guard let response else { return .failure(URLError(.badServerResponse)) }
        return .success((data ?? Data(), response))
    }

    /// Who redirected which request, and where to (host and port only: a query could carry anything).
    static func refusedRedirect(_ result: HTTPResult, request: URLRequest) -> HTTPFailure {
        let location = result.header("Location").flatMap { URL(string: $0, relativeTo: request.url)?.absoluteURL }
        return .refusedRedirect(
            origin: request.url.map(hostAndPort) ?? "the server", method: request.httpMethod ?? "GET",
            path: request.url?.path ?? "",
            status: result.status, target: location.map(hostAndPort) ?? "an unnamed place (no Location header)")
    }

    static func hostAndPort(_ url: URL) -> String {
        "\(url.host ?? "?")\(url.port.map { ":\($0)" } ?? "")"
    }

    /// `application/x-www-form-urlencoded` POST, as the accounts service wants.
    package func postForm(_ url: URL, _ fields: [(String, String)]) async throws -> HTTPResult {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(URLForm.encode(fields).utf8)
        return try await send(request)
    }
}
