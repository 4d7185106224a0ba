import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Hands out valid access tokens to every tool. Refreshes proactively when less than 60 s
/// remain and once after a 401. One refresh at a time inside a process (concurrent callers
/// await the same one) and across processes (an exclusive lock, then a re-read of the store:
/// a token another process just refreshed is used instead of refreshing again, which would
/// burn a rotating refresh token).
package actor TokenProvider {
    /// A token to use as is instead of the stored login (scripts, CI).
    package static let accessTokenVariable = "SPOTIFY_ACCESS_TOKEN"

    let store: TokenStore
    let environment: ToolEnvironment
    let accounts: AccountsClient
    /// `SPOTIFY_ACCESS_TOKEN`: used as is, never stored, never refreshed.
    let environmentToken: String?
    let clock: @Sendable () -> Double
    var cached: StoredTokens?
    var inFlight: Task<StoredTokens, Error>?

    enum RefreshReason: Sendable {
        case expiring
        case rejected(String)
        case forced
    }

    package init(
        environment: ToolEnvironment, developer: DeveloperSettings = DeveloperSettings(), store: TokenStore? = nil,
        clock: @escaping @Sendable () -> Double, ledger: RequestLedger? = nil
    ) throws {
        self.store = store ?? TokenStores.make(environment: environment)
        self.environment = environment
        var accounts = try AccountsClient(environment: environment, developer: developer)
        accounts.ledger = ledger
        self.accounts = accounts
        self.environmentToken = environment[Self.accessTokenVariable]
        self.clock = clock
    }

    package var usesEnvironmentToken: Bool { environmentToken != nil }

    static let notLoggedIn = ToolError.noPermission("not logged in; run 'spotify-auth login'")

    /// Whether there is a login to hand tokens out from (SPOTIFY_ACCESS_TOKEN, or a stored one),
    /// asked without a refresh or the network: for a command that must say "log in" before it
    /// starts anything (`routine-link run`). Whether Spotify still takes the tokens is not known.
    package func hasLogin() throws -> Bool {
        try environmentToken != nil || cached != nil || store.load() != nil
    }

    /// After `invalid_grant`: what Spotify said, and the six-month rule only when this login is
    /// about that old (otherwise it was revoked, or the token was used elsewhere).
    static func sessionEnded(reason: String, authorizedAt: Double, now: Double) -> ToolError {
        var message = "Spotify ended the session (\(reason))"
        if now - authorizedAt >= AuthStatus.refreshTokenLifetime - 7 * 24 * 3600 {
            message += "; refresh tokens last six months and this login is from \(AuthStatus.timestamp(authorizedAt))"
        }
        return ToolError.noPermission(message + "; run 'spotify-auth login' to log in again")
    }

    /// A valid access token, refreshed first when it is about to expire.
    package func accessToken() async throws -> String {
        if let environmentToken { return environmentToken }
        let tokens = try currentTokens()
        if tokens.needsRefresh(now: clock()) { return try await refresh(.expiring).accessToken }
        return tokens.accessToken
    }

    /// `spotify-auth token --json`: the token `accessToken()` hands out, as an `access_token`
    /// record with when it expires (null for SPOTIFY_ACCESS_TOKEN's, which nobody told us).
    package func accessTokenRecord() async throws -> AccessTokenRecord {
        if let environmentToken {
            return AccessTokenRecord(
                accessToken: environmentToken, expiresAt: nil, expiresIn: nil, scopes: nil,
                source: Self.accessTokenVariable)
        }
        var tokens = try currentTokens()
        if tokens.needsRefresh(now: clock()) { tokens = try await refresh(.expiring) }
        return AccessTokenRecord(
            accessToken: tokens.accessToken, expiresAt: AuthStatus.timestamp(tokens.expiresAt),
            expiresIn: max(0, Int(saturating: tokens.expiresAt - clock())), scopes: tokens.scopes, source: nil)
    }

    /// After Spotify answered 401 to `rejected`: the token another caller already got, or a new one.
    package func accessToken(afterRejectionOf rejected: String) async throws -> String {
        if environmentToken != nil {
            throw ToolError.noPermission(
                """
                Spotify rejected the token in SPOTIFY_ACCESS_TOKEN; unset it to use the stored login, or set a fresh \
                token
                """
            )
        }
        return try await refresh(.rejected(rejected)).accessToken
    }

    /// `spotify-auth refresh`: a new access token now, whatever the old one's expiry.
    package func forceRefresh() async throws -> StoredTokens {
        try await refresh(.forced)
    }

    /// Whose tokens these are, as the login stored it from `GET /me`: known without a request.
    /// nil for SPOTIFY_ACCESS_TOKEN's (anyone's) and for a login that did not keep it.
    func storedUserID() -> String? {
        guard environmentToken == nil, let id = try? currentTokens().userID, !id.isEmpty else { return nil }
        return id
    }

    func currentTokens() throws -> StoredTokens {
        if let cached { return cached }
        guard let tokens = try store.load() else { throw Self.notLoggedIn }
        try checkServices(of: tokens)
        cached = tokens
        return tokens
    }

    /// A stored login is used only with the services it was made against: a login made
    /// against fake-spotify is never sent to Spotify, nor the reverse.
    func checkServices(of tokens: StoredTokens) throws {
        // A login stored before the bases were recorded came from Spotify itself: such tokens go
        // to Spotify's own services only, never to wherever the environment points now.
        let now = [
            (
                "SPOTIFY_ACCOUNTS_BASE", tokens.accountsBase ?? AccountsClient.defaultBase,
                accounts.baseURL.absoluteString
            ),
            (
                SpotifyWebAPI.baseVariable, tokens.apiBase ?? SpotifyWebAPI.defaultBase,
                (try? SpotifyWebAPI.apiBase(environment[SpotifyWebAPI.baseVariable], allowsInsecure: true))
                    ?? SpotifyWebAPI.defaultBase
            ),
        ]
        for (variable, stored, current) in now {
            guard ServiceBase.normalized(stored) != ServiceBase.normalized(current) else { continue }
            throw ToolError.noPermission(
                """
                the stored login was made against \(ServiceBase.normalized(stored)), and \(variable) now points to \
                \(ServiceBase.normalized(current)); its tokens are not sent there: set \(variable) back, or run \
                'spotify-auth login' for this one
                """
            )
        }
    }

    func refresh(_ reason: RefreshReason) async throws -> StoredTokens {
        if let inFlight { return try await inFlight.value }
        if let cached, isSatisfied(reason, by: cached) { return cached }
        let task = Task { try await self.refreshUnderLock(reason) }
        inFlight = task
        defer { inFlight = nil }
        let tokens = try await task.value
        cached = tokens
        return tokens
    }

    /// Whether `tokens` already answer the need, e.g. because someone else refreshed meanwhile.
    func isSatisfied(_ reason: RefreshReason, by tokens: StoredTokens) -> Bool {
        switch reason {
        case .expiring: !tokens.needsRefresh(now: clock())
        case .rejected(let token): tokens.accessToken != token && !tokens.needsRefresh(now: clock())
        case .forced: false
        }
    }

    func refreshUnderLock(_ reason: RefreshReason) async throws -> StoredTokens {
        try await TokenStores.refreshLock(environment: environment).withLock {
            guard let stored = try store.load() else { throw Self.notLoggedIn }
            try checkServices(of: stored)
            if isSatisfied(reason, by: stored) { return stored }
            guard let refreshToken = stored.refreshToken else {
                throw ToolError.noPermission("the stored login has no refresh token; run 'spotify-auth login'")
            }
            // Before anything irreversible: the store must be writable (a full disk fails here,
            // with the refresh token unburnt), and until the rotated tokens are saved a signal
            // must not end the process (the new refresh token exists nowhere else).
            let reservation = try store.reserveSave(like: stored)
            defer { reservation.cancel() }
            let deferral = SignalDeferral.begin()
            defer { deferral.end() }
            let response: TokenResponse
            do {
                response = try await accounts.refresh(refreshToken: refreshToken, clientID: stored.clientID)
            } catch AccountsClient.RefreshFailure.invalidGrant(let reason) {
                // The refresh token is dead: keeping it would only fail again.
                try store.remove()
                throw Self.sessionEnded(reason: reason, authorizedAt: stored.authorizedAt, now: clock())
            }
            let next = stored.refreshed(with: response, now: clock())
            try reservation.commit(next)
            return next
        }
    }
}

