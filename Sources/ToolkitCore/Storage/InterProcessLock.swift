#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock (flock) on a file, so that only one process at a time refreshes
/// the shared tokens or rewrites a document. Waits without blocking a thread: polls with a short
/// sleep, bounded. The lock file is opened without following symbolic links (a planted link
/// cannot make us create or truncate a file elsewhere) and must be a regular file of ours.
package struct InterProcessLock: Sendable {
    package let path: String

    package init(path: String) {
        self.path = path
    }

    /// Runs `body` holding the lock; waits for it up to `timeoutSeconds` (then exit 75).
    package func withLock<T>(
        timeoutSeconds: Double = 60,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async throws -> T {
        let descriptor = try open()
        defer { close(descriptor) }  // closing releases the lock
        var waited = 0.0
        while try !tryLock(descriptor, waited: waited, timeoutSeconds: timeoutSeconds) {
            try? await Task.sleep(nanoseconds: 5_000_000)
            waited += 0.005
        }
        return try await body()
    }

    /// Runs `body` holding the lock if no one holds it now; nil (without running it) when someone does.
    package func withLockIfFree<T>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async throws -> T? {
        let descriptor = try open()
        defer { close(descriptor) }  // closing releases the lock
        guard try tryLock(descriptor, waited: 0, timeoutSeconds: 1) else { return nil }
        return try await body()
    }

    /// `withLock` for synchronous work (a document update): the thread sleeps while it waits.
    package func withLockBlocking<T>(timeoutSeconds: Double = 60, _ body: () throws -> T) throws -> T {
        let descriptor = try open()
        defer { close(descriptor) }
        var waited = 0.0
        while try !tryLock(descriptor, waited: waited, timeoutSeconds: timeoutSeconds) {
            usleep(5_000)
            waited += 0.005
        }
        return try body()
    }

    /// One attempt: true when the lock is ours; false to wait; throws on failure or when the wait is over.
    private func tryLock(_ descriptor: Int32, waited: Double, timeoutSeconds: Double) throws -> Bool {
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
        guard errno == EWOULDBLOCK || errno == EINTR else {
            throw ToolError.config("cannot lock \(path): \(systemErrorMessage(errno))")
        }
        guard waited < timeoutSeconds else {
            throw ToolError.tempFail(
                "another spotify-toolkit process has held \(path) for \(Int(saturating: timeoutSeconds)) s; try again")
        }
        return false
    }

    func open() throws -> Int32 {
        let descriptor: Int32
        do {
            descriptor = try SafeFile.open(path, O_RDWR | O_CREAT, mode: 0o600)
        } catch let error as SystemError {
            throw SafeFile.failure(error.code, "cannot open lock file", path)
        }
        var info = stat()
        do {
            guard fstat(descriptor, &info) == 0 else { throw SafeFile.failure(errno, "cannot open lock file", path) }
            try SafeFile.requireRegularFile(info, path: path)
            try FileTrust.file.verify(info, path: path)
        } catch {
            close(descriptor)
            throw error
        }
        return descriptor
    }
}
