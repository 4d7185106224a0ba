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

// The file primitives every store uses (tokens, config, documents, locks), so each gets the same
// safety: no symbolic link is followed when opening, no descriptor leaks into child processes,
// files are private from their first byte and replaced atomically, and a directory or file another
// user could tamper with is refused (exit 78) with the command that fixes it.

/// An errno value, for the few places that branch on it before turning it into a ToolError.
struct SystemError: Error {
    var code: Int32
}

enum SafeFile {
    /// open(2) that never follows a symbolic link in the last component and is close-on-exec;
    /// retries EINTR. Throws `SystemError`.
    static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o600) throws -> Int32 {
        while true {
            #if canImport(Glibc)
            let descriptor = Glibc.open(path, flags | O_NOFOLLOW | O_CLOEXEC, mode)
            #else
            let descriptor = Darwin.open(path, flags | O_NOFOLLOW | O_CLOEXEC, mode)
            #endif
            if descriptor >= 0 { return descriptor }
            if errno != EINTR { throw SystemError(code: errno) }
        }
    }

    /// The whole of the file at `path`; nil when it does not exist. Refuses (exit 78) a symbolic
    /// link, anything but a regular file, and a file `trust` rejects.
    static func read(_ path: String, trust: FileTrust) throws -> Data? {
        let descriptor: Int32
        do {
            // O_NONBLOCK: a FIFO planted here must not hang the tool in open(2).
            descriptor = try open(path, O_RDONLY | O_NONBLOCK)
        } catch let error as SystemError {
            if error.code == ENOENT { return nil }
            throw failure(error.code, "cannot read", path)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure(errno, "cannot read", path) }
        try requireRegularFile(info, path: path)
        try trust.verify(info, path: path)
        do {
            return try readAll(descriptor)
        } catch let error as SystemError {
            throw failure(error.code, "cannot read", path)
        }
    }

    /// Refuses a directory, device or FIFO where a file belongs, with what to do about it.
    static func requireRegularFile(_ info: stat, path: String) throws {
        let type = info.st_mode & S_IFMT
        guard type != S_IFREG else { return }
        let what = type == S_IFDIR ? "a directory" : "not a regular file"
        throw ToolError.config(
            """
            \(path) is \(what); move it out of the way (mv \(shellQuoted(path)) \(shellQuoted(path + ".old"))) and \
            try again
            """
        )
    }

    static func readAll(_ descriptor: Int32) throws -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError(code: errno)
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    /// Writes every byte at `offset`, retrying EINTR and short writes.
    static func writeAll(_ descriptor: Int32, _ data: Data, at offset: Int = 0) throws {
        let code = data.withUnsafeBytes { ToolkitCore.writeAll(descriptor, $0, using: .positioned(at: offset)) }
        if code != 0 { throw SystemError(code: code) }
    }

    /// A ToolError for a failed file operation: permission-like failures are configuration
    /// problems (78); everything else (a full disk, an I/O error) is an I/O error (74).
    static func failure(_ code: Int32, _ what: String, _ path: String) -> ToolError {
        let message = "\(what) \(path): \(systemErrorMessage(code))"
        switch code {
        case EACCES, EPERM, EROFS, ELOOP, ENOTDIR, EISDIR:
            return ToolError.config(
                code == ELOOP
                    ? message + " (a symbolic link; spotify-toolkit does not follow links to its files)" : message)
        default:
            return ToolError.ioError(message)
        }
    }

    /// fsync on the directory, so a rename in it survives a crash.
    static func syncDirectory(of path: String) {
        let directory = parentPath(path)
        // Plain open: the directory itself may be a symbolic link (dotfile managers make them).
        #if canImport(Glibc)
        let descriptor = Glibc.open(directory.isEmpty ? "." : directory, O_RDONLY | O_CLOEXEC)
        #else
        let descriptor = Darwin.open(directory.isEmpty ? "." : directory, O_RDONLY | O_CLOEXEC)
        #endif
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}

/// The directory `path` is in, as `NSString.deletingLastPathComponent` gives it: "/a/b/c" → "/a/b",
/// "/a/b/" → "/a", "/a" → "/", "/" → "/", "a" → "" (FoundationEssentials has no `NSString`).
func parentPath(_ path: String) -> String {
    var trimmed = Substring(path)
    while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
    guard let slash = trimmed.lastIndex(of: "/") else { return "" }
    var parent = trimmed[..<slash]
    while parent.count > 1 && parent.hasSuffix("/") { parent.removeLast() }
    return parent.isEmpty ? "/" : String(parent)
}

