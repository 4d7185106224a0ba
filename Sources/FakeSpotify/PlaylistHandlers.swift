import Foundation
import LoopbackHTTP
import ToolkitCore

/// The library's shape and the Web API's pace; `--legacy`, `--latency-ms`, `--saved-tracks`,
/// `--extra-playlists`, `--library-shape` at launch, `POST /_fake/library` while running.
struct LibrarySettings: Sendable, Equatable {
    /// Which playlists `/me/playlists` lists before the extra ones.
    enum Shape: String, Sendable, CaseIterable {
        /// The fixture playlists (with a 403 and a 404 among them), a 10,000-item one and a mixed one.
        case fixtures
        /// `RealLibrary`: 150 generated playlists, mostly small, all the user's.
        case real
    }

    /// Pre-2026 shapes: playlists carry `tracks` (no `items`), entries `track` (no `item`), and
    /// the old `/playlists/{id}/tracks` works. Otherwise that endpoint answers 403, as it does
    /// for Development Mode apps since 2026.
    var legacy = false
    /// Added to every Web API request before it is answered.
    var latencyMs = 0
    /// How many liked songs `/me/tracks` holds.
    var savedTracks = 120
    /// Generated playlists (gen…0000 to gen…N-1, sizes 0 to N-1) after the usual ones in `/me/playlists`.
    var extraPlaylists = 0
    var shape = Shape.fixtures
    /// `--library-shape PxN` (e.g. 2000x200): P playlists of N generated items each, instead of the
    /// fixture ones, for benchmarks at scale (`GeneratedLibrary.uniformID`).
    var uniform: Uniform?

    struct Uniform: Sendable, Equatable {
        var playlists: Int
        var items: Int
        var text: String { "\(playlists)x\(items)" }

        /// "2000x200": at most 1,000,000 playlists of at most `GeneratedLibrary.maxGenerated` items.
        init?(_ text: String) {
            let parts = text.split(separator: "x", omittingEmptySubsequences: false)
            guard parts.count == 2, let playlists = Int(parts[0]), let items = Int(parts[1]),
                (0...1_000_000).contains(playlists), (0...GeneratedLibrary.maxGenerated).contains(items)
            else { return nil }
            (self.playlists, self.items) = (playlists, items)
        }
    }
    /// Spotify's rolling rate limit (RollingRateLimit.swift); nil: none.
    var rateWindow: RateWindow?

    init() {}

    var json: JSONValue {
        [
            "legacy": .bool(legacy), "latency_ms": .int(latencyMs), "saved_tracks": .int(savedTracks),
            "extra_playlists": .int(extraPlaylists), "library_shape": .string(uniform?.text ?? shape.rawValue),
            "rate_window": rateWindow.map { .string($0.text) } ?? .null,
        ]
    }

    /// Applies form fields; nothing changes when one is bad.
    mutating func apply(_ fields: [(name: String, value: String)]) throws {
        var updated = self
        func count(_ name: String, _ value: String, max: Int) throws -> Int {
            let number = try FakeSpotifySettings.int(name, value)
            guard (0...max).contains(number) else { throw ControlError("\(name) must be 0...\(max)") }
            return number
        }
        for (name, value) in fields {
            switch name {
            case "legacy": updated.legacy = try FakeSpotifySettings.bool(name, value)
            case "latency_ms": updated.latencyMs = try count(name, value, max: 60_000)
            case "saved_tracks": updated.savedTracks = try count(name, value, max: GeneratedLibrary.maxGenerated)
            case "extra_playlists": updated.extraPlaylists = try count(name, value, max: 100_000)
            case "library_shape":
                if let uniform = Uniform(value) {
                    updated.uniform = uniform
                    continue
                }
                guard let shape = Shape(rawValue: value) else {
                    throw ControlError(
                        "library_shape must be fixtures, real or PLAYLISTSxITEMS (e.g. 2000x200), not '\(value)'")
                }
                updated.shape = shape
                updated.uniform = nil
            case "rate_window":
                updated.rateWindow = ["", "off", "none"].contains(value) ? nil : try RateWindow(parsing: value)
            default:
                throw ControlError(
                    """
                    unknown library setting '\(name)'; known: legacy, latency_ms, saved_tracks, extra_playlists, \
                    library_shape, rate_window
                    """
                )
            }
        }
        self = updated
    }
}

/// `/me/playlists`, `/playlists/{id}`, `/playlists/{id}/items` (and the legacy `/tracks`), `/me/tracks`.
extension FakeSpotifyService {
    var library: LibrarySettings { settings.library }

    func libraryControls(_ request: RouteRequest) -> HTTPResponse {
        do {
            let fields = request.fields
            let library = try state.withLock { state in
                try state.settings.library.apply(fields)
                // Setting the window (again) starts it empty: a benchmark's runs each start fresh.
                if fields.contains(where: { $0.name == "rate_window" }) { state.rateLimit = nil }
                return state.settings.library
            }
            return Control.json(library.json)
        } catch {
            return Control.error(error)
        }
    }

