import SpotifyClient
import ToolkitCLI
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where routine-link keeps its routines and sessions: `routines.json` in the data directory,
/// through the core's `DocumentStore` (locked, re-read and written atomically, so 20 processes
/// writing at once lose nothing and `kill -9` leaves the old or the new file; an unreadable file
/// (65) or one from a newer build (78) is named and never overwritten).
///
/// Schema version 1, the first released one:
///
///     {"routines":[{"id":"…","name":"Morning","duration_ms":900000,"note":"…",
///                   "playlist":{"id":"…","uri":"spotify:playlist:…","name":"…","image_url":"…"},
///                   "created_at":"2026-11-22T08:00:00.000Z",
///                   "sessions":[{"id":"…","started_at":"…","ended_at":"…","playlist":{…},
///                                "songs":4.5,"label":"4.5 songs","track_count":5,"listened_ms":900000}]}],
///      "schema_version":1}
///
/// Optional fields may be absent (read as null). A later version that only adds optional fields
/// can keep version 1; anything else bumps the version and adds a step to `migrate`.
enum RoutineStore {
    static let fileName = "routines.json"
    static let schemaVersion = 1

    /// `clock`: the run's (`ToolContext.clock`), for the creation time a migration stamps.
    static func make(environment: ToolEnvironment, clock: @escaping @Sendable () -> Double)
        -> DocumentStore<RoutineBook>
    {
        DocumentStore(
            directory: environment.dataDirectory, fileName: fileName, schemaVersion: schemaVersion,
            empty: RoutineBook(),
            migrate: { version, data in
                try migrate(from: version, data, now: isoTimestamp(clock()))
            })
    }

    /// Version 0 is the layout of routine-link's development prototype, before the first release:
    /// routines keyed by name, durations in seconds, the playlist as a URI, no sessions. No
    /// released build wrote it; it is kept so the migration path is real and tested rather than
    /// hypothetical:
    ///
    ///     {"schema_version":0,"routines":{"Morning":{"duration_seconds":900,"note":"…",
    ///                                                 "playlist_uri":"spotify:playlist:…"}}}
    ///
    /// Migrated routines are ordered by name and get the migration time as `created_at`, since
    /// version 0 kept none; a playlist URI that does not parse is dropped (the routine stays).
    static func migrate(from version: Int, _ data: Data, now: String) throws -> RoutineBook {
        switch version {
        case 0:
            struct Prototype: Decodable {
                struct Entry: Decodable {
                    var durationSeconds: Int?
                    var note: String?
                    var playlistURI: String?

                    enum CodingKeys: String, CodingKey {
                        case durationSeconds = "duration_seconds"
                        case note
                        case playlistURI = "playlist_uri"
                    }
                }
                var routines: [String: Entry]?
            }
            let old = try JSONDecoder().decode(Prototype.self, from: data)
            let entries = (old.routines ?? [:]).sorted { $0.key < $1.key }
            var book = RoutineBook()
            for (name, entry) in entries {
                let playlist = entry.playlistURI.flatMap { try? SpotifyReference.parse($0, expecting: .playlist) }.map(
                    PlaylistLink.init)
                let seconds = entry.durationSeconds.flatMap { $0 > 0 && $0 < 1_000_000_000 ? $0 : nil }
                book.routines.append(
                    Routine(
                        name: (try? RoutineBook.validatedName(name)) ?? name, durationMs: seconds.map { $0 * 1000 },
                        note: entry.note, playlist: playlist, createdAt: now))
            }
            return book
        default:
            throw ToolError.dataError(
                "routines.json has schema_version \(version), which no spotify-toolkit wrote; it was left as it is")
        }
    }

    /// `routine-link forget-links` and `spotify-auth logout --forget-links`: clears every
    /// routine's playlist, keeping routines and sessions, and says how many. No file: nothing to
    /// clear, nothing created.
    static func forgetLinks(_ context: ToolContext) throws {
        let store = make(environment: context.environment, clock: context.clock)
        let cleared = try store.read() == nil ? 0 : store.update { book in book.forgetLinks() }
        context.warn("cleared the playlist links of \(plural(cleared, "routine")); routines and sessions are kept")
    }
}
