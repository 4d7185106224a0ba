import Foundation

/// A value behind an `NSLock`; every access goes through `withLock`.
///
/// `@unchecked Sendable` is sound because `value` is only read or written while `lock` is held.
/// (`Mutex` from Synchronization would need macOS 15; the package targets macOS 13.)
package final class Locked<Value: Sendable>: @unchecked Sendable {
    @usableFromInline let lock = NSLock()
    @usableFromInline var value: Value

    @inlinable package init(_ value: Value) { self.value = value }

    /// `NSLocking.withLock` spelled out, so nothing depends on its SDK availability on macOS 13.
    /// Inlinable: the pager's `InFlightLimit` takes it on every request.
    @inlinable package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
