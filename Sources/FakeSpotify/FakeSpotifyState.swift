import Foundation
import LoopbackHTTP
import ToolkitCore

/// An OAuth error answer of the accounts service: 400 `{"error":"...","error_description":"..."}`.
struct FakeOAuthError: Error, Equatable, Sendable {
    var error: String
    var description: String

    static let invalidClient = FakeOAuthError(error: "invalid_client", description: "Invalid client")
    static func invalidGrant(_ description: String) -> FakeOAuthError {
        FakeOAuthError(error: "invalid_grant", description: description)
    }
    static func missing(_ parameter: String) -> FakeOAuthError {
        FakeOAuthError(error: "invalid_request", description: "Missing required parameter: \(parameter)")
    }
}

/// What the token endpoint (and `POST /_fake/tokens`) hands out.
struct IssuedTokens: Sendable, Equatable {
    var accessToken: String
    var expiresIn: Int
    var refreshToken: String?
    var scope: String
    var clientID: String

    /// access_token, token_type, expires_in, refresh_token (when present), scope: the token endpoint's order.
    func json(includingClientID: Bool = false) -> JSONValue {
        var object: JSONObject = [
            "access_token": .string(accessToken),
            "token_type": "Bearer",
            "expires_in": .int(expiresIn),
        ]
        if let refreshToken { object["refresh_token"] = .string(refreshToken) }
        object["scope"] = .string(scope)
        if includingClientID { object["client_id"] = .string(clientID) }
        return .object(object)
    }
}

/// What a valid access token stands for; Web API handlers get it (later: scope checks).
struct AccessTokenInfo: Sendable, Equatable {
    var clientID: String
    var scope: String
    var expiresAt: Date
    var scopes: [String] { scope.split(separator: " ").map(String.init) }
}

enum BearerCheck: Sendable, Equatable {
    case valid(AccessTokenInfo)
    case missing
    case invalid
    case expired
}

/// An injected answer from `POST /_fake/fail`.
struct FailureRule: Sendable {
    /// nil matches any method.
    var method: String?
    /// The exact request path (without the query).
    var path: String
    var remaining: Int
    var response: HTTPResponse
}

struct Counters: Sendable {
    var requests: [String: Int] = [:]
    var authorizationCodeGrants = 0
    var refreshTokenGrants = 0
    var refreshes = 0
    var rejectedRefreshes = 0
    var unauthorized = 0
    /// The most Web API requests fake-spotify was answering at once.
    var maxInFlight = 0
    var faultsFired = 0
    var faultsFiredByKind: [String: Int] = [:]
    /// Requests a fault answered without carrying them out: the 429s and carry=no.
    var notCarriedOut = 0
    /// carry=late requests carried out so far (after their late_ms).
    var carriedOutLate = 0
    /// Reads a stale_read served from the version before the last write.
    var staleReads = 0
    /// Web API requests the rolling rate limit (`rate_window`) refused with a 429.
    var rateLimited = 0
    /// Web API requests that arrived while a Retry-After this fake had answered (any 429) was
    /// still running: sent after the client was told to wait.
    var sentDuringRetryAfter = 0

    /// Keys in a fixed order; `requests` sorted by key.
    var json: JSONValue {
        let requests = JSONObject(self.requests.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.int($0.value)) })
        return [
            "requests": .object(requests),
            "grants": ["authorization_code": .int(authorizationCodeGrants), "refresh_token": .int(refreshTokenGrants)],
            "refreshes": .int(refreshes),
            "rejected_refreshes": .int(rejectedRefreshes),
            "unauthorized": .int(unauthorized),
            "max_in_flight": .int(maxInFlight),
            "faults_fired": .int(faultsFired),
            "faults_fired_by_kind": .object(
                JSONObject(faultsFiredByKind.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.int($0.value)) })),
            "not_carried_out": .int(notCarriedOut),
            "carried_out_late": .int(carriedOutLate),
            "stale_reads": .int(staleReads),
            "rate_limited": .int(rateLimited),
            "sent_during_retry_after": .int(sentDuringRetryAfter),
        ]
    }
}

/// Everything fake-spotify remembers. A plain value: `FakeSpotifyService` keeps it in a `Locked`
/// and runs each operation below as one locked step, so concurrent clients see atomic grants.
struct FakeSpotifyState: Sendable {
    struct PendingCode: Sendable {
        var clientID: String
        var redirectURI: String
        var challenge: String
        var scope: String
        var expiresAt: Date
    }

