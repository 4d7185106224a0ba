import Foundation
import LoopbackHTTP
import ToolkitCore

/// fake-spotify's logic: routes a request through the table in Routes.swift, with the shared
/// steps around it (injected failures, the bearer check, counting). Thread-safe: the HTTP server
/// calls `handle` from a thread per connection; all state is in one `Locked`.
final class FakeSpotifyService: Sendable {
    let state: Locked<FakeSpotifyState>

    init(settings: FakeSpotifySettings = FakeSpotifySettings()) {
        state = Locked(FakeSpotifyState(settings: settings))
    }

    /// The current settings.
    var settings: FakeSpotifySettings { state.withLock { $0.settings } }

    /// Moves fake-spotify's clock forward (or back), so tokens and codes expire without waiting.
    func advanceClock(by seconds: TimeInterval) {
        state.withLock { $0.clockOffset += seconds }
    }

    /// What `GET /_fake/counters` answers.
    var counters: JSONValue { state.withLock { $0.countersJSON } }

    /// Answers one request: an injected failure if one matches (even on a path no route serves yet),
    /// else the route's answer, behind the bearer check for `.bearer` routes, with the plan's
    /// fault carried out now, never or late (Faults.swift). Everything but the `/_fake/` controls
    /// is counted.
    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let arrival = DispatchTime.now()
        var pathMatched = false
        var found: (route: Route, parameters: [String: String])?
        for route in Self.routes {
            guard let parameters = route.match(path: request.path) else { continue }
            pathMatched = true
            if route.method == request.method {
                found = (route, parameters)
                break
            }
        }
        if let (route, parameters) = found, route.access == .control {
            return route.handler(self, RouteRequest(http: request, parameters: parameters, token: nil))
        }
        if request.path.hasPrefix("/_fake/") {
            return pathMatched ? WebAPI.methodNotAllowed : WebAPI.notFound
        }

        // Added latency, faults by rate or schedule, the in-flight count (Faults.swift).
        let key = found?.route.key ?? "\(request.method) \(request.path)"
        let playlistRead = found.flatMap { Self.laggingReads.contains($0.route.key) ? $0.parameters["id"] : nil }
        let offset = request.query.first { $0.name == "offset" }.flatMap { Int($0.value) }
        let plan = beginWebAPIRequest(
            routeKey: key, path: request.path, method: request.method, offset: offset, playlistRead: playlistRead)
        defer { endWebAPIRequest() }
        var response: HTTPResponse
        if let retryAfter = plan.rateLimitedFor {
            response = Fixtures.response("error-429.json", status: 429, headers: [("Retry-After", String(retryAfter))])
        } else if let injected = state.withLock({ $0.takeFailure(method: request.method, path: request.path) }) {
            response = injected
        } else if let fault = plan.fault, fault.carry == .no {
            state.withLock { $0.counters.notCarriedOut += 1 }
            response = fault.answerWithoutCarryingOut()
        } else {
            switch admit(request, found, pathMatched: pathMatched, servesPreviousVersion: plan.servesPreviousVersion) {
            case .answered(let answer):
                response = plan.fault?.apply(to: answer) ?? answer
            case .admitted(let route, let routeRequest):
                if let fault = plan.fault, fault.carry == .late {
                    response = answerLate(fault, arrival: arrival) { _ = route.handler(self, routeRequest) }
                } else {
                    let answer = Self.marketed(route.handler(self, routeRequest), request)
                    response = plan.fault?.apply(to: answer) ?? answer
                }
            }
        }
        let grantType = key == Self.tokenRouteKey ? URLForm.value("grant_type", in: request.formFields()) : nil
        state.withLock {
            $0.countAnswer(status: response.status, grantType: grantType)
            $0.noteAnswer(response, now: FakeSpotifyState.monotonicSeconds())
        }
        return response
    }

    /// A request ready for its route's handler, or the answer it gets without one (401, 404, 405).
    enum Admission {
        case admitted(Route, RouteRequest)
        case answered(HTTPResponse)
    }

    /// Checks the bearer token as the request arrives (a late carry-out must not depend on a token
    /// that expired meanwhile, as Spotify checks it on arrival too).
    func admit(
        _ request: HTTPRequest, _ found: (route: Route, parameters: [String: String])?, pathMatched: Bool,
        servesPreviousVersion: Bool
    ) -> Admission {
        guard let (route, parameters) = found else {
            return .answered(pathMatched ? WebAPI.methodNotAllowed : WebAPI.notFound)
        }
        var token: AccessTokenInfo?
        if route.access == .bearer {
            let check = state.withLock { $0.checkBearer(request.header("Authorization")) }
            guard case .valid(let valid) = check else { return .answered(WebAPI.unauthorized(check)) }
            token = valid
        }
        var routeRequest = RouteRequest(http: request, parameters: parameters, token: token)
        routeRequest.servesPreviousVersion = servesPreviousVersion
        return .admitted(route, routeRequest)
    }

    /// The reads a stale_read can lag: a playlist and its items (and the legacy `/tracks`).
    static let laggingReads: Set = [
        "GET /v1/playlists/{id}", "GET /v1/playlists/{id}/items", "GET /v1/playlists/{id}/tracks",
    ]

    static let tokenRouteKey = "POST /api/token"
}
