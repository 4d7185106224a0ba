#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thrown when the reader of our output went away (EPIPE, with SIGPIPE ignored). The tool runner
/// exits quietly on it, as `head` users expect.
package struct BrokenPipe: Error, Sendable, Equatable {
    package init() {}
}

/// Buffered output of JSON Lines records (and human-readable text) to a file descriptor,
/// normally standard output.
///
/// Writes go out when the buffer is full, on `flush()`, after every record or text when
/// `flushesEachRecord` is set (an interactive source: a watch, a filter of a live stream), and at
/// each `endBatch()` when `flushesAtBatchEnd` is set. That is the one policy every tool's output
/// follows (`ToolContext` sets it): a producer marks the end of each unit that took a wait (a page,
/// a record that cost a request) with `endBatch()`, and when a reader may be waiting for it (a
/// pipe, a socket, a terminal) it goes on at once, so the stages of a pipeline overlap and `| head`
/// stops the producer early; into a file it stays buffered. Partial writes and EINTR
/// are handled; EAGAIN on a non-blocking descriptor waits with poll(2). EPIPE throws
/// `BrokenPipe`; other failures throw `ToolError.ioError("write to NAME failed: <reason>")`.
/// After a failed write the buffered bytes are discarded.
///
/// Call `flush()` before exiting: deinit flushes too, but can only ignore errors.
package final class JSONLinesWriter {
    package let fileDescriptor: Int32
    /// Names the destination in error messages.
    package let name: String
    package var flushesEachRecord: Bool
    /// `endBatch()` writes out what is buffered.
    package var flushesAtBatchEnd: Bool
    private let bufferCapacity: Int
    private var buffer: [UInt8]

    package init(
        fileDescriptor: Int32 = 1, name: String = "standard output", flushesEachRecord: Bool = false,
        flushesAtBatchEnd: Bool = false, bufferCapacity: Int = 64 << 10
    ) {
        self.fileDescriptor = fileDescriptor
        self.name = name
        self.flushesEachRecord = flushesEachRecord
        self.flushesAtBatchEnd = flushesAtBatchEnd
        self.bufferCapacity = max(bufferCapacity, 1)
        buffer = []
        buffer.reserveCapacity(self.bufferCapacity + 256)
    }

    deinit {
        try? flush()
    }

    /// Writes `value` as one compact JSON line.
    package func write(_ value: JSONValue) throws {
        value.serialize(into: &buffer)
        buffer.append(UInt8(ascii: "\n"))
        try didAppend()
    }

    /// Writes `bytes` (e.g. an input line passed through unchanged) followed by `\n`.
    package func writeLine(_ bytes: UnsafeRawBufferPointer) throws {
        if bytes.count >= bufferCapacity {
            // Large: no point copying it through the buffer.
            try flush()
            try writeAll(bytes)
            var newline = UInt8(ascii: "\n")
            try withUnsafeBytes(of: &newline) { try writeAll($0) }
            return
        }
        if buffer.count + bytes.count + 1 > bufferCapacity { try flush() }
        buffer.append(contentsOf: bytes)
        buffer.append(UInt8(ascii: "\n"))
        try didAppend()
    }

    /// Writes `text` as is (human-readable output; add your own newlines).
    package func writeText(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        try didAppend()
    }

    /// A unit of output is complete (a page of records, a record that took a request): written
    /// out now when `flushesAtBatchEnd` (a reader may be waiting for it), else left buffered.
    package func endBatch() throws {
        if flushesAtBatchEnd { try flush() }
    }

    /// Writes out everything buffered.
    package func flush() throws {
        guard !buffer.isEmpty else { return }
        defer { buffer.removeAll(keepingCapacity: true) }
        try buffer.withUnsafeBytes { try writeAll($0) }
    }

    @inline(__always)
    private func didAppend() throws {
        if flushesEachRecord || buffer.count >= bufferCapacity { try flush() }
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        switch ToolkitCore.writeAll(fileDescriptor, bytes, waitingWhenFull: true) {
        case 0: return
        case EPIPE: throw BrokenPipe()
        case let code: throw ToolError.ioError("write to \(name) failed: \(String(cString: strerror(code)))")
        }
    }
}