    struct RefreshTokenInfo: Sendable {
        var clientID: String
        var scope: String
        /// When the user logged in; refreshing does not move it.
        var authorizedAt: Date
    }

    static let codeLifetime: TimeInterval = 600

    var settings: FakeSpotifySettings
    /// Added to the wall clock (`POST /_fake/advance-clock`), so tests can expire things without sleeping.
    var clockOffset: TimeInterval = 0
    var codes: [String: PendingCode] = [:]
    var accessTokens: [String: AccessTokenInfo] = [:]
    var refreshTokens: [String: RefreshTokenInfo] = [:]
    var counters = Counters()
    var failures: [FailureRule] = []
    /// Fault rules by rate or schedule (Faults.swift).
    var faults: [FaultRule] = []
    /// The rolling rate limit's log while `settings.library.rateWindow` is set.
    var rateLimit: RollingRateLimit?
    /// Until when (monotonic seconds) the latest 429 answered told its client to wait.
    var toldToWaitUntil: Double?
    /// Web API requests being answered now (kept outside `counters`, which a reset clears).
    var inFlight = 0
    /// carry=late requests waiting to be carried out (outside `counters` too: a reset must not
    /// make the count go negative when they land).
    var latePending = 0
    /// The player (PlaybackClock.swift, PlayerHandlers.swift).
    var playback = PlaybackClock()
    /// Edits made with `POST /_fake/edit-playlist`, by playlist id (PlaylistEdits.swift).
    var playlistEdits: [String: PlaylistEdit] = [:]
    /// Playlists as the Web API's writes left them, by id (PlaylistWrites.swift), and the ids of
    /// those made with `POST /me/playlists`, oldest first.
    var writtenPlaylists: [String: WrittenPlaylist] = [:]
    /// Each written playlist as it was before its most recent write, which a stale_read serves.
    /// One version back is enough for a replica lagging one write; a created playlist has none
    /// until its first write.
    var playlistsBeforeLastWrite: [String: WrittenPlaylist] = [:]
    var createdPlaylists: [String] = []
    var createdCount = 0
    /// What `PUT`/`DELETE /me/library` saved and removed (LibraryWrites.swift).
    var savedLibrary = SavedLibrary()
    /// Ids of playlists removed from the library with `DELETE /me/library?uris=spotify:playlist:ID`
    /// (`/me/playlists` leaves them out; a `PUT` follows them again).
    var unfollowedPlaylists: Set<String> = []

    init(settings: FakeSpotifySettings) {
        self.settings = settings
    }

    var now: Date { Date().addingTimeInterval(clockOffset) }

    // MARK: Accounts service

    mutating func issueCode(clientID: String, redirectURI: String, challenge: String, scope: String) -> String {
        let now = self.now
        codes = codes.filter { $0.value.expiresAt > now }  // keep the table small
        let code = Self.randomToken(prefix: "AQ", bytes: 96)
        codes[code] = PendingCode(
            clientID: clientID, redirectURI: redirectURI, challenge: challenge, scope: scope,
            expiresAt: now.addingTimeInterval(Self.codeLifetime))
        return code
    }

    /// The authorization_code grant. A code is used up by the first exchange that names it,
    /// whether or not that exchange succeeds (RFC 6749 §4.1.2: single use).
    mutating func exchange(code: String, redirectURI: String, clientID: String, verifier: String) -> Result<
        IssuedTokens, FakeOAuthError
    > {
        let now = self.now
        guard let pending = codes.removeValue(forKey: code), pending.expiresAt > now else {
            return .failure(.invalidGrant("Invalid authorization code"))
        }
        guard pending.clientID == clientID else { return .failure(.invalidClient) }
        guard pending.redirectURI == redirectURI else { return .failure(.invalidGrant("Invalid redirect URI")) }
        guard PKCE.challenge(for: verifier) == pending.challenge else {
            return .failure(.invalidGrant("code_verifier was incorrect"))
        }
        return .success(login(clientID: clientID, scope: pending.scope, expiresIn: settings.accessTokenLifetime))
    }

