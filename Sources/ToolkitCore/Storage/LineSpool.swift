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

/// Lines kept on disk rather than in memory, to be read back in order: `songcount --best-fit`
/// must print whole input records after reading them all, and a million of them took 379 MB
/// when kept as arrays. The file is made with mkstemp (0600) in the temporary directory and
/// unlinked at once, so it vanishes when the process ends, however it ends. Nothing per line stays
/// in memory: each line is written with its newline and read back as JSON Lines.
package final class LineSpool {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private static let bufferSize = 1 << 16
    package private(set) var count = 0

    /// A spool in `directory` (TMPDIR, or /tmp).
    package init(directory: String?) throws {
        let base = (directory.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp")
        var template =
            Array((base.hasSuffix("/") ? base : base + "/").utf8CString.dropLast())
            + Array(
                "spotify-toolkit-spool.XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw ToolError.ioError(
                "cannot make a temporary file in \(base) to hold the input: \(systemErrorMessage(errno))")
        }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        unlink(path)
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Keeps `line` (one line of JSON Lines, without its newline).
    package func append(_ line: UnsafeRawBufferPointer) throws {
        buffer.append(contentsOf: line)
        buffer.append(UInt8(ascii: "\n"))
        count += 1
        if buffer.count >= Self.bufferSize { try flush() }
    }

    private func flush() throws {
        let failure = buffer.withUnsafeBytes { writeAll(descriptor, $0) }
        guard failure == 0 else {
            throw ToolError.ioError("cannot write the temporary copy of the input: \(systemErrorMessage(failure))")
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Every line kept, in order, from the first; `body` returns false to stop.
    package func forEachLine(_ body: (UnsafeRawBufferPointer) throws -> Bool) throws {
        try flush()
        guard lseek(descriptor, 0, SEEK_SET) == 0 else {
            throw ToolError.ioError("cannot read back the temporary copy of the input: \(systemErrorMessage(errno))")
        }
        var reader = JSONLinesReader(fileDescriptor: descriptor, displayName: "the temporary copy of the input")
        try reader.forEachLine { _, line in try body(line) }
    }
}
