import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `auth_status` record: who is logged in, with which scopes, until when, and where the
/// tokens live. Never the tokens themselves.
package struct AuthStatus: JSONRecord {
    var loggedIn: Bool
    package var source: String?
    package var tokens: StoredTokens?
    var storeLocation: String
    package var now: Double

    /// Refresh tokens expire six months after the original authorization (Spotify, 2026).
    static let refreshTokenLifetime: Double = 182 * 24 * 3600

    package init(tokens: StoredTokens, store: TokenStore, now: Double) {
        self.loggedIn = true
        self.tokens = tokens
        self.storeLocation = store.location
        self.now = now
    }

    package init(loggedOutWith store: TokenStore) {
        self.loggedIn = false
        self.storeLocation = store.location
        self.now = 0
    }

    package init(environmentTokenWith store: TokenStore) {
        self.loggedIn = true
        self.source = TokenProvider.accessTokenVariable
        self.storeLocation = store.location
        self.now = 0
    }

    package var json: JSONValue {
        var record: JSONObject = ["type": "auth_status", "logged_in": .bool(loggedIn)]
        if let source { record["source"] = .string(source) }
        if let tokens {
            var user: JSONObject = [:]
            if let id = tokens.userID { user["id"] = .string(id) }
            if let name = tokens.displayName { user["display_name"] = .string(name) }
            if !user.keys.isEmpty { record["user"] = .object(user) }
            record["scopes"] = .array(tokens.scopes.map { .string($0) })
            record["expires_at"] = .string(Self.timestamp(tokens.expiresAt))
            record["expires_in"] = .int(max(0, Int(saturating: tokens.expiresAt - now)))
            record["refresh_token_expires_at"] = .string(
                Self.timestamp(tokens.authorizedAt + Self.refreshTokenLifetime))
            record["client_id"] = .string(tokens.clientID)
        }
        record["token_store"] = .string(storeLocation)
        return .object(record)
    }

    package var humanText: String {
        if source != nil { return "Using the access token in SPOTIFY_ACCESS_TOKEN (not stored, never refreshed).\n" }
        guard loggedIn, let tokens else {
            return "Not logged in (no tokens in \(storeLocation)). Run: spotify-auth login\n"
        }
        // The display name is anyone's choice on Spotify: cleaned before it reaches a terminal.
        let who = TerminalText.clean(
            tokens.displayName.map { "\($0) (\(tokens.userID ?? "?"))" } ?? tokens.userID ?? "an unknown user")
        let remaining = tokens.expiresAt - now
        let expiry =
            remaining > 0
            ? "access token valid for \(formatClock(milliseconds: Int(saturating: remaining * 1000)))"
            : "access token expired; it is refreshed on next use"
        return """
            Logged in as \(who)
              \(expiry)
              session ends by \(Self.timestamp(tokens.authorizedAt + Self.refreshTokenLifetime)) (then log in again)
              scopes: \(tokens.scopes.joined(separator: " "))
              tokens in \(storeLocation)

            """
    }

    /// Years 1 to 9999: what an RFC 3339 timestamp can say (a stored time may be anything).
    static let representableSeconds: ClosedRange<Double> = -62_135_596_800...253_402_300_799

    static func timestamp(_ seconds: Double) -> String {
        isoSecondsTimestamp(clamped(seconds, to: representableSeconds))
    }
}
