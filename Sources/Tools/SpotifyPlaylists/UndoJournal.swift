import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `spotify-playlists undo` puts back: before every destructive write (replace, remove,
/// dedupe, sort, rewrite, undo itself) the playlist's items and order are kept here, one file per
/// playlist under `$XDG_STATE_HOME/spotify-toolkit/undo/` (a private directory, files 0600,
/// replaced atomically, never through a symbolic link). Bounded: the last `keptPerPlaylist`
/// writes of a playlist, none older than `maxAge`, at most `maxPlaylists` files.
struct UndoJournal {
    /// One destructive write: the playlist before it and after it.
    struct Entry: Equatable {
        var action: String
        /// Seconds since 1970.
        var at: Double
        var before: [String?]
        var beforeSnapshot: String?
        /// What the write left (proven; for one that stopped early, what it had done by then).
        var after: [String?]
        var afterSnapshot: String?
        /// The write did not finish (stopped by a signal, a failure or another client).
        var complete: Bool
        /// What the write set out to leave (its plan's result), kept before the first request: a
        /// write killed part-way (SIGKILL, a crash) never records what it left.
        var planned: [String?]?

        /// Whether `now` is what this write left, or, for one that did not finish, could be part of
        /// it: each item as many times as before, as planned, or in between (a sort killed half-way
        /// holds the same items in another order). Another client's new item is neither.
        func mayHaveLeft(_ now: [String?]) -> Bool {
            if now == after { return true }
            guard !complete, let planned else { return false }
            var counts: [String: (now: Int, before: Int, planned: Int)] = [:]
            for uri in now { counts[uri ?? "", default: (0, 0, 0)].now += 1 }
            for uri in before { counts[uri ?? "", default: (0, 0, 0)].before += 1 }
            for uri in planned { counts[uri ?? "", default: (0, 0, 0)].planned += 1 }
            return counts.values.allSatisfy {
                (min($0.before, $0.planned)...max($0.before, $0.planned)).contains($0.now)
            }
        }

        var json: JSONValue {
            [
                "action": .string(action), "at": .string(isoTimestamp(at)),
                "before": .array(before.map { $0.map(JSONValue.string) ?? .null }),
                "before_snapshot_id": beforeSnapshot.map(JSONValue.string) ?? .null,
                "after": .array(after.map { $0.map(JSONValue.string) ?? .null }),
                "after_snapshot_id": afterSnapshot.map(JSONValue.string) ?? .null, "complete": .bool(complete),
                "planned": planned.map { .array($0.map { $0.map(JSONValue.string) ?? .null }) } ?? .null,
            ]
        }

        init(
            action: String, at: Double, before: [String?], beforeSnapshot: String?, after: [String?],
            afterSnapshot: String?, complete: Bool, planned: [String?]? = nil
        ) {
            (self.action, self.at, self.before, self.beforeSnapshot) = (action, at, before, beforeSnapshot)
            (self.after, self.afterSnapshot, self.complete) = (after, afterSnapshot, complete)
            self.planned = planned
        }

        init?(_ json: JSONValue) {
            guard let action = json["action"]?.stringValue, let at = json["at"]?.stringValue.flatMap(parseISOTimestamp),
                let before = json["before"]?.arrayValue, let after = json["after"]?.arrayValue
            else { return nil }
            self.init(
                action: action, at: at, before: before.map(\.stringValue),
                beforeSnapshot: json["before_snapshot_id"]?.stringValue,
                after: after.map(\.stringValue), afterSnapshot: json["after_snapshot_id"]?.stringValue,
                complete: json["complete"]?.boolValue ?? false,
                planned: json["planned"]?.arrayValue.map { $0.map(\.stringValue) })
        }
    }

    static let keptPerPlaylist = 10
    static let maxAge = 90.0 * 86_400
    static let maxPlaylists = 500

    let directory: PrivateDirectory
    let now: Double

    init(environment: ToolEnvironment, now: Double) {
        directory = PrivateDirectory(environment.stateDirectory + "/undo")
        self.now = now
    }

    static func fileName(_ playlist: String) -> String { playlist + ".json" }

    /// The playlist's writes, oldest first (none when nothing was kept).
    func entries(of playlist: String) throws -> [Entry] {
        guard try directory.verifyIfPresent(),
            let data = try directory.read(Self.fileName(playlist), trust: .file)
        else { return [] }
        guard let json = try? JSONValue.parse(String(decoding: data, as: UTF8.self)),
            let list = json["entries"]?.arrayValue
        else {
            throw ToolError.dataError(
                "the undo journal \(directory.file(Self.fileName(playlist))) cannot be read; move it away to go on")
        }
        return list.compactMap(Entry.init).filter { now - $0.at <= Self.maxAge }
    }

    /// Keeps `entry` as the playlist's latest write (replacing the latest when `replacingLatest`:
    /// a write that began, now with what it left).
    func record(_ entry: Entry, of playlist: String, replacingLatest: Bool = false) throws {
        try directory.create()
        // A directory made before the parent existed is checked too (created 0700 as the others).
        var list = try entries(of: playlist)
        if replacingLatest, !list.isEmpty { list.removeLast() }
        list.append(entry)
        list = Array(list.suffix(Self.keptPerPlaylist))
        let json: JSONValue = ["playlist": .string(playlist), "entries": .array(list.map(\.json))]
        try directory.write(Data((json.serialized() + "\n").utf8), to: Self.fileName(playlist))
        pruneOtherPlaylists(keeping: playlist)
    }

    /// Runs `body` as the one destructive write of `playlist` on this machine: two at once
    /// would each plan against the other's half-done playlist and rewrite the journal under it.
    /// The lock (`ID.lock`, beside the journal) is released when the process ends, even by kill -9.
    func exclusive<T>(
        _ playlist: String, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async throws -> T {
        let lock = try directory.lock(playlist + ".lock")
        guard let result = try await lock.withLockIfFree(body) else {
            throw ToolError.tempFail(
                """
                another spotify-playlists is changing playlist \(playlist) on this machine; nothing was changed; try \
                again when it has finished
                """
            )
        }
        return result
    }

    /// Forgets the playlist's latest write: one that began and changed nothing (its first request
    /// refused, every send lost) must not hide the write before it from `undo`.
    func removeLatest(of playlist: String) throws {
        var list = try entries(of: playlist)
        guard !list.isEmpty else { return }
        list.removeLast()
        let json: JSONValue = ["playlist": .string(playlist), "entries": .array(list.map(\.json))]
        try directory.write(Data((json.serialized() + "\n").utf8), to: Self.fileName(playlist))
    }

    /// Forgets the playlists written longest ago when there are more than `maxPlaylists`.
    func pruneOtherPlaylists(keeping playlist: String) {
        // Journals only: each playlist written has its lock file beside its journal.
        guard
            let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path).filter({
                $0.hasSuffix(".json")
            }), names.count > Self.maxPlaylists
        else { return }
        let dated = names.filter { $0 != Self.fileName(playlist) }.map { name in
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory.file(name))
            return (name, (attributes?[.modificationDate] as? Date) ?? .distantPast)
        }
        for (name, _) in dated.sorted(by: { $0.1 < $1.1 }).prefix(names.count - Self.maxPlaylists) {
            try? directory.remove(name)
        }
    }
}
