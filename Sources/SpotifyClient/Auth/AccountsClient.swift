import HTTPClient
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The accounts service: the authorize URL, the code exchange and the refresh grant.
package struct AccountsClient: Sendable {
    package var baseURL: URL
    var transport: HTTPTransport
    /// Where each token request is written down (`RequestLedger`); nil counts nothing.
    package var ledger: RequestLedger?

    package static let defaultBase = "https://accounts.spotify.com"

    package init(
        environment: ToolEnvironment, developer: DeveloperSettings = DeveloperSettings(),
        transport: HTTPTransport? = nil
    ) throws {
        let base = environment["SPOTIFY_ACCOUNTS_BASE"] ?? Self.defaultBase
        // The same rule as SPOTIFY_API_BASE (`SpotifyWebAPI.apiBase`): http or https with a host.
        guard let url = URL(string: base), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil, url.user == nil
        else {
            throw ToolError.config(
                """
                SPOTIFY_ACCOUNTS_BASE must be an http or https URL such as \(Self.defaultBase), not \
                '\(SpotifyErrorBody.printable(base))'
                """
            )
        }
        try ServiceBase.refuseCleartext(url, variable: "SPOTIFY_ACCOUNTS_BASE")
        self.baseURL = url
        self.transport =
            transport
            ?? HTTPTransport(
                proxy: .init(tunnelsPlainHTTP: developer.tunnelsPlainHTTP, environment: environment),
                trust: .init(environment: environment))
    }

    func authorizeURL(clientID: String, redirectURI: String, challenge: String, state: String, scopes: [String])
        -> URL
    {
        let query = URLForm.encode([
            ("client_id", clientID), ("response_type", "code"), ("redirect_uri", redirectURI),
            ("code_challenge_method", "S256"), ("code_challenge", challenge), ("state", state),
            ("scope", scopes.joined(separator: " ")),
        ])
        return URL(string: baseURL.absoluteString.trimmingSuffix("/") + "/authorize?" + query)!
    }

    package func exchange(code: String, redirectURI: String, clientID: String, verifier: String) async throws
        -> TokenResponse
    {
        let result = try await post([
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
            ("client_id", clientID), ("code_verifier", verifier),
        ])
        return try decode(
            result,
            failure: { error in
                ToolError.noPermission("login failed: Spotify refused the authorization code: \(error)")
            })
    }

    enum RefreshFailure: Error, Sendable {
        /// The refresh token is dead (expired after six months, revoked, or already used): log in again.
        case invalidGrant(String)
    }

    /// Throws `RefreshFailure.invalidGrant` when the session is over; ToolError for everything else
    /// (network, 5xx: the tokens stay).
    package func refresh(refreshToken: String, clientID: String) async throws -> TokenResponse {
        let result = try await post([
            ("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", clientID),
        ])
        if result.status == 400 || result.status == 401, let error = OAuthError.decode(result.body),
            error.code == "invalid_grant"
        {
            throw RefreshFailure.invalidGrant(error.summary)
        }
        return try decode(
            result,
            failure: { error in
                ToolError.noPermission("Spotify refused to refresh the access token: \(error)")
            })
    }

    /// The transport's failures end here as ToolErrors: a token request is never retried.
    func post(_ fields: [(String, String)]) async throws -> HTTPResult {
        do {
            let result = try await transport.postForm(tokenURL, fields)
            ledger?.record(.accounts, method: "POST", status: result.status)
            return result
        } catch let failure as HTTPFailure {
            ledger?.record(.accounts, method: "POST", status: 0)
            throw failure.toolError
        }
    }

    var tokenURL: URL { URL(string: baseURL.absoluteString.trimmingSuffix("/") + "/api/token")! }

    func decode(_ result: HTTPResult, failure: (String) -> ToolError) throws -> TokenResponse {
        if result.status >= 500 {
            throw ToolError.unavailable("the Spotify accounts service failed (HTTP \(result.status)); try again later")
        }
        if result.status == 429 {
            let wait = SpotifyWebAPI.retryAfterSeconds(result.header("Retry-After")).map { String(Int(saturating: $0)) }
            throw ToolError.tempFail(
                "the Spotify accounts service is rate limiting; try again in \(wait ?? "a few") seconds")
        }
        guard result.isSuccess else {
            throw failure(OAuthError.decode(result.body)?.summary ?? "HTTP \(result.status)")
        }
        do {
            return try JSONDecoder().decode(TokenResponse.self, from: result.body)
        } catch {
            throw ToolError.unavailable("the Spotify accounts service sent a token response that could not be read")
        }
    }
}

/// `{"error":"invalid_grant","error_description":"Refresh token revoked"}`.
struct OAuthError: Decodable, Sendable, Equatable {
    package var code: String
    package var description: String?

    enum CodingKeys: String, CodingKey {
        case code = "error"
        case description = "error_description"
    }

    package static func decode(_ body: Data) -> OAuthError? {
        try? JSONDecoder().decode(OAuthError.self, from: body)
    }

    /// "Refresh token revoked (invalid_grant)".
    package var summary: String {
        guard let description, !description.isEmpty else { return code }
        return "\(description) (\(code))"
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
