/// The non-blank lines of an input as they arrive, each turned into an element, read on a thread
/// of its own so that a tool can start on the first line while the rest still arrives (the next
/// stage of a pipeline starts with the previous one's first page, not after its last), without a
/// blocking read(2) holding one of the few threads Swift concurrency runs on.
///
/// At most `capacity` elements wait to be taken: the reading thread stops reading until there is
/// room, so memory stays bounded however long the input. An error (a line `transform` rejects, a
/// read failure) is handed over in its turn, after the elements before it; nothing is read after
/// it. `stop()` ends the reading at the next line or room (a blocked read(2) itself ends only with
/// its input, or with the process).
package final class LineFeed<Element: Sendable>: @unchecked Sendable {  // all state behind `condition`
    /// What `poll` finds.
    package enum Next {
        case element(Element)
        /// Nothing yet, but more may come.
        case pending
        /// The input has ended and everything was taken.
        case end
    }

    private let condition = PlainCondition()
    private var queue: [Element] = []
    private var head = 0
    private var failure: (any Error)?
    private var ended = false
    private var stopped = false
    private var produced = 0
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var lastWaiter = 0
    let capacity: Int

    /// Starts reading `fileDescriptor` (not owned: never closed). `transform` gets each non-blank
    /// line's number and text; what it throws ends the feed there.
    package init(
        fileDescriptor: Int32, displayName: String?, capacity: Int = 256,
        transform: @escaping @Sendable (_ lineNumber: Int, _ line: String) throws -> Element
    ) {
        self.capacity = max(1, capacity)
        detachThread { [self] in
            var reader = JSONLinesReader(fileDescriptor: fileDescriptor, displayName: displayName)
            do {
                try reader.forEachLine { number, bytes in
                    let element = try transform(number, String(decoding: bytes, as: UTF8.self))
                    return self.push(element)
                }
                finish(nil)
            } catch {
                finish(error)
            }
        }
    }

    /// Hands `element` over, waiting for room; false once stopped.
    private func push(_ element: Element) -> Bool {
        condition.lock()
        while queue.count - head >= capacity && !stopped { condition.wait() }
        let open = !stopped
        if open {
            queue.append(element)
            produced += 1
        }
        let woken = takeWaiters()
        condition.unlock()
        for waiter in woken { waiter.resume() }
        return open
    }

    private func finish(_ error: (any Error)?) {
        condition.lock()
        ended = true
        if !stopped { failure = error }
        let woken = takeWaiters()
        condition.unlock()
        for waiter in woken { waiter.resume() }
    }

    /// Under the lock.
    private func takeWaiters() -> [CheckedContinuation<Void, Never>] {
        defer { waiters.removeAll() }
        return Array(waiters.values)
    }

    /// Under the lock: whether `poll` would find something other than `.pending`.
    private var settled: Bool { head < queue.count || ended || stopped }

    /// Takes the next element if one has arrived; throws the feed's error in its turn.
    package func poll() throws -> Next {
        condition.lock()
        defer { condition.unlock() }
        if head < queue.count {
            let element = queue[head]
            head += 1
            if head >= 64 && head * 2 >= queue.count {
                queue.removeFirst(head)
                head = 0
            }
            condition.broadcast()  // room for the reader
            return .element(element)
        }
        if let failure {
            self.failure = nil
            stopped = true
            throw failure
        }
        return ended || stopped ? .end : .pending
    }

    /// Returns once `poll` would not answer `.pending` (an element, the end, an error), or when
    /// the task is cancelled.
    package func waitForMore() async {
        guard let id = newWaiter() else { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if !park(continuation, id: id) { continuation.resume() }
            }
        } onCancel: {
            unpark(id)?.resume()
        }
    }

    /// A waiter's id, or nil when there is no need to wait.
    private func newWaiter() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        guard !settled else { return nil }
        lastWaiter += 1
        return lastWaiter
    }

    /// Keeps the continuation until something arrives; false when that already happened.
    private func park(_ continuation: CheckedContinuation<Void, Never>, id: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !settled && !Task.isCancelled else { return false }
        waiters[id] = continuation
        return true
    }

    private func unpark(_ id: Int) -> CheckedContinuation<Void, Never>? {
        condition.lock()
        defer { condition.unlock() }
        return waiters.removeValue(forKey: id)
    }

    /// The next element, waiting for it; nil at the end.
    package func next() async throws -> Element? {
        while true {
            switch try poll() {
            case .element(let element): return element
            case .end: return nil
            case .pending:
                await waitForMore()
                try Task.checkCancellation()
            }
        }
    }

    /// Waits until the first line has arrived (or the input ended): false when the input held
    /// none; the first line's error is thrown now. Takes nothing.
    package func awaitFirst() async throws -> Bool {
        while true {
            await waitForMore()
            try Task.checkCancellation()
            if let first = try firstState() { return first }
        }
    }

    /// Whether anything arrived (nil: not known yet); the first line's error is thrown.
    private func firstState() throws -> Bool? {
        condition.lock()
        defer { condition.unlock() }
        if head < queue.count || produced > 0 { return true }
        if let failure {
            self.failure = nil
            stopped = true
            throw failure
        }
        return ended || stopped ? false : nil
    }

    /// Stops reading: what is queued is dropped, and the reading thread ends at its next line.
    package func stop() {
        condition.lock()
        stopped = true
        queue.removeAll()
        head = 0
        condition.broadcast()
        let woken = takeWaiters()
        condition.unlock()
        for waiter in woken { waiter.resume() }
    }
}
