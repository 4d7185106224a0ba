import ToolkitCore

/// What `SpotifyWebAPI.perform` does with an answer that is neither a success nor one its caller
/// takes itself: decided from the status, Spotify's error body and how far the request got, so
/// each rule is tested without a server.
enum RetryDecision: Sendable, Equatable {
    /// Refresh the access token and send again (a refresh is not a failed try).
    case refreshToken
    /// Sit out a 429 this many seconds, as Spotify asked, then send again (not a failed try).
    case waitOut(seconds: Double)
    /// A transient failure: back off and try again while tries are left, else fail with it.
    case tryAgain(ToolError)
    /// A 403 for a scope the login lacks: name it, and the login that adds it.
    case missingScope
    /// Fail with this error.
    case fail(ToolError)

    /// `refreshed`: the token was refreshed for this request already. `rateLimitWaits`: 429s sat
    /// out so far. `retryAfter`: the 429's usable `Retry-After` seconds; `random` (0..<1) jitters
    /// the backoff without one. `knowsScope`: the request said which scope it needs.
    init(
        _ answer: SpotifyErrorBody, method: String, path: String, refreshed: Bool, rateLimitWaits: Int,
        retryAfter: Double?, random: Double, maxRetryWait: Double, policy: RetryPolicy, knowsScope: Bool
    ) {
        switch answer.status {
        case 401 where !refreshed:
            self = .refreshToken
        case 401:
            self = .fail(
                ToolError.noPermission(
                    """
                    Spotify rejected the access token even after a refresh (\(answer.message)); run 'spotify-auth login'
                    """
                ).outcome(.notCarriedOut))
        case 429:
            let wait = policy.rateLimitWait(retryAfter: retryAfter, attempt: rateLimitWaits + 1, random: random)
            if wait > maxRetryWait {
                self = .fail(
                    ToolError.tempFail(
                        """
                        Spotify is rate limiting and asked to wait \(SpotifyWebAPI.seconds(wait)) (more than the \
                        \(SpotifyWebAPI.seconds(maxRetryWait)) cap); try again later
                        """
                    ).outcome(.notCarriedOut))
            } else if rateLimitWaits >= policy.maxRateLimitWaits {
                self = .fail(
                    ToolError.tempFail(
                        """
                        Spotify is still rate limiting after \(rateLimitWaits) waits (it asked for \
                        \(SpotifyWebAPI.seconds(wait)) more); try again later
                        """
                    ).outcome(.notCarriedOut))
            } else {
                self = .waitOut(seconds: wait)
            }
        case 500...599:
            self = .tryAgain(
                ToolError.unavailable(
                    "Spotify failed (HTTP \(answer.status): \(answer.message)) on \(method) \(path); try again later"
                ).outcome(.unknown))
        case 403 where answer.isMissingScope && knowsScope:
            self = .missingScope
        case 403:
            self = .fail(ToolError.noPermission(answer.forbiddenExplanation).outcome(.notCarriedOut))
        case 404:
            self = .fail(ToolError(.notFound, "not found: \(path) (\(answer.message))").outcome(.notCarriedOut))
        default:
            self = .fail(
                ToolError.unavailable("Spotify answered HTTP \(answer.status) to \(method) \(path): \(answer.message)")
                    .outcome(.notCarriedOut))
        }
    }
}
