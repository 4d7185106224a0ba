#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a `PlainLock`; every access goes through `withLock`.
///
/// `@unchecked Sendable` is sound because `value` is only read or written while `lock` is held.
/// (`Mutex` from Synchronization would need macOS 15; the package targets macOS 13.)
package final class Locked<Value: Sendable>: @unchecked Sendable {
    @usableFromInline let lock = PlainLock()
    @usableFromInline var value: Value

    @inlinable package init(_ value: Value) { self.value = value }

    /// Inlinable: the pager's `InFlightLimit` takes it on every request.
    @inlinable package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// A pthread mutex, what Foundation's `NSLock` is (which FoundationEssentials does not have).
/// Not recursive; `lock` and `unlock` pair on one thread.
package final class PlainLock: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inlinable package func lock() { pthread_mutex_lock(mutex) }
    @inlinable package func unlock() { pthread_mutex_unlock(mutex) }

    @inlinable package func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A pthread condition on a `PlainLock` (NSCondition's lock, unlock, wait and broadcast): what a
/// thread that hands work to another waits on, without Foundation.
final class PlainCondition: @unchecked Sendable {
    private let mutex = PlainLock()
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    func lock() { mutex.lock() }
    func unlock() { mutex.unlock() }
    /// Waits for a `broadcast`, with the lock held (released while waiting).
    func wait() { pthread_cond_wait(condition, mutex.mutex) }
    func broadcast() { pthread_cond_broadcast(condition) }
}
