import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Authenticated requests to the Web API with the retry policy every tool shares: a 401 gets one
/// refresh and one retry; a 429 waits `Retry-After` up to a cap; 5xx and network errors on GETs
/// back off and retry a few times. Errors name what failed and how to fix it, never the token.
public struct SpotifyWebAPI: Sendable {
    public var baseURL: String
    let transport: HTTPTransport
    public let tokens: TokenProvider
    /// The longest a 429 may make us wait before giving up (exit 75).
    var maxRetryWait: Double
    var sleep: @Sendable (Double) async -> Void
    /// Unsuccessful answers the caller wants back instead of an error (e.g. the player's 403/404
    /// with a `reason`, or a watch that paces its own retries); default none.
    public var handsBack: @Sendable (HTTPResult) -> Bool = { _ in false }

    public static let defaultBase = "https://api.spotify.com/v1"

    public init(environment: ToolEnvironment, tokens: TokenProvider, transport: HTTPTransport = HTTPTransport()) {
        self.baseURL = (environment["SPOTIFY_API_BASE"] ?? Self.defaultBase).trimmingSuffix("/")
        self.transport = transport
        self.tokens = tokens
        self.maxRetryWait = Self.retryWaitCap(environment["SPOTIFY_TOOLKIT_MAX_RETRY_WAIT"])
        self.sleep = { seconds in try? await Task.sleep(nanoseconds: UInt64(clamped(seconds, to: 0...3600) * 1e9)) }
    }

    /// GET `path` (relative to the API base, e.g. "/me") and return the successful result.
    public func get(_ path: String, query: [(String, String)] = []) async throws -> HTTPResult {
        try await send(method: "GET", path: path, query: query, body: nil)
    }

    public func send(method: String, path: String, query: [(String, String)] = [], body: Data?) async throws -> HTTPResult {
        var urlText = baseURL + path
        if !query.isEmpty { urlText += "?" + URLForm.encode(query) }
        guard let url = URL(string: urlText) else { throw ToolError.software("bad request URL for \(path)") }
        var token = try await tokens.accessToken()
        var refreshed = false
        var attempt = 0
        while true {
            attempt += 1
            var request = URLRequest(url: url)
            request.httpMethod = method
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            if let body {
                request.httpBody = body
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
            let result: HTTPResult
            do {
                result = try await transport.send(request)
            } catch let error as ToolError where error.exitCode == .unavailable && method == "GET" && attempt < 3 {
                await sleep(Double(attempt) * 0.5)
                continue
            }
            if result.isSuccess || handsBack(result) { return result }
            let error = SpotifyErrorBody(result)
            switch result.status {
            case 401 where !refreshed:
                token = try await tokens.accessToken(afterRejectionOf: token)
                refreshed = true
            case 401:
                throw ToolError.noPermission("Spotify rejected the access token even after a refresh (\(error.message)); run 'spotify-auth login'")
            case 429:
                let wait = Self.retryAfterSeconds(result.header("Retry-After")) ?? pow(2, Double(attempt))
                if error.reason == "QUOTA_EXCEEDED" {
                    throw ToolError.unavailable("Spotify's quota for this app is used up (QUOTA_EXCEEDED); it resets later, not in seconds")
                }
                guard wait <= maxRetryWait, attempt < 4 else {
                    throw ToolError.tempFail("Spotify is rate limiting and asked to wait \(Int(saturating: wait)) s (more than the \(Int(saturating: maxRetryWait)) s cap); try again later")
                }
                await sleep(wait)
            case 500...599 where method == "GET" && attempt < 3:
                await sleep(Double(attempt) * 0.5)
            case 500...599:
                throw ToolError.unavailable("Spotify failed (HTTP \(result.status): \(error.message)); try again later")
            case 403:
                throw ToolError.noPermission(error.forbiddenExplanation)
            case 404:
                throw ToolError(.notFound, "not found: \(path) (\(error.message))")
            default:
                throw ToolError.unavailable("Spotify answered HTTP \(result.status) to \(method) \(path): \(error.message)")
            }
        }
    }
}

extension SpotifyWebAPI {
    /// `Retry-After` in seconds when it is the delay-seconds form (digits only, RFC 9110); nil for
    /// anything else (`inf`, `-5`, a date), which then gets the ordinary backoff. May be huge.
    static func retryAfterSeconds(_ header: String?) -> Double? {
        guard let text = header?.trimmingCharacters(in: .whitespaces), !text.isEmpty,
              text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return Double(text)
    }

    /// `SPOTIFY_TOOLKIT_MAX_RETRY_WAIT` (seconds, 0...3600); 30 when unset or not such a number.
    static func retryWaitCap(_ text: String?) -> Double {
        guard let text, let value = Double(text), value.isFinite, value >= 0 else { return 30 }
        return min(value, 3600)
    }
}

/// Spotify's error body: `{"error":{"status":403,"message":"...","reason":"..."}}`, or plain text
/// (some Development Mode 403s).
public struct SpotifyErrorBody: Sendable, Equatable {
    public var status: Int
    public var message: String
    public var reason: String?

    public init(_ result: HTTPResult) {
        status = result.status
        let object = (try? JSONValue.parse(result.body))?["error"]
        if let object, let message = object["message"]?.stringValue {
            self.message = message
            reason = object["reason"]?.stringValue
        } else {
            let text = String(decoding: result.body.prefix(300), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            message = text.isEmpty ? "HTTP \(result.status)" : text.replacingOccurrences(of: "\n", with: " ")
            reason = nil
        }
    }

    /// A 403 with the fix: most are Development Mode rules that logging in again will not change.
    public var forbiddenExplanation: String {
        if message.contains("may not be registered") {
            return "Spotify refused: \(message) Add your Spotify account under User Management in the app's dashboard (Development Mode allows 5 users)."
        }
        if message.localizedCaseInsensitiveContains("premium subscription required for the owner") {
            return "Spotify refused: \(message) The app owner's Premium subscription is required in Development Mode."
        }
        if reason == "PREMIUM_REQUIRED" {
            return "Spotify refused: this needs Spotify Premium (\(message))"
        }
        return "Spotify refused (403): \(message)"
    }
}
