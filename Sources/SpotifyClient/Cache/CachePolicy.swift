import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    enum FirstStep: Sendable, Equatable {
        /// Print the entry: its snapshot is the one a piped record names or the caller knows to
        /// be current, or (offline) it is simply the latest copy.
        case serve
        /// Read the playlist from Spotify. Its first answer (the playlist object) names the
        /// current snapshot: a copy of that one is printed instead (`ListRead.cachedSnapshot`).
        case fetch
        /// Offline and nothing usable is cached.
        case unavailable(OfflineMiss)
    }

    enum OfflineMiss: Sendable, Equatable {
        case nothingCached
        /// Only a records entry is cached and the run wants Spotify's untouched objects (`--raw`).
        case needsFull
    }

    /// `entry`: the cached entry's header (nil: none, or damaged). `snapshot`: a snapshot_id
    /// known before any request: from a piped playlist record (a hint that may be stale), or from
    /// an answer of this run.
    static func firstStep(mode: Mode, entry: CacheEntryHeader?, wanted: CacheView, snapshot: String?)
        -> FirstStep
    {
        let usable = usableSnapshot(entry, wanted: wanted)
        switch mode {
        case .bypass:
            return .fetch
        case .offline:
            if usable != nil { return .serve }
            return .unavailable(entry == nil ? .nothingCached : .needsFull)
        case .normal:
            if let usable, usable == snapshot { return .serve }
            return .fetch
        }
    }

    /// The snapshot_id of a cached entry that can serve `wanted`.
    static func usableSnapshot(_ entry: CacheEntryHeader?, wanted: CacheView) -> String? {
        guard let entry, entry.view.serves(wanted), !entry.snapshotID.isEmpty else { return nil }
        return entry.snapshotID
    }

    /// Whether a fetch may be kept: its pages provably belong to one version (`ListRead`'s
    /// `keepUnder`), all of them came, and the entry fits the bound.
    static func mayKeep(provenSnapshot: String?, count: Int, total: Int, bytes: Int, maxBytes: Int) -> Bool {
        guard let provenSnapshot, !provenSnapshot.isEmpty else { return false }
        return count == total && bytes <= maxBytes
    }

    /// One file in the cache directory, for eviction.
    struct StoredFile: Sendable, Equatable {
        package var name: String
        package var bytes: Int
        /// When it was last written or printed from (Unix seconds; files are touched on use).
        var lastUsed: Double

        package init(name: String, bytes: Int, lastUsed: Double) {
            self.name = name
            self.bytes = bytes
            self.lastUsed = lastUsed
        }
    }

    /// The files to delete so that `name`, of `bytes`, fits with the rest in `maxBytes`: least
    /// recently used first, never one of `protected` (what this run wrote or printed from: a run
    /// that evicted those would evict, in a library read in the same order each time, every entry
    /// before its turn). The old copy of `name` itself makes room first. nil when only protected
    /// entries could make room: the new entry is then not kept.
    static func evictions(
        _ files: [StoredFile], adding name: String, bytes: Int, maxBytes: Int, protected: Set<String>
    ) -> [String]? {
        let others = files.filter { $0.name != name }
        var total = others.reduce(max(bytes, 0)) { $0 + max($1.bytes, 0) }
        guard total > maxBytes else { return [] }
        let ordered = others.filter { !protected.contains($0.name) }.sorted { lhs, rhs in
            lhs.lastUsed != rhs.lastUsed ? lhs.lastUsed < rhs.lastUsed : lhs.name < rhs.name
        }
        var victims: [String] = []
        for file in ordered where total > maxBytes {
            victims.append(file.name)
            total -= max(file.bytes, 0)
        }
        return total > maxBytes ? nil : victims
    }

    /// The default bound on the cache's size: a library of 400,000 items kept as records (under
    /// 340 bytes an item: 128 MiB for 2,000 playlists of 200 items, every album different), with
    /// room to spare for copies of Spotify's whole objects that --raw runs keep.
    static let defaultMaxBytes = 256 << 20
    package static let sizeVariable = "SPOTIFY_TOOLKIT_CACHE_SIZE"

    /// `SPOTIFY_TOOLKIT_CACHE_SIZE`: bytes, or a number with K, M or G (powers of 1024); 0 turns the cache off.
    package static func maxBytes(_ text: String?) throws -> Int {
        try size(text, variable: sizeVariable, example: "256M") ?? defaultMaxBytes
    }

    /// A size setting: bytes, or a number with K, M or G (powers of 1024), at most 1 TiB; nil when unset.
    package static func size(_ text: String?, variable: String, example: String) throws -> Int? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var digits = Substring(text)
        var unit = 1
        if let last = digits.last?.uppercased().first, let scale = units[last] {
            unit = scale
            digits = digits.dropLast()
        }
        guard let number = Int(digits), number >= 0, number <= (1 << 40) / unit else {
            throw ToolError.config("\(variable) must be a size such as \(example), 1G or 500000 (bytes), not '\(text)'")
        }
        return number * unit
    }

    /// "12 s", "5 min", "3 h 12 min", "2 d 4 h": how old a cached copy is.
    static func age(seconds: Double) -> String {
        let whole = seconds.isFinite ? max(0, Int(min(seconds, 1e12))) : 0
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min" }
        if whole < 86_400 { return "\(whole / 3600) h \(whole % 3600 / 60) min" }
        return "\(whole / 86_400) d \(whole % 86_400 / 3600) h"
    }
}
