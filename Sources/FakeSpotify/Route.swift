import Foundation
import LoopbackHTTP
import ToolkitCore

/// One endpoint of fake-spotify: method, path pattern (`/v1/playlists/{id}/items`) and handler.
/// The table itself is `FakeSpotifyService.routes` (Routes.swift).
struct Route: Sendable {
    enum Access: Sendable {
        /// The accounts service: no token.
        case open
        /// The Web API: `Authorization: Bearer` with a valid access token, else 401.
        case bearer
        /// `/_fake/` test controls: no token, not counted, never failed on purpose.
        case control
    }

    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    typealias Handler = @Sendable (FakeSpotifyService, RouteRequest) -> HTTPResponse

    let method: String
    let pattern: String
    let access: Access
    let segments: [Segment]
    let handler: Handler

    init(_ method: String, _ pattern: String, _ access: Access, _ handler: @escaping Handler) {
        self.method = method
        self.pattern = pattern
        self.access = access
        self.segments = pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { part in
            part.hasPrefix("{") && part.hasSuffix("}")
                ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
        self.handler = handler
    }

    /// "GET /v1/playlists/{id}": how `/_fake/counters` names requests to this route.
    var key: String { "\(method) \(pattern)" }

    /// The path parameters when `path` fits the pattern (a parameter matches one non-empty segment).
    func match(path: String) -> [String: String]? {
        guard path.hasPrefix("/") else { return nil }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard parts.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let text):
                guard part == text else { return nil }
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                parameters[name] = String(part)
            }
        }
        return parameters
    }
}

/// What a route handler gets.
struct RouteRequest: Sendable {
    let http: HTTPRequest
    /// Values of the pattern's `{name}` segments.
    let parameters: [String: String]
    /// The caller's access token, for `.bearer` routes.
    let token: AccessTokenInfo?
    /// A stale_read fired: a written playlist is served as it was before its most recent write.
    var servesPreviousVersion = false

    subscript(parameter name: String) -> String { parameters[name] ?? "" }

    /// Form fields of the body, then query parameters (so `curl -d` and `?x=` both work for controls).
    var fields: [(name: String, value: String)] { http.formFields() + http.query }

    func field(_ name: String) -> String? { URLForm.value(name, in: fields) }
}
