import ToolkitCore

/// Why an exchange brought back no answer to use. Retries branch on the case (`isTransient`),
/// never on the message; `toolError` is where each becomes what a person reads, with exit 69.
package enum HTTPFailure: Error, Sendable, Equatable, ToolErrorConvertible {
    /// The connection failed, was reset or timed out ("timed out after N s"), or the body was cut
    /// short; `reason` is the HTTP client's words. `host` may carry a port.
    case unreachable(host: String, reason: String)
    /// What answered does not speak HTTP.
    case notHTTP(host: String)
    /// A 3xx, not followed (see `HTTPTransport`): `origin` answered `method path` with `status`,
    /// pointing to `target` (host and port only).
    case refusedRedirect(origin: String, method: String, path: String, status: Int, target: String)
    /// The body passed `limit` bytes (`HTTPTransport.maxBodyBytes`): not retried, the same server
    /// would send it again.
    case tooLarge(host: String, limit: Int)
    /// No TLS connection could be made: the certificate is not trusted or not for this host, the
    /// CA settings could not be read, or the handshake failed. Nothing was sent, and trying again
    /// would fail the same way, so it is never retried; the message names the setting that fixes it.
    case tls(host: String, failure: TLSFailure)
    /// On Linux, libcurl could not be loaded (`reason` says why and what to install, `CCurl.h`):
    /// nothing was sent, and trying again would not help.
    case clientMissing(reason: String)

    /// The server held the request past the time-out: unlike a reset or a 5xx, it may still be
    /// carrying it out. (`reason` is this module's own words, made in `CurlLoop` and `HTTPTransport`.)
    var isTimeout: Bool {
        if case .unreachable(_, let reason) = self { reason.hasPrefix("timed out") } else { false }
    }

    /// Worth trying again, unlike a refused redirect or a server that is not HTTP, which would
    /// only happen again.
    package var isTransient: Bool {
        if case .unreachable = self { true } else { false }
    }

    /// What the failure says about a write: a request that never left cannot have landed.
    package var requestOutcome: RequestOutcome {
        switch self {
        case .clientMissing, .tls: .notCarriedOut
        case _ where isTimeout: .timedOut
        default: .unknown
        }
    }

    package var toolError: ToolError {
        switch self {
        case .unreachable(let host, let reason):
            .unavailable("cannot reach \(host): \(reason)")
        case .notHTTP(let host):
            .unavailable("\(host) answered with something that is not HTTP")
        case .tooLarge(let host, let limit):
            .unavailable(
                """
                \(host) sent an answer too large (more than \
                \(limit >= 1 << 20 ? "\(limit >> 20) MiB" : "\(limit) bytes")); not read further
                """
            )
        case .clientMissing(let reason):
            .unavailable(reason)
        case .tls(let host, let failure):
            .unavailable("\(host): \(failure.what) (\(failure.detail)); \(failure.fix)")
        case .refusedRedirect(let origin, let method, let path, let status, let target):
            .unavailable(
                """
                \(origin) answered \(method) \(path) with a redirect (HTTP \(status)) to \(target); Spotify does not \
                redirect API requests, so it was not followed (check SPOTIFY_API_BASE and SPOTIFY_ACCOUNTS_BASE)
                """
            )
        }
    }
}
