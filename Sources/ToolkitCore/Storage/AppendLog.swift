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

/// A file of lines that many processes append to at once and that one of them now and then trims
/// (the request ledger). Each line goes in with one write(2) on an O_APPEND descriptor, under a
/// shared flock: appenders never wait on each other, and no line is torn or lost. A trim takes the
/// exclusive flock without waiting (an appender mid-write makes it skip, to try at a later append),
/// writes what it keeps beside the file and renames it over; an appender that opened the old file
/// sees, once it holds its lock, that the path names another file now, and opens again.
///
/// The log is a record, never a reason to fail a command: a file that cannot be trusted (a link,
/// another user's, writable by others, not a regular file) is set aside under `NAME.set-aside-TIME`
/// and a new one begun; what cannot be written at all is reported to the caller, who drops it.
package struct AppendLog: Sendable {
    package let directory: PrivateDirectory
    package let name: String

    package init(directory: PrivateDirectory, name: String) {
        self.directory = directory
        self.name = name
    }

    package var path: String { directory.file(name) }

    /// Appends `line` (a newline is added). Returns the file's size after the write, so the
    /// caller can decide to trim. Throws when the directory or file cannot be written.
    @discardableResult
    package func append(_ line: String) throws -> Int {
        try directory.create()
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        // Each retry means a trim replaced the file between our open and our lock; trims come about
        // once an hour, so a few tries are plenty, but a burst of them must not lose the line.
        for _ in 0..<64 {
            let descriptor = try openTrusted(O_WRONLY | O_APPEND | O_CREAT)
            defer { close(descriptor) }
            try lock(descriptor, LOCK_SH)
            // A trim renamed a new file over the one we opened: write to the new one instead.
            guard isStillAtPath(descriptor) else { continue }
            let code = bytes.withUnsafeBytes { ToolkitCore.writeAll(descriptor, $0) }
            if code != 0 { throw SafeFile.failure(code, "cannot write", path) }
            var info = stat()
            return fstat(descriptor, &info) == 0 ? Int(info.st_size) : 0
        }
        throw ToolError.tempFail("\(path) keeps being replaced; a line was not written")
    }

    /// Every line of the log, in the order written (empty when there is none).
    package func lines() throws -> [Substring] {
        guard let data = try readTrusted() else { return [] }
        let text = String(decoding: data, as: UTF8.self)
        return text.split(separator: "\n", omittingEmptySubsequences: true)
    }

    /// Where a reader of the log had reached: the file (its device and inode), the byte after the
    /// last whole line read, and the last bytes read (up to that line's end), which must still be
    /// there for what follows to be what was appended since.
    package struct Position: Sendable, Equatable {
        package var device: UInt64
        package var inode: UInt64
        package var offset: Int
        package var last: [UInt8]
    }

    /// The whole lines appended since a `Position`, in order (all of them without one).
    package struct Appended: Sendable {
        package var lines: [Substring]
        /// Where the next read begins; nil when there is no log.
        package var position: Position?
        /// The lines are the whole log, not what followed `position`: the log is another file now,
        /// is shorter, or its bytes before `position` changed (someone replaced or trimmed it).
        package var restarted: Bool
        /// What follows the last newline, when the log does not end in one: a line not written
        /// whole, or whose newline was lost. Not consumed: the next read begins before it.
        package var unterminated: Substring?
    }

    /// What was appended to the log since `position`: only those bytes are read. When the log is
    /// not the file `position` was in any more, it is read whole (`restarted`). A last line without
    /// its newline is left for a later read. Opened as `lines()` opens it (no link followed, an
    /// untrusted file set aside).
    package func lines(after position: Position?) throws -> Appended {
        var named = stat()
        guard lstat(path, &named) == 0 else {
            return Appended(lines: [], position: nil, restarted: position != nil, unterminated: nil)
        }
        let descriptor = try openTrusted(O_RDONLY)
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw SafeFile.failure(errno, "cannot read", path) }
        let device = UInt64(truncatingIfNeeded: info.st_dev)
        let inode = UInt64(truncatingIfNeeded: info.st_ino)
        var kept: Position?
        if let position, position.device == device, position.inode == inode, position.offset <= Int(info.st_size),
            Self.bytes(descriptor, count: position.last.count, at: position.offset - position.last.count)
                == position.last
        {
            kept = position
        }
        let start = kept?.offset ?? 0
        let data: Data
        do {
            guard lseek(descriptor, off_t(start), SEEK_SET) == off_t(start) else { throw SystemError(code: errno) }
            data = try SafeFile.readAll(descriptor)
        } catch let error as SystemError {
            throw SafeFile.failure(error.code, "cannot read", path)
        }
        let whole = data.lastIndex(of: UInt8(ascii: "\n")).map { data.index(after: $0) } ?? data.startIndex
        let read = data[data.startIndex..<whole]
        let text = String(decoding: read, as: UTF8.self)
        let rest = String(decoding: data[whole...], as: UTF8.self)
        let last =
            read.count >= Self.remembered
            ? Array(read.suffix(Self.remembered)) : Array(((kept?.last ?? []) + read).suffix(Self.remembered))
        return Appended(
            lines: text.split(separator: "\n", omittingEmptySubsequences: true),
            position: Position(device: device, inode: inode, offset: start + read.count, last: last),
            restarted: position != nil && kept == nil, unterminated: rest.isEmpty ? nil : rest[...])
    }

    /// How many of the last bytes read a `Position` keeps, to tell the log was not rewritten.
    static let remembered = 64

    /// `count` bytes at `offset`, or fewer when the file ends first.
    static func bytes(_ descriptor: Int32, count: Int, at offset: Int) -> [UInt8] {
        guard count > 0, offset >= 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = buffer.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress! + filled, count - filled, off_t(offset + filled))
            }
            if got < 0 && errno == EINTR { continue }
            if got <= 0 { break }
            filled += got
        }
        return Array(buffer[0..<filled])
    }

    /// The first line, read without reading the rest; nil when the log is empty or missing.
    package func firstLine(limit: Int = 4096) -> Substring? {
        guard let descriptor = try? SafeFile.open(path, O_RDONLY | O_NONBLOCK) else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, limit, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
        return text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: true).first
    }

    /// Keeps the lines `keep` accepts, in order; false when another process held the log (an
    /// appender mid-write, or another trim), so nothing was done this time.
    @discardableResult
    package func trim(keeping keep: (Substring) -> Bool) throws -> Bool {
        let descriptor = try openTrusted(O_RDWR | O_CREAT)
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EINTR else { return false }
        }
        guard isStillAtPath(descriptor) else { return false }
        let data: Data
        do {
            data = try SafeFile.readAll(descriptor)
        } catch let error as SystemError {
            throw SafeFile.failure(error.code, "cannot read", path)
        }
        var kept = Data()
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where keep(line) {
            kept.append(contentsOf: line.utf8)
            kept.append(UInt8(ascii: "\n"))
        }
        // Written under the lock, so no line appended meanwhile is lost with the old file.
        try AtomicFileWrite(path: path).commit(kept)
        return true
    }

    /// flock(2) that waits through signals (EINTR) rather than losing the line to one.
    func lock(_ descriptor: Int32, _ operation: Int32) throws {
        while flock(descriptor, operation) != 0 {
            guard errno == EINTR else { throw SafeFile.failure(errno, "cannot lock", path) }
        }
    }

    /// Opens the log without following a link; a file that cannot be trusted is set aside and a
    /// new one opened in its place (once).
    func openTrusted(_ flags: Int32) throws -> Int32 {
        for attempt in 0..<2 {
            let descriptor: Int32
            do {
                descriptor = try SafeFile.open(path, flags | O_NONBLOCK, mode: 0o600)
            } catch let error as SystemError {
                // ELOOP: a symbolic link where the log belongs; anything else is a real failure.
                guard error.code == ELOOP || error.code == EISDIR, attempt == 0 else {
                    throw SafeFile.failure(error.code, "cannot open", path)
                }
                try setAside()
                continue
            }
            var info = stat()
            let trusted =
                fstat(descriptor, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
                && FileTrust.file.problem(
                    ownerID: info.st_uid, mode: info.st_mode, userID: geteuid(), userName: "", path: path) == nil
            if trusted { return descriptor }
            close(descriptor)
            guard attempt == 0 else { break }
            try setAside()
        }
        throw ToolError.config("cannot use \(path): it cannot be trusted and could not be set aside")
    }

    func readTrusted() throws -> Data? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        let descriptor = try openTrusted(O_RDONLY)
        defer { close(descriptor) }
        do {
            return try SafeFile.readAll(descriptor)
        } catch let error as SystemError {
            throw SafeFile.failure(error.code, "cannot read", path)
        }
    }

    /// Moves what is at the log's path out of the way, keeping it for a person to look at.
    func setAside() throws {
        let aside = "\(path).set-aside-\(Int(Date().timeIntervalSince1970))"
        guard rename(path, aside) == 0 || errno == ENOENT else {
            throw SafeFile.failure(errno, "cannot set aside", path)
        }
    }

    /// Whether `descriptor` is still the file at the log's path (a trim did not replace it).
    func isStillAtPath(_ descriptor: Int32) -> Bool {
        var open = stat()
        var named = stat()
        guard fstat(descriptor, &open) == 0, lstat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }
}
