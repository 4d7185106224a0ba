import Foundation
import HTTPClient
import LoopbackHTTP
import ToolkitCore

/// The cache's decisions, kept apart from files and requests so they can be tested alone: when an
/// entry may be printed, when Spotify must be asked, when a fetch may be kept, what to evict.
package enum CachePolicy {
    /// How a run uses the cache.
    package enum Mode: Sendable, Equatable {
        /// Print from the cache when its snapshot is the playlist's current one; fill it otherwise.
        case normal
        /// `--no-cache`: neither read nor written.
        case bypass
        /// `--offline`: print the latest cached copy without any request.
        case offline
    }

    /// What to do before any request is made.
    package enum FirstStep: Sendable, Equatable {
        /// Print the entry: its snapshot is the one the caller knows to be current, or the one a
        /// piped record names, or (offline) it is simply the latest copy.
        case serve
        /// Ask Spotify for the playlist's current snapshot_id (one small request), then `afterCheck`.
        case checkSnapshot
        /// Fetch every page; keep the result under `snapshot` when it is non-nil.
        case fetch(snapshot: String?)
        /// Offline and nothing usable is cached.
        case unavailable(OfflineMiss)
    }

    package enum OfflineMiss: Sendable, Equatable {
        case nothingCached
        /// Only a records entry is cached and the run wants Spotify's untouched objects (`--raw`).
        case needsFull
    }

    /// `entry`: the cached entry's header (nil: none, or damaged). `snapshot`: a snapshot_id
    /// known before any request: from a piped playlist record (a hint that may be stale), or from
    /// an answer of this run (`snapshotIsCurrent`).
    package static func firstStep(
        mode: Mode, entry: CacheEntryHeader?, wanted: CacheView,
        snapshot: String?, snapshotIsCurrent: Bool
    ) -> FirstStep {
        let usable = entry.flatMap { $0.view.serves(wanted) ? $0 : nil }
        switch mode {
        case .bypass:
            return .fetch(snapshot: nil)
        case .offline:
            if usable != nil { return .serve }
            return .unavailable(entry == nil ? .nothingCached : .needsFull)
        case .normal:
            if let usable, let snapshot, usable.snapshotID == snapshot { return .serve }
            if let snapshot, snapshotIsCurrent { return .fetch(snapshot: snapshot) }
            return .checkSnapshot
        }
    }

    /// After the snapshot check: print the entry when it holds the current snapshot, else fetch
    /// and keep the result under it. A playlist Spotify gives no snapshot_id is fetched, not kept.
    package static func afterCheck(entry: CacheEntryHeader?, wanted: CacheView, current: String?) -> FirstStep {
        guard let current, !current.isEmpty else { return .fetch(snapshot: nil) }
        if let entry, entry.view.serves(wanted), entry.snapshotID == current { return .serve }
        return .fetch(snapshot: current)
    }

    /// Whether a fetch may be kept: the snapshot asked for before it and after it are the same
    /// (so every page belongs to that version), the total held, and the entry fits the bound.
    package static func mayKeep(
        snapshotBefore: String?, snapshotAfter: String?, totalChanged: Bool, bytes: Int, maxBytes: Int
    ) -> Bool {
        guard let snapshotBefore, !snapshotBefore.isEmpty, snapshotAfter == snapshotBefore else { return false }
        return !totalChanged && bytes <= maxBytes
    }

    /// One file in the cache directory, for eviction.
    package struct StoredFile: Sendable, Equatable {
        package var name: String
        package var bytes: Int
        /// When it was last written or printed from (Unix seconds; files are touched on use).
        package var lastUsed: Double

        package init(name: String, bytes: Int, lastUsed: Double) {
            self.name = name
            self.bytes = bytes
            self.lastUsed = lastUsed
        }
    }

    /// The files to delete, least recently used first, until the rest fit in `maxBytes`. `keep`
    /// (the entry just written) goes last of all, and only if it alone is over the bound.
    package static func evictions(_ files: [StoredFile], maxBytes: Int, keep: String? = nil) -> [String] {
        var total = files.reduce(0) { $0 + max($1.bytes, 0) }
        guard total > maxBytes else { return [] }
        let ordered = files.sorted { lhs, rhs in
            if (lhs.name == keep) != (rhs.name == keep) { return rhs.name == keep }
            return lhs.lastUsed != rhs.lastUsed ? lhs.lastUsed < rhs.lastUsed : lhs.name < rhs.name
        }
        var victims: [String] = []
        for file in ordered where total > maxBytes {
            victims.append(file.name)
            total -= max(file.bytes, 0)
        }
        return victims
    }

    /// The default bound on the cache's size: room for several 10,000-item playlists, even kept
    /// with Spotify's whole objects (about 30 MB each); records alone take about 6 MB.
    package static let defaultMaxBytes = 256 << 20
    package static let sizeVariable = "SPOTIFY_TOOLKIT_CACHE_SIZE"

    /// `SPOTIFY_TOOLKIT_CACHE_SIZE`: bytes, or a number with K, M or G (powers of 1024); 0 turns the cache off.
    package static func maxBytes(_ text: String?) throws -> Int {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return defaultMaxBytes }
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var digits = Substring(text)
        var unit = 1
        if let last = digits.last?.uppercased().first, let scale = units[last] {
            unit = scale
            digits = digits.dropLast()
        }
        guard let number = Int(digits), number >= 0, number <= (1 << 40) / unit else {
            throw ToolError.config("\(sizeVariable) must be a size such as 256M, 1G or 500000 (bytes), not '\(text)'")
        }
        return number * unit
    }

    /// "12 s", "5 min", "3 h 12 min", "2 d 4 h": how old a cached copy is.
    package static func age(seconds: Double) -> String {
        let whole = seconds.isFinite ? max(0, Int(min(seconds, 1e12))) : 0
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min" }
        if whole < 86_400 { return "\(whole / 3600) h \(whole % 3600 / 60) min" }
        return "\(whole / 86_400) d \(whole % 86_400 / 3600) h"
    }
}
