import Foundation
import Testing

@testable import HTTPClient
@testable import SpotifyClient
@testable import ToolkitCore

/// What a request does with each kind of failed answer, decided without a server.
@Suite(.tags(.small)) struct RetryDecisionTests {
    static let policy = RetryPolicy(maxAttempts: 5, baseDelay: 0.25, maxDelay: 8, maxRateLimitWaits: 3)

    static func decide(
        _ status: Int, _ body: String = #"{"error":{"status":0,"message":"no"}}"#, refreshed: Bool = false,
        waits: Int = 0, retryAfter: Double? = nil, knowsScope: Bool = false
    ) -> RetryDecision {
        let answer = SpotifyErrorBody(HTTPResult(status: status, headers: [:], body: Data(body.utf8)))
        return RetryDecision(
            answer, method: "GET", path: "/me", refreshed: refreshed, rateLimitWaits: waits, retryAfter: retryAfter,
            random: 0.5, maxRetryWait: 60, policy: policy, knowsScope: knowsScope)
    }

    static func failure(_ decision: RetryDecision) -> ToolError? {
        if case .fail(let error) = decision { error } else { nil }
    }

    @Test func a401RefreshesOnceThenSaysToLogIn() throws {
        #expect(Self.decide(401) == .refreshToken)
        let error = try #require(Self.failure(Self.decide(401, refreshed: true)))
        #expect(error.exitCode == .noPermission && error.requestOutcome == .notCarriedOut)
        #expect(
            error.message == "Spotify rejected the access token even after a refresh (no); run 'spotify-auth login'")
    }

    @Test func a429IsSatOutAsAskedWithinTheCapAndTheCount() throws {
        #expect(Self.decide(429, retryAfter: 7) == .waitOut(seconds: 7))
        // No Retry-After: the backoff for the wait's number (the second: 0.5 s, half of it jittered).
        #expect(Self.decide(429, waits: 1) == .waitOut(seconds: Self.policy.backoff(afterAttempt: 2, random: 0.5)))
        let tooLong = try #require(Self.failure(Self.decide(429, retryAfter: 61)))
        #expect(tooLong.exitCode == .tempFail && tooLong.requestOutcome == .notCarriedOut)
        #expect(tooLong.message.hasPrefix("Spotify is rate limiting and asked to wait 61 s (more than the 60 s cap)"))
        let tooMany = try #require(Self.failure(Self.decide(429, waits: 3, retryAfter: 1)))
        #expect(tooMany.message.hasPrefix("Spotify is still rate limiting after 3 waits (it asked for 1 s more)"))
    }

    @Test func a5xxIsTriedAgainAndMayHaveLanded() {
        let expected = ToolError.unavailable("Spotify failed (HTTP 502: no) on GET /me; try again later")
            .outcome(.unknown)
        #expect(Self.decide(502) == .tryAgain(expected))
    }

    @Test func a403NamesTheMissingScopeOnlyWhenTheRequestSaidWhichItNeeds() throws {
        let scopeBody = #"{"error":{"status":403,"message":"Insufficient client scope"}}"#
        #expect(Self.decide(403, scopeBody, knowsScope: true) == .missingScope)
        let unnamed = try #require(Self.failure(Self.decide(403, scopeBody)))
        #expect(unnamed.exitCode == .noPermission && unnamed.requestOutcome == .notCarriedOut)
        #expect(Self.failure(Self.decide(403, knowsScope: true))?.exitCode == .noPermission)
    }

    @Test func otherStatusesFailAtOnceHavingChangedNothing() throws {
        let missing = try #require(Self.failure(Self.decide(404)))
        #expect(missing == ToolError(.notFound, "not found: /me (no)").outcome(.notCarriedOut))
        let teapot = try #require(Self.failure(Self.decide(418)))
        #expect(teapot == ToolError.unavailable("Spotify answered HTTP 418 to GET /me: no").outcome(.notCarriedOut))
    }
}