    func myPlaylists(_ request: RouteRequest) -> HTTPResponse {
        let library = self.library
        let unfollowed = state.withLock { $0.unfollowedPlaylists }
        let playlists = listedPlaylists(Self.libraryPlaylists(library), legacy: library.legacy).filter {
            !unfollowed.contains($0["id"]?.stringValue ?? "")
        }
        return page(
            request, maxLimit: 50, total: playlists.count, path: "/users/\(GeneratedLibrary.userID)/playlists",
            extraQuery: []
        ) { range in
            playlists[range].map { applyingEdits(toPlaylist: Self.simplified($0, legacy: library.legacy)) }
        }
    }

    func playlist(_ request: RouteRequest) -> HTTPResponse {
        let id = request[parameter: "id"]
        if let written = writtenPlaylist(id, readBy: request) { return writtenPlaylistResponse(written, request) }
        let legacy = library.legacy
        let object: JSONValue
        switch GeneratedLibrary.playlist(id) {
        case nil:
            return Fixtures.response("error-404-not-found.json", status: 404)
        case .notOwned:
            guard let fixture = Fixtures.json("playlist-not-owned.json") else {
                return WebAPI.error(500, "fixture missing")
            }
            object = fixture
        case .fixture:
            guard let fixture = Fixtures.json(legacy ? "playlist-legacy.json" : "playlist.json") else {
                return WebAPI.error(500, "fixture missing")
            }
            object = fixture
        case .some(let playlist):
            let summary =
                GeneratedLibrary.uniformNumber(id).map {
                    Self.uniformPlaylist(number: $0, items: GeneratedLibrary.total(of: playlist))
                }
                ?? Self.libraryPlaylists(library).first { $0["id"]?.stringValue == id }
                ?? Self.generatedPlaylist(id: id, total: GeneratedLibrary.total(of: playlist))
            var full = Self.simplified(summary, legacy: legacy).objectValue ?? [:]
            let embedded = pageObject(
                request, id: id, path: "/playlists/\(id)/items", offset: 0, limit: 100,
                total: GeneratedLibrary.total(of: playlist),
                items: GeneratedLibrary.entries(of: playlist, id: id, range: 0..<100, legacy: legacy), extraQuery: [])
            full[legacy ? "tracks" : "items"] = embedded
            if !legacy { full["tracks"] = nil }
            full["followers"] = ["href": .null, "total": 0]
            object = .object(full)
        }
        return filtered(applyingEdits(toPlaylist: object), request)
    }

    func playlistItems(_ request: RouteRequest, legacyEndpoint: Bool = false) -> HTTPResponse {
        let id = request[parameter: "id"]
        let legacy = library.legacy
        if legacyEndpoint && !legacy { return Fixtures.response("error-403-forbidden.json", status: 403) }
        if let written = writtenPlaylist(id, readBy: request) {
            return writtenItemsResponse(written, request, legacyEndpoint: legacyEndpoint)
        }
        switch GeneratedLibrary.playlist(id) {
        case nil: return Fixtures.response("error-404-not-found.json", status: 404)
        case .notOwned: return Fixtures.response("error-403-forbidden.json", status: 403)
        case .some(let playlist):
            let keep = ["additional_types", "fields"].compactMap { name in
                request.http.queryValue(name).map { (name, $0) }
            }
            let offset = request.http.queryValue("offset").flatMap { Int($0) } ?? 0
            return page(
                request, maxLimit: legacyEndpoint ? 100 : 50,
                total: GeneratedLibrary.total(of: playlist, offset: offset),
                path: "/playlists/\(id)/\(legacyEndpoint ? "tracks" : "items")", extraQuery: keep
            ) { range in
                applyingEdits(
                    toEntries: GeneratedLibrary.entries(
                        of: playlist, id: id, range: range, legacy: legacy || legacyEndpoint), id: id,
                    offset: range.lowerBound)
            }
        }
    }

    func savedTracks(_ request: RouteRequest) -> HTTPResponse {
        if let written = savedTracksWithWrites(request) { return written }  // LibraryWrites.swift
        return page(request, maxLimit: 50, total: library.savedTracks, path: "/me/tracks", extraQuery: []) { range in
            range.map(GeneratedLibrary.savedTrack)
        }
    }

    // MARK: Paging

    /// A paging object for `offset`/`limit` of the request (400 `Invalid limit` outside 1...maxLimit),
    /// filtered by its `fields`.
    func page(
        _ request: RouteRequest, maxLimit: Int, total: Int, path: String, extraQuery: [(String, String)],
        items: (Range<Int>) -> [JSONValue]
    ) -> HTTPResponse {
        let limitText = request.http.queryValue("limit")
        guard let limit = limitText.map({ Int($0) }) ?? 20, (1...maxLimit).contains(limit) else {
            return Fixtures.response("error-400-invalid-limit.json", status: 400)
        }
        guard let offset = request.http.queryValue("offset").map({ Int($0) }) ?? 0, offset >= 0 else {
            return WebAPI.error(400, "Invalid offset")
        }
        let range = min(offset, total)..<min(offset + limit, total)
        return filtered(
            pageObject(
                request, id: nil, path: path, offset: offset, limit: limit, total: total, items: items(range),
                extraQuery: extraQuery), request)
    }