/// read(2) under a name that does not clash with the methods called `read` around it.
@inline(__always)
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.read(descriptor, buffer, count)
    #else
    Darwin.read(descriptor, buffer, count)
    #endif
}

/// Replaces a file atomically: the content goes to a temporary file beside it (created
/// O_EXCL|O_NOFOLLOW, mode 0600, so it is private from its first byte), which is synced and then
/// renamed over the file. A reader sees the old file or the new one, never half of one, even
/// after kill -9 or a crash.
///
/// `begin` creates the temporary file and reserves room first, so a full disk or a read-only
/// directory shows *before* the caller does something it cannot undo (a token refresh):
///
///     let pending = try AtomicFileWrite(path: path, reserving: old.count + 4096)
///     let new = try await somethingIrreversible()
///     try pending.commit(new)
package final class AtomicFileWrite {
    package let path: String
    let temporaryPath: String
    private var descriptor: Int32
    private var isCommitted = false
    /// false: renamed without fsync, for what is worth nothing after a crash (a watch's latest
    /// poll, rewritten every few seconds): a reader still sees the old file or the new one.
    let durable: Bool

    package init(path: String, reserving bytes: Int = 0, durable: Bool = true) throws {
        self.path = path
        self.durable = durable
        temporaryPath = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        do {
            descriptor = try SafeFile.open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
        } catch let error as SystemError {
            throw SafeFile.failure(error.code, "cannot write", path)
        }
        guard bytes > 0 else { return }
        do {
            // Real blocks, not a sparse hole: the commit then rewrites space already allocated.
            try SafeFile.writeAll(descriptor, Data(count: bytes))
            guard fsync(descriptor) == 0 else { throw SystemError(code: errno) }
        } catch let error as SystemError {
            cancel()
            throw SafeFile.failure(error.code, "cannot write", path)
        }
    }

    deinit { cancel() }

    /// Writes `data`, syncs it and renames it over `path`. The write is finished either way.
    package func commit(_ data: Data) throws {
        guard descriptor >= 0 else { throw ToolError.software("write to \(path) committed twice or after cancel") }
        do {
            try SafeFile.writeAll(descriptor, data)
            guard ftruncate(descriptor, off_t(data.count)) == 0, !durable || fsync(descriptor) == 0 else {
                throw SystemError(code: errno)
            }
            close(descriptor)
            descriptor = -1
            guard rename(temporaryPath, path) == 0 else { throw SystemError(code: errno) }
            isCommitted = true
        } catch let error as SystemError {
            cancel()
            throw SafeFile.failure(error.code, "cannot write", path)
        }
        if durable { SafeFile.syncDirectory(of: path) }
    }

    /// Drops the temporary file; `path` is untouched. Idempotent; does nothing after a commit.
    package func cancel() {
        guard !isCommitted else { return }
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        unlink(temporaryPath)
    }

    /// Replaces the file at `path` with `data` in one step.
    package static func write(_ data: Data, to path: String) throws {
        try AtomicFileWrite(path: path).commit(data)
    }
}

