import Foundation
import LoopbackHTTP
import ToolkitCore

/// The `/_fake/` test controls. Fields come from the form body or the query string.
extension FakeSpotifyService {
    /// The scopes `POST /_fake/tokens` grants when none are asked for: the toolkit's read-only default.
    static let defaultScope =
        """
        playlist-read-private playlist-read-collaborative user-read-currently-playing user-read-playback-state \
        user-library-read
        """
    /// The client id `POST /_fake/tokens` uses when none is given and none is registered.
    static let defaultClientID = "fake-spotify-client"

    func resetCounters() -> HTTPResponse {
        Control.json(
            state.withLock {
                $0.counters = Counters()
                return $0.countersJSON
            })
    }

    /// `POST /_fake/tokens` [expires_in] [scope] [client_id]: a token pair as if the user had just logged in.
    func mintTokens(_ request: RouteRequest) -> HTTPResponse {
        do {
            var expiresIn: Int?
            if let text = request.field("expires_in") {
                expiresIn = try FakeSpotifySettings.int("expires_in", text)
            }
            let scope =
                request.field("scope").map { $0.split(separator: " ").joined(separator: " ") } ?? Self.defaultScope
            let tokens = state.withLock { state in
                let clientID =
                    request.field("client_id").flatMap { $0.isEmpty ? nil : $0 }
                    ?? state.settings.clientIDs.first ?? Self.defaultClientID
                return state.login(
                    clientID: clientID, scope: scope, expiresIn: expiresIn ?? state.settings.accessTokenLifetime)
            }
            return Control.json(tokens.json(includingClientID: true))
        } catch {
            return Control.error(error)
        }
    }

    /// `POST /_fake/settings` with any subset of the settings; answers them all.
    func changeSettings(_ request: RouteRequest) -> HTTPResponse {
        do {
            let fields = request.fields
            let settings = try state.withLock { state in
                try state.settings.apply(fields)
                return state.settings
            }
            return Control.json(settings.json)
        } catch {
            return Control.error(error)
        }
    }

    /// `POST /_fake/expire-access-tokens`: `{"expired":N}`, the number of tokens that were still valid.
    func expireAccessTokens() -> HTTPResponse {
        let count = state.withLock { $0.expireAccessTokens() }
        return Control.json(["expired": .int(count)])
    }

    /// `POST /_fake/advance-clock` seconds=N: moves the clock; answers the total offset.
    func advanceClock(_ request: RouteRequest) -> HTTPResponse {
        guard let text = request.field("seconds"), let seconds = Double(text), seconds.isFinite else {
            return Control.error(ControlError("seconds must be a number"))
        }
        let offset = state.withLock {
            $0.clockOffset += seconds
            return $0.clockOffset
        }
        return Control.json(["clock_offset": .double(offset)])
    }

    /// `POST /_fake/fail` path=P [method=M] status=N [count=1] [retry_after=S] [body=B] [content_type=T]:
    /// the next `count` requests for exactly P (any method when M is not given) get that answer.
    /// Rules for the same request queue up in the order they were added.
    func addFailure(_ request: RouteRequest) -> HTTPResponse {
        do {
            guard let path = request.field("path"), path.hasPrefix("/") else {
                throw ControlError("path is required: the exact request path, e.g. /v1/me")
            }
            guard let statusText = request.field("status") else { throw ControlError("status is required") }
            let status = try FakeSpotifySettings.int("status", statusText)
            guard (100...599).contains(status) else { throw ControlError("status must be 100...599") }
            let count = try request.field("count").map { try FakeSpotifySettings.int("count", $0) } ?? 1
            guard count >= 1 else { throw ControlError("count must be at least 1") }
            let method = request.field("method").flatMap { $0.isEmpty || $0 == "*" ? nil : $0.uppercased() }

            var headers: [(String, String)] = []
            let body: String
            let contentType: String
            if let given = request.field("body") {
                body = given
                contentType =
                    request.field("content_type")
                    ?? (given.hasPrefix("{") ? WebAPI.contentType : "text/plain; charset=utf-8")
            } else if path == "/api/token" {
                let error: JSONValue = [
                    "error": "server_error", "error_description": .string(HTTPResponse.reasonPhrase(for: status)),
                ]
                body = error.serialized()
                contentType = request.field("content_type") ?? Accounts.contentType
            } else {
                let message = status == 429 ? "API rate limit exceeded" : HTTPResponse.reasonPhrase(for: status)
                let error: JSONValue = ["error": ["status": .int(status), "message": .string(message)]]
                body = error.serialized()
                contentType = request.field("content_type") ?? WebAPI.contentType
            }
            headers.append(("Content-Type", contentType))
            if let retryAfter = request.field("retry_after") { headers.append(("Retry-After", retryAfter)) }
            let rule = FailureRule(
                method: method, path: path, remaining: count,
                response: HTTPResponse(status: status, headers: headers, body: Array(body.utf8)))
            let pending = state.withLock {
                $0.failures.append(rule)
                return $0.failures.filter { $0.path == path }.reduce(0) { $0 + $1.remaining }
            }
            return Control.json([
                "method": method.map(JSONValue.string) ?? "*",
                "path": .string(path),
                "status": .int(status),
                "count": .int(count),
                "pending_for_path": .int(pending),
            ])
        } catch {
            return Control.error(error)
        }
    }
}
