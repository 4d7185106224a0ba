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

/// Lines kept on disk rather than in memory, to be read back by number: `songcount --best-fit`
/// must print whole input records after reading them all, and a million of them took 379 MB
/// when kept as arrays (D6). The file is made with mkstemp (0600) in the temporary directory and
/// unlinked at once, so it vanishes when the process ends, however it ends; only the offsets
/// (8 bytes a line) stay in memory.
package final class LineSpool {
    private let descriptor: Int32
    private var offsets: [Int] = [0]
    private var buffer: [UInt8] = []
    private static let bufferSize = 1 << 16

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

    package var count: Int { offsets.count - 1 }

    /// Keeps `line`; its number is `count` before the call.
    package func append(_ line: UnsafeRawBufferPointer) throws {
        buffer.append(contentsOf: line)
        offsets.append(offsets[offsets.count - 1] + line.count)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    private func flush() throws {
        let failure = buffer.withUnsafeBytes { writeAll(descriptor, $0) }
        guard failure == 0 else {
            throw ToolError.ioError("cannot write the temporary copy of the input: \(systemErrorMessage(failure))")
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Line number `index`, as it was appended.
    package func line(_ index: Int) throws -> [UInt8] {
        try flush()
        let start = offsets[index]
        let length = offsets[index + 1] - start
        var bytes = [UInt8](repeating: 0, count: length)
        var done = 0
        while done < length {
            let result = bytes.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress! + done, length - done, off_t(start + done))
            }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else {
                throw ToolError.ioError(
                    "cannot read back the temporary copy of the input: \(systemErrorMessage(errno))")
            }
            done += result
        }
        return bytes
    }
}
