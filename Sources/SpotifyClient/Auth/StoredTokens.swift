import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What login leaves behind: the token pair, when it expires, and who it belongs to.
/// Stored as JSON with Spotify's own field names where Spotify has one.
package struct StoredTokens: Codable, Sendable, Equatable {
    package var accessToken: String
    package var tokenType: String
    /// Space-separated granted scopes, as the token endpoint returns them.
    package var scope: String
    /// Unix seconds when the access token expires.
    package var expiresAt: Double
    package var refreshToken: String?
    package var clientID: String
    /// Unix seconds of the original authorization; refresh tokens die six months after it.
    package var authorizedAt: Double
    package var userID: String?
    package var displayName: String?
    /// The accounts service and Web API this login was made against (`SPOTIFY_ACCOUNTS_BASE`,
    /// `SPOTIFY_API_BASE` at login; nil in logins stored before they were kept): its tokens are
    /// sent nowhere else (`TokenProvider`).
    package var accountsBase: String?
    package var apiBase: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case scope
        case expiresAt = "expires_at"
        case refreshToken = "refresh_token"
        case clientID = "client_id"
        case authorizedAt = "authorized_at"
        case userID = "user_id"
        case displayName = "display_name"
        case accountsBase = "accounts_base"
        case apiBase = "api_base"
    }

    package init(
        accessToken: String, tokenType: String = "Bearer", scope: String, expiresAt: Double, refreshToken: String?,
        clientID: String, authorizedAt: Double, userID: String? = nil, displayName: String? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.scope = scope
        self.expiresAt = expiresAt
        self.refreshToken = refreshToken
        self.clientID = clientID
        self.authorizedAt = authorizedAt
        self.userID = userID
        self.displayName = displayName
    }

    /// Refresh proactively when less than this remains.
    static let refreshMargin: Double = 60

    func needsRefresh(now: Double) -> Bool { expiresAt - now < Self.refreshMargin }

    package var scopes: [String] { scope.split(separator: " ").map(String.init) }

    /// The tokens after a refresh: a response without `refresh_token` keeps the old one.
    package func refreshed(with response: TokenResponse, now: Double) -> StoredTokens {
        var next = self
        next.accessToken = response.accessToken
        next.tokenType = response.tokenType ?? tokenType
        if let scope = response.scope, !scope.isEmpty { next.scope = scope }
        next.expiresAt = now + response.lifetimeSeconds
        if let refresh = response.refreshToken, !refresh.isEmpty { next.refreshToken = refresh }
        return next
    }
}

/// The token endpoint's answer (`POST /api/token`), decoded leniently.
package struct TokenResponse: Decodable, Sendable, Equatable {
    package var accessToken: String
    package var tokenType: String?
    package var scope: String?
    package var expiresIn: Int?
    package var refreshToken: String?

    /// The longest access-token lifetime believed: a server's `expires_in` beyond it (or below 0)
    /// is limited to it. Spotify's is an hour; a 401 still triggers a refresh either way.
    static let maximumLifetimeSeconds: Double = 24 * 3600

    /// `expires_in` (default an hour) limited to 0...`maximumLifetimeSeconds`.
    package var lifetimeSeconds: Double {
        clamped(Double(expiresIn ?? 3600), to: 0...Self.maximumLifetimeSeconds)
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case scope
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
    }
}
