import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// App-local playlists: track records kept on this machine under a name, not in the Spotify
/// account (`spotify-playlists local ...`). One `DocumentStore` document, so every change is
/// locked, atomic and schema-versioned.
struct LocalPlaylistLibrary: Codable, Sendable, Equatable {
    var playlists: [LocalPlaylist] = []

    static let fileName = "local-playlists.json"
    static let schemaVersion = 1

    static func store(_ environment: ToolEnvironment) -> DocumentStore<LocalPlaylistLibrary> {
        DocumentStore(
            directory: environment.dataDirectory, fileName: fileName, schemaVersion: schemaVersion,
            empty: LocalPlaylistLibrary())
    }

    /// The playlist called `name`, compared without regard to case (any Unicode text).
    func index(of name: String) -> Int? {
        let key = LocalPlaylist.key(name)
        return playlists.firstIndex { LocalPlaylist.key($0.name) == key }
    }
}

struct LocalPlaylist: Codable, Sendable, Equatable {
    var name: String
    var createdAt: String
    var updatedAt: String
    /// Each record as the compact JSON line it came in as: `show` gives back exactly what
    /// spotify-tracks printed (keys in their order), which a re-encoded object would not.
    var tracks: [String]

    enum CodingKeys: String, CodingKey {
        case name, tracks
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    static func key(_ name: String) -> String { DocumentNames.key(name) }

    static func checkName(_ name: String) throws -> String {
        try DocumentNames.validated(name, noun: "local playlist")
    }

    /// The sum of the durations of the records that have one.
    var durationMs: Int {
        var duration = 0
        for line in tracks {
            // Saturating, not wrapping: a wrapped total would be a plausible-looking wrong number.
            duration = saturatingAdd(duration, max(0, (try? JSONValue.parse(line))?["duration_ms"]?.intValue ?? 0))
        }
        return duration
    }
}
