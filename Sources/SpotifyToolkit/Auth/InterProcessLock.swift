#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock (flock) on a file, so that only one process at a time refreshes
/// the shared tokens. Waits without blocking a thread: polls with a short sleep, bounded.
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
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ToolError.config("cannot open lock file \(path): \(systemErrorMessage(errno))")
        }
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
}