    func pageObject(
        _ request: RouteRequest, id: String?, path: String, offset: Int, limit: Int, total: Int, items: [JSONValue],
        extraQuery: [(String, String)]
    ) -> JSONValue {
        let base = "http://\(request.http.header("Host") ?? "127.0.0.1")/v1"
        func link(_ offset: Int) -> JSONValue {
            .string(
                base + path + "?" + URLForm.encode([("offset", String(offset)), ("limit", String(limit))] + extraQuery))
        }
        return [
            "href": link(offset),
            "items": .array(items),
            "limit": .int(limit),
            "next": offset + limit < total ? link(offset + limit) : .null,
            "offset": .int(offset),
            "previous": offset > 0 ? link(max(0, offset - limit)) : .null,
            "total": .int(total),
        ]
    }

    /// The answer with the request's `fields` filter applied (400 when it cannot be parsed).
    func filtered(_ value: JSONValue, _ request: RouteRequest) -> HTTPResponse {
        guard let text = request.http.queryValue("fields"), !text.isEmpty else { return WebAPI.json(value) }
        do {
            return WebAPI.json(try FieldsFilter.parsedOnce(text).apply(value))
        } catch {
            return WebAPI.error(400, "Invalid fields parameter: \(error.message)")
        }
    }

    // MARK: The library

    /// The user's playlists: the fixture ones (one of them Spotify's editorial playlist, which
    /// answers 404), a 10,000-item one, a mixed one, then `extraPlaylists` generated ones; with
    /// the real shape, `RealLibrary`'s playlists instead of the fixture and big ones.
    static func libraryPlaylists(_ library: LibrarySettings) -> [JSONValue] {
        let extra = (0..<library.extraPlaylists).map {
            generatedPlaylist(id: GeneratedLibrary.generatedID(count: $0), total: $0)
        }
        if let uniform = library.uniform { return uniformPlaylists(uniform) + extra }
        if library.shape == .real { return realPlaylists + extra }
        let fixtures = ["me-playlists-page1.json", "me-playlists-page2.json"].flatMap {
            Fixtures.json($0)?["items"]?.arrayValue ?? []
        }
        let generated = [
            generatedPlaylist(id: GeneratedLibrary.generatedID(count: 10_000), total: 10_000, name: "Long Run"),
            generatedPlaylist(id: GeneratedLibrary.generatedID(count: 120, mixed: true), total: 120, name: "Mixed Bag"),
        ]
        return fixtures + generated + extra
    }

    /// A uniform library's playlists, built once per shape (`/me/playlists` pages through them).
    static func uniformPlaylists(_ uniform: LibrarySettings.Uniform) -> [JSONValue] {
        if let built = uniformBuilt.withLock({ $0[uniform.text] }) { return built }
        let built = (0..<uniform.playlists).map { number in
            uniformPlaylist(number: number, items: uniform.items)
        }
        uniformBuilt.withLock { $0[uniform.text] = built }
        return built
    }

    static func uniformPlaylist(number: Int, items: Int) -> JSONValue {
        generatedPlaylist(
            id: GeneratedLibrary.uniformID(number: number, count: items), total: items, name: "Uniform \(number + 1)")
    }

    static let uniformBuilt = Locked<[String: [JSONValue]]>([:])

    /// Built once: `/me/playlists` and `/playlists/{id}` look through them on every request.
    static let realPlaylists: [JSONValue] = zip(RealLibrary.ids, RealLibrary.sizes).enumerated().map {
        generatedPlaylist(id: $0.element.0, total: $0.element.1, name: "Library \($0.offset + 1)")
    }

    static func generatedPlaylist(id: String, total: Int, name: String? = nil) -> JSONValue {
        let owner = GeneratedLibrary.user(GeneratedLibrary.userID)
        var ownerObject = owner.objectValue ?? [:]
        ownerObject["display_name"] = "Fixture User"
        let reference: JSONValue = [
            "href": .string("https://api.spotify.com/v1/playlists/\(id)/items"), "total": .int(total),
        ]
        return [
            "collaborative": false,
            "description": .string("Generated: \(total) items."),
            "external_urls": ["spotify": .string("https://open.spotify.com/playlist/\(id)")],
            "href": .string("https://api.spotify.com/v1/playlists/\(id)"),
            "id": .string(id),
            "images": GeneratedLibrary.images(id),
            "name": .string(name ?? "Generated \(total)"),
            "owner": .object(ownerObject),
            "primary_color": .null,
            "public": false,
            "snapshot_id": .string("AAAA" + GeneratedLibrary.objectID(seed: id, index: total)),
            "tracks": ["href": .string("https://api.spotify.com/v1/playlists/\(id)/tracks"), "total": .int(total)],
            "items": reference,
            "type": "playlist",
            "uri": .string("spotify:playlist:\(id)"),
        ]
    }

    /// Legacy apps see only `tracks`; 2026 ones both (as the fixtures and the spec have them).
    static func simplified(_ playlist: JSONValue, legacy: Bool) -> JSONValue {
        guard legacy, var object = playlist.objectValue else { return playlist }
        object["items"] = nil
        return .object(object)
    }
}
