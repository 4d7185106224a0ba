#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock (flock) on a file, so that only one process at a time refreshes
/// the shared tokens or rewrites a document. Waits without blocking a thread: polls with a short
/// sleep, bounded. The lock file is opened without following symbolic links (a planted link
/// cannot make us create or truncate a file elsewhere) and must be a regular file of ours.
public struct InterProcessLock: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public func withLock<T>(
        timeoutSeconds: Double = 60,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async throws -> T {
        let descriptor = try open()
        defer { close(descriptor) }  // closing releases the lock
        var waited = 0.0
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw ToolError.config("cannot lock \(path): \(systemErrorMessage(errno))")
            }
            guard waited < timeoutSeconds else {
                throw ToolError.tempFail("another spotify-toolkit process has held \(path) for \(Int(timeoutSeconds)) s; try again")
            }
            try? await Task.sleep(nanoseconds: 5_000_000)
            waited += 0.005
        }
        return try await body()
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
