import Foundation
import LoopbackHTTP
import ToolkitCLI
import ToolkitCore

/// fake-spotify's logic: routes a request through the table in Routes.swift, with the shared
/// steps around it (injected failures, the bearer check, counting). Thread-safe: the HTTP server
/// calls `handle` from a thread per connection; all state is in one `Locked`.
package final class FakeSpotifyService: Sendable {
    let state: Locked<FakeSpotifyState>

    package init(settings: FakeSpotifySettings = FakeSpotifySettings()) {
        state = Locked(FakeSpotifyState(settings: settings))
    }

    /// The current settings.
    package var settings: FakeSpotifySettings { state.withLock { $0.settings } }

    /// Changes settings at run time (as `POST /_fake/settings` does).
    package func updateSettings(_ change: (inout FakeSpotifySettings) -> Void) {
        state.withLock { change(&$0.settings) }
    }

    /// Moves fake-spotify's clock forward (or back), so tokens and codes expire without waiting.
    package func advanceClock(by seconds: TimeInterval) {
        state.withLock { $0.clockOffset += seconds }
    }

    /// What `GET /_fake/counters` answers.
    package var counters: JSONValue { state.withLock { $0.counters.json } }

    /// Answers one request: an injected failure if one matches (even on a path no route serves yet),
    /// else the route's answer, behind the bearer check for `.bearer` routes. Everything but the
    /// `/_fake/` controls is counted.
    package func handle(_ request: HTTPRequest) -> HTTPResponse {
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
        let plan = beginWebAPIRequest(path: request.path)
        defer { endWebAPIRequest() }
        var response: HTTPResponse
        if let injected = state.withLock({ $0.takeFailure(method: request.method, path: request.path) }) {
            response = injected
        } else if let fault = plan.fault, fault.refusesBeforeHandling {
            response = fault.apply(to: WebAPI.notFound)  // a 429 means the request was not carried out
        } else if let (route, parameters) = found {
            if route.access == .bearer {
                let check = state.withLock { $0.checkBearer(request.header("Authorization")) }
                if case .valid(let token) = check {
                    response = route.handler(self, RouteRequest(http: request, parameters: parameters, token: token))
                } else {
                    response = WebAPI.unauthorized(check)
                }
            } else {
                response = route.handler(self, RouteRequest(http: request, parameters: parameters, token: nil))
            }
        } else {
            response = pathMatched ? WebAPI.methodNotAllowed : WebAPI.notFound
        }
        response = plan.fault?.apply(to: response) ?? response
        let key = found?.route.key ?? "\(request.method) \(request.path)"
        let grantType = key == Self.tokenRouteKey ? URLForm.value("grant_type", in: request.formFields()) : nil
        state.withLock { $0.count(key: key, status: response.status, grantType: grantType) }
        return response
    }

    static let tokenRouteKey = "POST /api/token"
}