/// An `access_token` record (`spotify-auth token --json`): the token, its type (Bearer), when it
/// expires (null for SPOTIFY_ACCESS_TOKEN's, which nobody told us), then the scopes of a stored
/// login, or the variable the token came from.
package struct AccessTokenRecord: JSONRecord, Equatable {
    package var accessToken: String
    /// ISO 8601, UTC.
    package var expiresAt: String?
    /// Seconds.
    package var expiresIn: Int?
    /// A stored login's scopes (nil: from the environment, not known).
    package var scopes: [String]?
    /// The environment variable the token came from.
    package var source: String?

    package init(accessToken: String, expiresAt: String?, expiresIn: Int?, scopes: [String]?, source: String?) {
        self.accessToken = accessToken
        self.expiresAt = expiresAt
        self.expiresIn = expiresIn
        self.scopes = scopes
        self.source = source
    }

    package var json: JSONValue {
        var record: JSONObject = [
            "type": "access_token", "access_token": .string(accessToken), "token_type": "Bearer",
            "expires_at": expiresAt.map(JSONValue.string) ?? .null, "expires_in": expiresIn.map(JSONValue.int) ?? .null,
        ]
        if let source { record["source"] = .string(source) }
        if let scopes { record["scopes"] = .array(scopes.map(JSONValue.string)) }
        return .object(record)
    }
}
