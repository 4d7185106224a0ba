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

/// The playlist items cache on disk: `$XDG_CACHE_HOME/spotify-toolkit/playlists/ID.jsonl`, one
/// entry per playlist (the latest snapshot fetched), in the format of `CacheEntryFormat`.
///
/// Files follow the token store's rules (`Storage/`): directories 0700 and the user's own, entries
/// 0600 and the user's own, never reached through a symbolic link; anything else is refused
/// (exit 78) with the command that fixes it. Entries are replaced atomically (temporary file,
/// rename), so two runs filling the same entry at once each leave a whole one, and a reader sees
/// the old or the new file, never half. Entries are touched when printed from, and the least
/// recently used go first when the directory outgrows `maxBytes` (`store`).
///
/// Entries belong to the account that fetched them (`account`, written in each header): a private
/// playlist one account read is never printed to another, whose own request might be refused.
package struct PlaylistCache: Sendable {
    package let root: PrivateDirectory
    package let directory: PrivateDirectory
    package let maxBytes: Int
    /// Who this run reads as (`account(environment:store:)`); entries of anyone else are absent.
    package let account: String?
    let clock: @Sendable () -> Double
    /// This run's view of the directory (shared by the copies of this value).
    let inventory = Inventory()

    package init(
        environment: ToolEnvironment, account: String? = nil,
        clock: @escaping @Sendable () -> Double
    ) throws {
        root = PrivateDirectory(environment.cacheDirectory)
        directory = PrivateDirectory(environment.cacheDirectory + "/playlists")
        maxBytes = try CachePolicy.maxBytes(environment[CachePolicy.sizeVariable])
        self.account = account
        self.clock = clock
    }

    /// The owner of the entries this run may see: the logged-in user's Spotify id, or for
    /// `SPOTIFY_ACCESS_TOKEN` a digest of that token (a token belongs to one account, which we
    /// cannot name without a request). nil when neither is known (not logged in, or a login
    /// stored before user ids were): the cache is then neither read nor written.
    /// The account of the login the environment's token store holds.
    package static func account(environment: ToolEnvironment) throws -> String? {
        try account(environment: environment, store: TokenStores.make(environment: environment))
    }

    package static func account(environment: ToolEnvironment, store: TokenStore) throws -> String? {
        if let token = environment[TokenProvider.accessTokenVariable] {
            return "token:" + SHA256.hex(SHA256.hash(Array(token.utf8)).prefix(16))
        }
        return try store.load()?.userID.flatMap { $0.isEmpty ? nil : "user:" + $0 }
    }

    /// Removes every cache entry (`spotify-auth logout`: what a login fetched goes with it), and
    /// the playlists directory when that empties it. Only names the cache writes are removed, in a
    /// directory that can be trusted; the number of entries removed.
    @discardableResult
    package static func removeAll(environment: ToolEnvironment) throws -> Int {
        let directory = PrivateDirectory(environment.cacheDirectory + "/playlists")
        guard try PrivateDirectory(environment.cacheDirectory).verifyIfPresent(), try directory.verifyIfPresent(),
            let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path)
        else { return 0 }
        var removed = 0
        for name in names {
            if isEntryName(name) {
                try directory.remove(name)
                removed += 1
            } else if isTemporaryOfEntry(name) {
                try directory.remove(name)
            }
        }
        _ = rmdir(directory.path)  // only if empty: anything else in it is not ours to delete
        try? PrivateDirectory(environment.cacheDirectory).remove(PlaylistNameIndex.fileName)
        return removed
    }

    package var now: Double { clock() }

    static func fileName(_ playlistID: String) -> String { playlistID + ".jsonl" }

    /// `ID.jsonl` for a valid playlist id: the only files the cache counts, evicts or removes, so
    /// anything else in its directory (a planted link's target, say) is never deleted.
    static func isEntryName(_ name: String) -> Bool {
        name.hasSuffix(".jsonl") && SpotifyReference.isValidID(String(name.dropLast(6)))
    }

    /// A temporary file of an entry being written (`ID.jsonl.tmp-PID-N`).
    static func isTemporaryOfEntry(_ name: String) -> Bool {
        guard let stem = name.split(separator: ".tmp-", maxSplits: 1).first, stem.count < name.count else {
            return false
        }
        return isEntryName(String(stem))
    }

    package func path(of playlistID: String) -> String { directory.file(Self.fileName(playlistID)) }

    /// A cached entry that passed `CacheEntryFormat.validate`.
    package struct Entry: Sendable {
        package var data: Data
        package var validated: CacheEntryFormat.Validated
        package var header: CacheEntryHeader { validated.header }
    }

    package enum Lookup: Sendable {
        case absent
        /// There is a file, but it cannot be believed; it will be refetched and replaced.
        case damaged(path: String, reason: String)
        case entry(Entry)

        package var entry: Entry? {
            if case .entry(let entry) = self { return entry }
            return nil
        }
    }

    /// The entry for a playlist. Throws (78) only when the directory or the file may not be
    /// trusted; anything unreadable or malformed is `.damaged`.
    package func load(_ playlistID: String) throws -> Lookup {
        guard SpotifyReference.isValidID(playlistID) else { return .absent }  // never a path from input
        guard try root.verifyIfPresent() else { return .absent }
        let data: Data?
        do {
            data = try directory.read(Self.fileName(playlistID), trust: .secret)
        } catch let error as ToolError where error.exitCode == .ioError {
            return .damaged(path: path(of: playlistID), reason: error.message)
        }
        guard let data else { return .absent }
        let validated: CacheEntryFormat.Validated
        do {
            validated = try CacheEntryFormat.validate(data, playlistID: playlistID)
        } catch is CacheEntryFormat.Outdated {
            return .absent  // replaced by the next fetch, quietly: an upgrade is not damage
        } catch {
            return .damaged(path: path(of: playlistID), reason: "\(error)")
        }
        // Another account's copy (or one without an owner) is as good as none: it is fetched
        // afresh under this account and replaced.
        guard account != nil, validated.header.account == account else { return .absent }
        return .entry(Entry(data: data, validated: validated))
    }

    /// Marks an entry as just used, for least-recently-used eviction; an entry this run used is
    /// never evicted by it.
    func touch(_ playlistID: String) {
        _ = utimensat(AT_FDCWD, path(of: playlistID), nil, AT_SYMLINK_NOFOLLOW)
        inventory.used(Self.fileName(playlistID), at: now)
    }

    /// Keeps the playlist's entry: where the cache records a new snapshot of a playlist (a fetch
    /// proven whole under `header.snapshotID`). Written sequentially into a temporary file and
    /// renamed over the old entry in one step, without fsync: a copy a crash cuts short fails its
    /// checksum and is fetched again. Least recently used entries that this run has not used are
    /// evicted to make room; when only this run's own entries could make room, nothing is written
    /// (false), so a run never evicts what it is reading: a library larger than the bound keeps
    /// its first playlists, and every later run hits those. False too when the entry alone is
    /// larger than the bound.
    @discardableResult
    package func store(_ header: CacheEntryHeader, body: [UInt8], count: Int) throws -> Bool {
        // Nobody to own it, or not a playlist id (never a path from what a server sent).
        guard let account, SpotifyReference.isValidID(header.playlistID) else { return false }
        var header = header
        header.account = account
        let data = CacheEntryFormat.encode(header, body: body, count: count)
        guard data.count <= maxBytes else { return false }
        let name = Self.fileName(header.playlistID)
        try inventory.scanOnce(self)
        guard let victims = inventory.room(for: name, bytes: data.count, maxBytes: maxBytes) else { return false }
        try AtomicFileWrite(path: directory.file(name), durable: false).commit(data)
        inventory.stored(name, bytes: data.count, at: now)
        for victim in victims {
            try? directory.remove(victim)
            inventory.removed(victim)
        }
        return true
    }

    /// What the cache directory holds, listed once per run (at the first store) and kept up to
    /// date by this run's stores, evictions and reads: filling the cache never lists the
    /// directory again or stats its entries per store.
    final class Inventory: Sendable {
        struct State {
            var scanned = false
            var files: [String: CachePolicy.StoredFile] = [:]
            /// Entries this run wrote or printed from: never evicted by this run.
            var used: Set<String> = []
        }
        let state = Locked(State())

        /// Lists the directory the first time only: every entry's size and last use; temporary
        /// files an interrupted run left behind (older than an hour: a live writer finishes long
        /// before) are removed.
        func scanOnce(_ cache: PlaylistCache) throws {
            guard !state.withLock({ $0.scanned }) else { return }
            try cache.root.create()
            try cache.directory.create()
            var files: [String: CachePolicy.StoredFile] = [:]
            let now = cache.now
            for name in (try? FileManager.default.contentsOfDirectory(atPath: cache.directory.path)) ?? [] {
                var info = stat()
                guard lstat(cache.directory.file(name), &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
                #if canImport(Darwin)
                let time = info.st_mtimespec
                #else
                let time = info.st_mtim
                #endif
                let modified = Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
                if PlaylistCache.isTemporaryOfEntry(name) {
                    if now - modified > 3600 { try? cache.directory.remove(name) }
                    continue
                }
                guard PlaylistCache.isEntryName(name) else { continue }
                files[name] = CachePolicy.StoredFile(name: name, bytes: Int(info.st_size), lastUsed: modified)
            }
            state.withLock { state in
                state.scanned = true
                // What this run did before the scan stands.
                for (name, file) in files where state.files[name] == nil { state.files[name] = file }
            }
        }

        func room(for name: String, bytes: Int, maxBytes: Int) -> [String]? {
            state.withLock { state in
                CachePolicy.evictions(
                    Array(state.files.values), adding: name, bytes: bytes, maxBytes: maxBytes, protected: state.used)
            }
        }

        func stored(_ name: String, bytes: Int, at time: Double) {
            state.withLock { state in
                state.files[name] = CachePolicy.StoredFile(name: name, bytes: bytes, lastUsed: time)
                state.used.insert(name)
            }
        }

        func used(_ name: String, at time: Double) {
            state.withLock { state in
                state.files[name]?.lastUsed = time
                state.used.insert(name)
            }
        }

        func removed(_ name: String) {
            _ = state.withLock { $0.files.removeValue(forKey: name) }
        }
    }
}