/// A directory of the toolkit's (config, data, cache) that only its owner can use: created 0700,
/// never wider, not even for a moment; an existing one is used only when it can be trusted
/// (`FileTrust.directory`). Every file in it is read and written through `SafeFile`.
package struct PrivateDirectory: Sendable {
    package let path: String

    package init(_ path: String) {
        self.path = path
    }

    /// `path/name`.
    package func file(_ name: String) -> String { path + "/" + name }

    /// `name` must name a file in this directory, never one elsewhere: a name made from what a
    /// server sent (a playlist id `../../config/x`) must not lead out of it.
    func checked(_ name: String) throws -> String {
        guard !name.isEmpty, !name.contains("/"), name != ".", name != "..", !name.contains("\0") else {
            throw ToolError.dataError("'\(name.prefix(120))' is not a file name in \(path); nothing was written there")
        }
        return name
    }

    /// Creates the directory (and missing parents), or checks that an existing one can be trusted.
    package func create() throws {
        if try verifyIfPresent() { return }
        // Missing parents are made 0700 too (as the XDG spec asks), whatever the umask: a parent
        // others could write would be refused by `verifyParents`.
        var missing: [String] = []
        var parent = parentPath(path)
        while !parent.isEmpty && parent != "/" && !FileManager.default.fileExists(atPath: parent) {
            missing.append(parent)
            parent = parentPath(parent)
        }
        for directory in missing.reversed() where mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw ToolError.config("cannot create \(directory): \(systemErrorMessage(errno))")
        }
        // mkdir with 0700: the umask can only take bits away, so it is never wider than 0700.
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw SafeFile.failure(errno, "cannot create", path)
        }
        try verifyIfPresent()
    }

    /// Checks that the directory, if it exists, is a directory that can be trusted; false when it
    /// does not exist. A symbolic link to a directory is fine (dotfile managers make them) when it
    /// is yours or root's; the directory it leads to is what is checked. Its parents are checked
    /// as ssh's StrictModes does (see `FileTrust.parentProblem`).
    @discardableResult
    package func verifyIfPresent() throws -> Bool {
        var link = stat()
        guard lstat(path, &link) == 0 else {
            if errno == ENOENT { return false }
            throw SafeFile.failure(errno, "cannot use", path)
        }
        if link.st_mode & S_IFMT == S_IFLNK, let problem = FileTrust.linkProblem(ownerID: link.st_uid, path: path) {
            throw ToolError.config(problem)
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return false }
            throw SafeFile.failure(errno, "cannot use", path)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw ToolError.config("\(path) exists and is not a directory") }
        try FileTrust.directory.verify(info, path: path)
        try verifyParents()
        return true
    }

    /// Every directory above this one: another user must not be able to swap it (or what is in it)
    /// for their own.
    func verifyParents() throws {
        var parent = parentPath(path)
        while !parent.isEmpty {
            var info = stat()
            if stat(parent, &info) == 0,
                let problem = FileTrust.parentProblem(
                    ownerID: info.st_uid, mode: info.st_mode, userID: geteuid(), parent: parent, path: path)
            {
                throw ToolError.config(problem)
            }
            if parent == "/" { break }
            parent = parentPath(parent)
        }
    }

    /// The file's content; nil when the directory or the file does not exist.
    package func read(_ name: String, trust: FileTrust) throws -> Data? {
        let name = try checked(name)
        guard try verifyIfPresent() else { return nil }
        return try SafeFile.read(file(name), trust: trust)
    }

    /// Starts replacing `name` (see `AtomicFileWrite`), creating the directory first and sweeping
    /// what killed writers of `name` left behind.
    package func beginWrite(_ name: String, reserving bytes: Int = 0) throws -> AtomicFileWrite {
        let name = try checked(name)
        try create()
        sweepStaleTemporaries(of: name)
        return try AtomicFileWrite(path: file(name), reserving: bytes)
    }

    /// Replaces `name` with `data` atomically, creating the directory first. `durable: false`
    /// skips the fsyncs, for a file rewritten every few seconds that a crash may lose.
    /// `sweeping: false` leaves stale temporaries of `name` for a writer that sweeps the whole
    /// directory once (sweeping lists the directory: at every write of a directory of many files,
    /// that is quadratic).
    package func write(_ data: Data, to name: String, durable: Bool = true, sweeping: Bool = true) throws {
        let name = try checked(name)
        try create()
        if sweeping { sweepStaleTemporaries(of: name) }
        try AtomicFileWrite(path: file(name), durable: durable).commit(data)
    }

    /// Removes what writers killed mid-write (kill -9, power loss) left of `name` (nil: of any
    /// file): its temporary files (`name.tmp-PID-N`, see `AtomicFileWrite`) older than `seconds`,
    /// ours and regular only. Best effort: a file that cannot be removed stays.
    package func sweepStaleTemporaries(of name: String?, olderThan seconds: Double = 3600) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
        let now = Date().timeIntervalSince1970
        for entry in entries where name.map({ entry.hasPrefix($0 + ".tmp-") }) ?? entry.contains(".tmp-") {
            var info = stat()
            guard lstat(file(entry), &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid()
            else { continue }
            #if canImport(Darwin)
            let modified = Double(info.st_mtimespec.tv_sec)
            #else
            let modified = Double(info.st_mtim.tv_sec)
            #endif
            guard now - modified > seconds else { continue }
            unlink(file(entry))
        }
    }

    /// Removes `name`; idempotent. A directory where the file belongs is refused, with the same
    /// advice reading it gives.
    package func remove(_ name: String) throws {
        let target = file(try checked(name))
        guard unlink(target) != 0 else { return }
        let code = errno
        if code == ENOENT { return }
        var info = stat()
        if code == EISDIR || code == EPERM, lstat(target, &info) == 0 {
            try SafeFile.requireRegularFile(info, path: target)
        }
        throw SafeFile.failure(code, "cannot remove", target)
    }

    /// An exclusive lock on the file `name` (created on first use), after creating the directory.
    package func lock(_ name: String) throws -> InterProcessLock {
        let name = try checked(name)
        try create()
        return InterProcessLock(path: file(name))
    }
}
