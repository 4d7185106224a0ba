#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Streams the lines of a JSON Lines input from a file descriptor with bounded memory.
///
/// - Reads with read(2) in large chunks (1 MiB), retrying on EINTR.
/// - Lines end with `\n`; a trailing `\r` is stripped (CRLF input); the last line needs no `\n`.
/// - A UTF-8 byte order mark at the start of the stream is dropped.
/// - Blank lines (only spaces, tabs, `\r`) are skipped but still counted in line numbers.
/// - A line longer than `maxLineBytes` (not counting its line ending) is an error
///   (`ToolError.dataError`, "line N: longer than the 16 MiB line limit"), detected without
///   buffering more than `maxLineBytes` plus one chunk: memory stays bounded whatever the input.
/// - Read errors are `ToolError.ioError("NAME: read failed: <reason>")`.
///
/// Messages name the input as `displayName` ("NAME: line N: ...") when given; read errors on an
/// unnamed input say "standard input".
///
/// The reader does not own the descriptor (it never closes it). Do not copy a reader that is in
/// use: copies share one buffer.
package struct JSONLinesReader {
    /// The documented line length limit: 16 MiB.
    static let defaultMaxLineBytes = 16 << 20
    static let defaultChunkSize = 1 << 20

    package let fileDescriptor: Int32
    package let displayName: String?
    let maxLineBytes: Int
    let chunkSize: Int

    private let buffer: LineBuffer
    /// Lines seen so far (the number of the last line passed to, or skipped before, `body`).
    package private(set) var lineNumber = 0
    private var atStreamStart = true
    private var reachedEOF = false

    package init(fileDescriptor: Int32, displayName: String? = nil, maxLineBytes: Int = defaultMaxLineBytes) {
        self.init(
            fileDescriptor: fileDescriptor, displayName: displayName, maxLineBytes: maxLineBytes,
            chunkSize: Self.defaultChunkSize)
    }

    /// For tests: small chunks exercise lines that span reads.
    init(fileDescriptor: Int32, displayName: String?, maxLineBytes: Int, chunkSize: Int) {
        precondition(maxLineBytes > 0 && chunkSize > 0)
        self.fileDescriptor = fileDescriptor
        self.displayName = displayName
        self.maxLineBytes = maxLineBytes
        self.chunkSize = chunkSize
        // Two chunks; grows only as long lines require, up to maxLineBytes + 2 + chunkSize.
        buffer = LineBuffer(capacity: 2 * chunkSize)
    }

    /// Calls `body` for each non-blank line with its 1-based line number (blank lines count)
    /// and its bytes, without the line ending. `body` returns false to stop early; a later call
    /// continues with the next line.
    ///
    /// The buffer passed to `body` is only valid during that call.
    package mutating func forEachLine(_ body: (_ lineNumber: Int, _ line: UnsafeRawBufferPointer) throws -> Bool) throws
    {
        let nl = UInt8(ascii: "\n")
        while true {
            // Lines already in the buffer.
            while buffer.start < buffer.end {
                let base = buffer.pointer
                guard let found = memchr(base + buffer.start, Int32(nl), buffer.end - buffer.start) else { break }
                let newline = UnsafeRawPointer(found) - UnsafeRawPointer(base)
                let lineStart = buffer.start
                buffer.start = newline + 1
                if try !emit(from: lineStart, to: newline, body) { return }
            }
            if reachedEOF {
                if buffer.start < buffer.end {
                    let lineStart = buffer.start
                    buffer.start = buffer.end
                    if try !emit(from: lineStart, to: buffer.end, body) { return }
                }
                return
            }
            // A partial line: too long already? (+1: its `\r` may still be to come off.)
            if buffer.end - buffer.start > maxLineBytes + 1 {
                throw tooLong(lineNumber + 1)
            }
            try fill()
        }
    }

    /// Handles one line `[from, to)` (no `\n`); returns what `body` returned (true for blanks).
    @inline(__always)
    private mutating func emit(from: Int, to: Int, _ body: (Int, UnsafeRawBufferPointer) throws -> Bool) throws -> Bool
    {
        lineNumber += 1
        var stop = to
        let base = UnsafeRawPointer(buffer.pointer)
        if stop > from && base.load(fromByteOffset: stop - 1, as: UInt8.self) == UInt8(ascii: "\r") { stop -= 1 }
        if stop - from > maxLineBytes { throw tooLong(lineNumber) }
        // Blank? Only spaces, tabs and `\r`. The first byte of a JSON line is normally `{`.
        var i = from
        while i < stop {
            let c = base.load(fromByteOffset: i, as: UInt8.self)
            if c != 0x20 && c != 0x09 && c != 0x0D { break }
            i += 1
        }
        if i == stop { return true }
        return try body(lineNumber, UnsafeRawBufferPointer(start: base + from, count: stop - from))
    }

    /// Reads more input after the unconsumed bytes, compacting or growing the buffer as needed.
    private mutating func fill() throws {
        let pending = buffer.end - buffer.start
        if buffer.capacity - buffer.end < chunkSize {
            if pending + chunkSize <= buffer.capacity {
                buffer.compact()
            } else {
                // A long partial line: grow (doubling, capped at the largest line plus a chunk).
                let limit = maxLineBytes + 2 + chunkSize
                buffer.compact()
                buffer.grow(to: min(max(buffer.capacity * 2, pending + chunkSize), limit))
            }
        }
        let room = buffer.capacity - buffer.end
        let n = try readSome(into: buffer.pointer + buffer.end, count: room)
        if n == 0 {
            reachedEOF = true
        } else {
            buffer.end += n
        }
        if atStreamStart {
            // Drop a byte order mark: wait until 3 bytes are in unless they already differ.
            let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
            let have = buffer.end - buffer.start
            var isPrefix = true
            for i in 0..<min(have, 3)
            where buffer.pointer.load(fromByteOffset: buffer.start + i, as: UInt8.self) != bom[i] {
                isPrefix = false
            }
            if !isPrefix {
                atStreamStart = false
            } else if have >= 3 {
                buffer.start += 3
                atStreamStart = false
            } else if reachedEOF {
                atStreamStart = false
            } else {
                try fill()
            }
        }
    }

    /// Bytes currently allocated for buffering (for tests of the memory bound).
    var bufferCapacity: Int { buffer.capacity }

    private func readSome(into pointer: UnsafeMutableRawPointer, count: Int) throws -> Int {
        while true {
            let n = read(fileDescriptor, pointer, count)
            if n >= 0 { return n }
            let code = errno
            if code == EINTR { continue }
            throw ToolError.ioError(
                "\(displayName ?? "standard input"): read failed: \(String(cString: strerror(code)))")
        }
    }

    private func tooLong(_ line: Int) -> ToolError {
        let limit = maxLineBytes % (1 << 20) == 0 ? "\(maxLineBytes >> 20) MiB" : "\(maxLineBytes)-byte"
        let prefix = displayName.map { "\($0): " } ?? ""
        return ToolError.dataError("\(prefix)line \(line): longer than the \(limit) line limit")
    }
}

/// The reader's buffer: `[start, end)` holds bytes read but not yet handed out.
private final class LineBuffer {
    var pointer: UnsafeMutableRawPointer
    var capacity: Int
    var start = 0
    var end = 0

    init(capacity: Int) {
        self.capacity = capacity
        pointer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    deinit { pointer.deallocate() }

    /// Moves the unconsumed bytes to the front.
    func compact() {
        guard start > 0 else { return }
        let pending = end - start
        if pending > 0 { memmove(pointer, pointer + start, pending) }
        start = 0
        end = pending
    }

    func grow(to newCapacity: Int) {
        guard newCapacity > capacity else { return }
        let newPointer = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
        newPointer.copyMemory(from: pointer + start, byteCount: end - start)
        pointer.deallocate()
        pointer = newPointer
        end -= start
        start = 0
        capacity = newCapacity
    }
}