    /// A new token pair as after a login just now.
    mutating func login(clientID: String, scope: String, expiresIn: Int) -> IssuedTokens {
        let now = self.now
        let refresh = Self.randomToken(prefix: "AQ", bytes: 64)
        refreshTokens[refresh] = RefreshTokenInfo(clientID: clientID, scope: scope, authorizedAt: now)
        return IssuedTokens(
            accessToken: issueAccessToken(clientID: clientID, scope: scope, expiresIn: expiresIn, now: now),
            expiresIn: expiresIn, refreshToken: refresh, scope: scope, clientID: clientID)
    }

    /// The refresh_token grant, with the lifetime and rotation rules of the current settings.
    mutating func refresh(token: String, clientID: String) -> Result<IssuedTokens, FakeOAuthError> {
        let now = self.now
        guard let info = refreshTokens[token] else { return .failure(.invalidGrant("Invalid refresh token")) }
        guard info.clientID == clientID else { return .failure(.invalidClient) }
        if let lifetime = settings.refreshTokenLifetime,
            now >= info.authorizedAt.addingTimeInterval(TimeInterval(lifetime))
        {
            return .failure(.invalidGrant("Refresh token revoked"))
        }
        let expiresIn = settings.accessTokenLifetime
        let access = issueAccessToken(clientID: clientID, scope: info.scope, expiresIn: expiresIn, now: now)
        var returned: String?
        if settings.omitRefreshToken {
            returned = nil
        } else if settings.rotation {
            refreshTokens[token] = nil
            let next = Self.randomToken(prefix: "AQ", bytes: 64)
            refreshTokens[next] = info
            returned = next
        } else {
            returned = token
        }
        return .success(
            IssuedTokens(
                accessToken: access, expiresIn: expiresIn, refreshToken: returned, scope: info.scope, clientID: clientID
            ))
    }

    private mutating func issueAccessToken(clientID: String, scope: String, expiresIn: Int, now: Date) -> String {
        let token = Self.randomToken(prefix: "BQ", bytes: 48)
        accessTokens[token] = AccessTokenInfo(
            clientID: clientID, scope: scope, expiresAt: now.addingTimeInterval(TimeInterval(expiresIn)))
        return token
    }

    // MARK: Web API

    /// Checks an `Authorization` header value.
    func checkBearer(_ header: String?) -> BearerCheck {
        guard let header else { return .missing }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer",
            let info = accessTokens[parts[1].trimmingCharacters(in: .whitespaces)]
        else { return .invalid }
        return now < info.expiresAt ? .valid(info) : .expired
    }

    /// Makes every access token issued so far expired; returns how many were still valid.
    mutating func expireAccessTokens() -> Int {
        let now = self.now
        var count = 0
        for (token, info) in accessTokens where info.expiresAt > now {
            accessTokens[token]?.expiresAt = now
            count += 1
        }
        return count
    }

    // MARK: Injected failures

    /// The injected response for this request, if a rule matches; uses one of the rule's count.
    mutating func takeFailure(method: String, path: String) -> HTTPResponse? {
        guard let index = failures.firstIndex(where: { $0.path == path && ($0.method == nil || $0.method == method) })
        else { return nil }
        let response = failures[index].response
        failures[index].remaining -= 1
        if failures[index].remaining <= 0 { failures.remove(at: index) }
        return response
    }

    // MARK: Counting

    /// What `GET /_fake/counters` answers: the counters, and the late requests still pending.
    var countersJSON: JSONValue {
        guard case .object(var object) = counters.json else { return counters.json }
        object["late_pending"] = .int(latePending)
        return .object(object)
    }

    /// Counts the answer of a request (never called for `/_fake/` controls; the request itself is
    /// counted as it arrives, in `beginRequest`). `grantType` is set for requests to the token endpoint.
    mutating func countAnswer(status: Int, grantType: String?) {
        if status == 401 { counters.unauthorized += 1 }
        switch grantType {
        case "authorization_code":
            counters.authorizationCodeGrants += 1
        case "refresh_token":
            counters.refreshTokenGrants += 1
            if (200..<300).contains(status) { counters.refreshes += 1 } else { counters.rejectedRefreshes += 1 }
        default:
            break
        }
    }

    // MARK: Randomness

    /// `prefix` + `bytes` secure random bytes in base64url (48 bytes → 64 characters, 64 → 86).
    static func randomToken(prefix: String, bytes count: Int) -> String {
        var rng = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 8)
        while bytes.count < count {
            let word: UInt64 = rng.next()
            for shift in stride(from: 0, to: 64, by: 8) {
                bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        return prefix + Base64URL.encode(bytes.prefix(count))
    }
}
