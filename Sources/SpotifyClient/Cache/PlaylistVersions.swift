import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every version of a playlist the toolkit has met: what `spotify-playlists history`, `diff` and
/// `restore` read. One file per playlist (`PlaylistVersionBook`), under
/// `$XDG_DATA_HOME/spotify-toolkit/playlist-versions/ID.jsonl`.
///
/// History is data, not cache: the snapshot cache keeps a playlist's latest version only and may
/// be deleted at any time, and logging out empties it; a version that is gone from Spotify can be
/// had back only from here, so it lives beside the user's other data (routines, local playlists)
/// and survives a logout, as the undo journal does.
///
/// Files follow the toolkit's rules (`Storage/`): a private directory (0700), files 0600 replaced
/// atomically, never through a symbolic link. Every change is made under the directory's one lock
/// (`versions.lock`), so concurrent writers each add their version and none is lost. (A lock a
/// playlist cost a file created per playlist: a first read of 500 playlists created 500 more files
/// than it kept, and a writer holds the lock for about a millisecond.) Bounded, oldest
/// first: at most `maxVersions` versions and `maxBytes` bytes per playlist, and at most
/// `maxTotalBytes` in all (the playlists whose oldest version is oldest lose it first; a playlist's
/// newest version goes last). A file that fails its checks is set aside as `ID.damaged` (one per
/// playlist, replacing an older one) and a new history begins; reading commands refuse it (65).
package struct PlaylistVersions: Sendable {
    package let directory: PrivateDirectory
    let maxVersions: Int
    package let maxBytes: Int
    let maxTotalBytes: Int
    let clock: @Sendable () -> Double
    /// The bytes each file holds, listed at the first version a run keeps and kept up to date by
    /// its writes: keeping a version no longer lists the directory and stats every file (that was
    /// quadratic in a library's playlists). Forgotten after an eviction or a file set aside.
    let sizes = Locked<[String: Int]?>(nil)
    /// Whether this run has swept the temporaries killed writers left (once a run: sweeping
    /// lists the directory).
    let swept = Locked(false)

    package static let defaultMaxVersions = 100
    package static let defaultMaxBytes = 32 << 20
    package static let defaultMaxTotalBytes = 512 << 20
    /// `SPOTIFY_TOOLKIT_HISTORY_SIZE`: the bound in all (as the cache's size is given); 0 keeps no history.
    package static let sizeVariable = "SPOTIFY_TOOLKIT_HISTORY_SIZE"

    package init(
        environment: ToolEnvironment, maxVersions: Int = defaultMaxVersions, maxBytes: Int = defaultMaxBytes,
        clock: @escaping @Sendable () -> Double
    ) throws {
        directory = PrivateDirectory(environment.dataDirectory + "/playlist-versions")
        self.maxVersions = maxVersions
        self.maxBytes = maxBytes
        maxTotalBytes = try Self.maxTotalBytes(environment[Self.sizeVariable])
        self.clock = clock
    }

    package init(
        directory: String, maxVersions: Int, maxBytes: Int, maxTotalBytes: Int,
        clock: @escaping @Sendable () -> Double
    ) {
        self.directory = PrivateDirectory(directory)
        (self.maxVersions, self.maxBytes, self.maxTotalBytes) = (maxVersions, maxBytes, maxTotalBytes)
        self.clock = clock
    }

    /// Whether anything is kept at all (`SPOTIFY_TOOLKIT_HISTORY_SIZE=0` turns history off).
    package var isOn: Bool { maxTotalBytes > 0 && maxBytes > 0 && maxVersions > 0 }

    static func fileName(_ playlistID: String) -> String { playlistID + ".jsonl" }
    static func damagedName(_ playlistID: String) -> String { playlistID + ".damaged" }

    package func path(of playlistID: String) -> String { directory.file(Self.fileName(playlistID)) }

    package enum Lookup: Sendable {
        case absent
        case damaged(path: String, reason: String)
        case book(PlaylistVersionBook)
    }

    /// The playlist's history. Throws (78) only when the directory or file may not be trusted.
    package func load(_ playlistID: String) throws -> Lookup {
        guard SpotifyReference.isValidID(playlistID) else { return .absent }  // never a path from input
        let data: Data?
        do {
            data = try directory.read(Self.fileName(playlistID), trust: .file)
        } catch let error as ToolError where error.exitCode == .ioError {
            return .damaged(path: path(of: playlistID), reason: error.message)
        }
        guard let data else { return .absent }
        do {
            return .book(try PlaylistVersionBook.decode(data, playlistID: playlistID))
        } catch {
            return .damaged(path: path(of: playlistID), reason: "\(error)")
        }
    }

    /// The playlist's history for a command that shows it: none is an empty book; a damaged file
    /// is an error (65) that names it and leaves it as it is.
    package func book(_ playlistID: String) throws -> PlaylistVersionBook {
        switch try load(playlistID) {
        case .absent: return PlaylistVersionBook(playlistID: playlistID)
        case .book(let book): return book
        case .damaged(let path, let reason):
            throw ToolError.dataError(
                """
                the version history \(path) cannot be read (\(reason)); the next read of the playlist sets it aside \
                as \(Self.damagedName(playlistID)) and begins a new one
                """
            )
        }
    }

    /// Whether the playlist's history lists that snapshot, from its first line (false when it
    /// cannot be read: `record` then sorts it out).
    package func contains(_ playlistID: String, snapshot: String) -> Bool {
        guard SpotifyReference.isValidID(playlistID), let data = header(playlistID) else { return false }
        return PlaylistVersionBook.snapshots(data)?.contains(snapshot) ?? false
    }

    /// Keeps `version` of the playlist when it is new, then holds the bounds. True when it was
    /// added. `warn`: what a reader should hear (a damaged history set aside); failures to write
    /// are thrown, for the caller to report without failing its command. `firstDurably: false`
    /// (a read's version, met again at the next read) writes a playlist's first version without
    /// fsync: a crash may lose that one version and nothing else. A file that holds earlier
    /// versions is always replaced durably, and so is the version a write is about to change.
    @discardableResult
    package func record(
        _ playlistID: String, _ version: PlaylistVersion, firstDurably: Bool = true, warn: (String) -> Void = { _ in }
    ) throws -> Bool {
        guard isOn, SpotifyReference.isValidID(playlistID), !version.snapshotID.isEmpty else { return false }
        try directory.create()
        return try directory.lock(Self.lockName).withLockBlocking(timeoutSeconds: 10) { () throws -> Bool in
            var book: PlaylistVersionBook
            switch try load(playlistID) {
            case .absent:
                book = PlaylistVersionBook(playlistID: playlistID)
            case .book(let found):
                book = found
            case .damaged(let path, let reason):
                try setAside(playlistID)
                warn(
                    """
                    the version history \(path) was damaged (\(reason)); it was set aside as \
                    \(directory.file(Self.damagedName(playlistID))) and a new one begun
                    """
                )
                book = PlaylistVersionBook(playlistID: playlistID)
            }
            let replacing = book.count > 0
            guard book.add(version) else { return false }
            book.bound(maxVersions: maxVersions, maxBytes: maxBytes)
            let bytes = book.encode()
            // A version alone past the bound is not kept (the older ones stay).
            guard bytes.count <= maxBytes, book.contains(snapshot: version.snapshotID) else { return false }
            if !swept.withLock({ swept in
                defer { swept = true }
                return swept
            }) {
                directory.sweepStaleTemporaries(of: nil)
            }
            try directory.write(
                Data(bytes), to: Self.fileName(playlistID), durable: replacing || firstDurably, sweeping: false)
            sizes.withLock { $0?[Self.fileName(playlistID)] = bytes.count }
            evict(keeping: playlistID)
            return true
        }
    }

    /// The directory's lock, held by whoever changes a file in it.
    static let lockName = "versions.lock"

    /// Moves a damaged file out of the way (over an older damaged copy: bounded to one).
    func setAside(_ playlistID: String) throws {
        let from = directory.file(Self.fileName(playlistID))
        let to = directory.file(Self.damagedName(playlistID))
        sizes.withLock { $0 = nil }
        if rename(from, to) != 0 && errno != ENOENT {
            throw ToolError.ioError("cannot set aside \(from): \(systemErrorMessage(errno))")
        }
    }

    /// One file of the history directory, for eviction across playlists.
    struct StoredFile: Sendable, Equatable {
        package var playlistID: String
        package var bytes: Int
        /// A damaged copy set aside (goes first).
        package var damaged = false
        /// The oldest version's time.
        var oldestSeenAt: Double = 0

        package init(playlistID: String, bytes: Int, damaged: Bool = false, oldestSeenAt: Double = 0) {
            (self.playlistID, self.bytes, self.damaged, self.oldestSeenAt) = (playlistID, bytes, damaged, oldestSeenAt)
        }
    }

    /// Which file gives up something next while `totalBytes` passes `maxTotalBytes`: a damaged
    /// copy, else the playlist whose oldest version is oldest, `keeping` (just written) last. Pure.
    static func nextEviction(
        _ files: [StoredFile], totalBytes: Int, maxTotalBytes: Int, keeping: String?
    ) -> StoredFile? {
        guard totalBytes > maxTotalBytes else { return nil }
        return files.min { lhs, rhs in
            if lhs.damaged != rhs.damaged { return lhs.damaged }
            let (left, right) = (lhs.playlistID == keeping, rhs.playlistID == keeping)
            if left != right { return right }
            if lhs.oldestSeenAt != rhs.oldestSeenAt { return lhs.oldestSeenAt < rhs.oldestSeenAt }
            return lhs.playlistID < rhs.playlistID
        }
    }

    /// Holds the bound in all: damaged copies go first, then the oldest versions of any playlist,
    /// one at a time. Called with the directory's lock held. Best effort: a file that cannot be
    /// rewritten ends it until the next version. Only each file's first line is read (its oldest
    /// version's time), once, and again only for the file just shortened.
    func evict(keeping: String) {
        let known = sizes.withLock { sizes in
            if sizes == nil { sizes = storedFileSizes() }
            return sizes ?? [:]
        }
        guard known.values.reduce(0, saturatingAdd) > maxTotalBytes else { return }
        defer { sizes.withLock { $0 = nil } }
        var files = storedFiles(readingAges: true)
        // Each turn drops one version or one file; the bound on turns only guards against a loop.
        for _ in 0..<100_000 {
            let total = files.reduce(0) { saturatingAdd($0, $1.bytes) }
            guard
                let victim = Self.nextEviction(
                    files, totalBytes: total, maxTotalBytes: maxTotalBytes, keeping: keeping),
                let index = files.firstIndex(of: victim)
            else { return }
            let id = victim.playlistID
            if victim.damaged {
                guard (try? directory.remove(Self.damagedName(id))) != nil else { return }
                files.remove(at: index)
                continue
            }
            let done: Void? = try? { () throws -> Void in
                guard case .book(var book) = try load(id), book.count > 1 else {
                    try directory.remove(Self.fileName(id))
                    return
                }
                book.dropOldest(1)
                try directory.write(Data(book.encode()), to: Self.fileName(id))
            }()
            guard done != nil else { return }
            if let refreshed = storedFile(Self.fileName(id), readingAge: true) {
                files[index] = refreshed
            } else {
                files.remove(at: index)
                if id == keeping { return }  // its one version alone was past the bound in all
            }
        }
    }

    /// The history files: each playlist's, and damaged copies. `readingAges`: read each file's
    /// first line for its oldest version's time (only once the bound is passed).
    func storedFiles(readingAges: Bool) -> [StoredFile] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        return names.compactMap { storedFile($0, readingAge: readingAges) }
    }

    /// Each history file's name and size (a listing and a stat a file).
    func storedFileSizes() -> [String: Int] {
        let files = storedFiles(readingAges: false).map { file in
            (file.damaged ? Self.damagedName(file.playlistID) : Self.fileName(file.playlistID), file.bytes)
        }
        return Dictionary(files, uniquingKeysWith: { first, _ in first })
    }

    func storedFile(_ name: String, readingAge: Bool) -> StoredFile? {
        var info = stat()
        guard lstat(directory.file(name), &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        if name.hasSuffix(".jsonl"), SpotifyReference.isValidID(String(name.dropLast(6))) {
            let id = String(name.dropLast(6))
            let age = readingAge ? header(id).flatMap(PlaylistVersionBook.oldestSeenAt) : nil
            return StoredFile(playlistID: id, bytes: Int(info.st_size), oldestSeenAt: age ?? 0)
        }
        if name.hasSuffix(".damaged"), SpotifyReference.isValidID(String(name.dropLast(8))) {
            return StoredFile(playlistID: String(name.dropLast(8)), bytes: Int(info.st_size), damaged: true)
        }
        return nil
    }

    /// A playlist file's first line alone (its header: the snapshot_ids kept, the oldest's
    /// time), without reading the rest; nil when there is none.
    func header(_ playlistID: String) -> Data? {
        AppendLog(directory: directory, name: Self.fileName(playlistID)).firstLine(limit: 1 << 16).map {
            Data(($0 + "\n").utf8)
        }
    }

    /// `SPOTIFY_TOOLKIT_HISTORY_SIZE`: bytes, or a number with K, M or G (powers of 1024); 0 keeps no history.
    static func maxTotalBytes(_ text: String?) throws -> Int {
        try CachePolicy.size(text, variable: sizeVariable, example: "512M") ?? defaultMaxTotalBytes
    }

    package var now: Double { clock() }
}
