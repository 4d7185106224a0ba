import Dispatch
import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pipe whose read end is non-blocking, so tests can look at what has been written so far.
private final class TestPipe: @unchecked Sendable {
    let readEnd: Int32
    let writeEnd: Int32
    private var open = [true, true]

    init() {
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0)
        readEnd = fds[0]
        writeEnd = fds[1]
        _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) | O_NONBLOCK)
    }

    /// Everything available now.
    func available() -> String {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            out += chunk[0..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    func closeRead() {
        if open[0] {
            _ = close(readEnd)
            open[0] = false
        }
    }

    func closeWrite() {
        if open[1] {
            _ = close(writeEnd)
            open[1] = false
        }
    }

    deinit {
        closeRead()
        closeWrite()
    }
}

@Suite(.tags(.medium)) struct JSONLinesWriterTests {
    @Test func writesRecordsAsLines() throws {
        let pipe = TestPipe()
        let writer = JSONLinesWriter(fileDescriptor: pipe.writeEnd)
        try writer.write(["id": "x", "duration_ms": 1000])
        try writer.write(["z": 1, "a": [true, nil], "s": "line\nbreak"])
        #expect(pipe.available() == "")  // buffered
        try writer.flush()
        #expect(
            pipe.available()
                == "{\"id\":\"x\",\"duration_ms\":1000}\n{\"z\":1,\"a\":[true,null],\"s\":\"line\\nbreak\"}\n")
        try writer.flush()  // nothing left: no output
        #expect(pipe.available() == "")
    }

    @Test func passthroughAndText() throws {
        let pipe = TestPipe()
        let writer = JSONLinesWriter(fileDescriptor: pipe.writeEnd)
        try Array(#"{"raw" : 1}"#.utf8).withUnsafeBytes { try writer.writeLine($0) }
        try writer.writeText("total: 3 songs\n")
        try writer.writeText("é")
        try writer.flush()
        #expect(pipe.available() == "{\"raw\" : 1}\ntotal: 3 songs\né")
    }

    @Test func flushesEachRecordWhenAsked() throws {
        let pipe = TestPipe()
        let writer = JSONLinesWriter(fileDescriptor: pipe.writeEnd, flushesEachRecord: true)
        try writer.write(["n": 1])
        #expect(pipe.available() == "{\"n\":1}\n")
        try writer.writeText("hi\n")
        #expect(pipe.available() == "hi\n")
        writer.flushesEachRecord = false
        try writer.write(["n": 2])
        #expect(pipe.available() == "")
        try writer.flush()
        #expect(pipe.available() == "{\"n\":2}\n")
    }

    @Test func endBatchFlushesOnlyWhenAReaderMayWait() throws {
        let pipe = TestPipe()
        let writer = JSONLinesWriter(fileDescriptor: pipe.writeEnd, flushesAtBatchEnd: true)
        try writer.write(["n": 1])
        try writer.write(["n": 2])
        #expect(pipe.available() == "", "records of a page stay together until the page ends")
        try writer.endBatch()
        #expect(pipe.available() == "{\"n\":1}\n{\"n\":2}\n")
        writer.flushesAtBatchEnd = false
        try writer.write(["n": 3])
        try writer.endBatch()
        #expect(pipe.available() == "", "into a file the batch stays buffered")
        try writer.flush()
        #expect(pipe.available() == "{\"n\":3}\n")
    }

    /// ToolContext's one policy: a pipe (or a terminal) gets each batch at once, a file does not.
    @Test func theContextFlushesBatchesToAPipeOrTerminalNotToAFile() throws {
        let pipe = TestPipe()
        let scratch = try InProcess.Scratch()
        let file = try scratch.open("out", flags: O_WRONLY | O_CREAT | O_TRUNC)
        defer { close(file) }
        func context(stdout: Int32, terminal: Terminal = .none) -> ToolContext {
            ToolContext(
                toolName: "t", environment: ToolEnvironment([:]),
                streams: ToolStreams(stdin: 0, stdout: stdout, stderr: 2, terminal: terminal))
        }
        #expect(context(stdout: pipe.writeEnd).stdout.flushesAtBatchEnd)
        #expect(!context(stdout: file).stdout.flushesAtBatchEnd)
        let tty = Terminal(stdinIsTerminal: false, stdoutIsTerminal: true, stderrIsTerminal: false)
        #expect(context(stdout: file, terminal: tty).stdout.flushesAtBatchEnd)
    }

    @Test func flushesWhenBufferFills() throws {
        let pipe = TestPipe()
        let writer = JSONLinesWriter(fileDescriptor: pipe.writeEnd, bufferCapacity: 16)
        try writer.write(["n": 1])  // 8 bytes: kept
        #expect(pipe.available() == "")
        try writer.write(["n": 22])  // 17 bytes in all: flushed
        #expect(pipe.available() == "{\"n\":1}\n{\"n\":22}\n")
        // A passthrough line larger than the buffer goes out directly, after what was buffered.
        try writer.write(["n": 3])
        let long = String(repeating: "x", count: 40)
        try Array(long.utf8).withUnsafeBytes { try writer.writeLine($0) }
        #expect(pipe.available() == "{\"n\":3}\n\(long)\n")
        // A line that does not fit next to buffered bytes flushes them first.
        try writer.writeText("abcdefghij")
        try Array("0123456789".utf8).withUnsafeBytes { try writer.writeLine($0) }
        #expect(pipe.available() == "abcdefghij")
        try writer.flush()
        #expect(pipe.available() == "0123456789\n")
    }

    @Test func deinitFlushes() throws {
        let pipe = TestPipe()
        do {
            let writer = JSONLinesWriter(fileDescriptor: pipe.writeEnd)
            try writer.write(["bye": true])
        }
        #expect(pipe.available() == "{\"bye\":true}\n")
    }

    @Test func handlesPartialWritesOnAFullPipe() throws {
        // A non-blocking write end: writes come back short or EAGAIN while the reader catches up.
        let pipe = TestPipe()
        _ = fcntl(pipe.writeEnd, F_SETFL, fcntl(pipe.writeEnd, F_GETFL) | O_NONBLOCK)
        let record: JSONValue = ["id": "4iV5W9uYEdYUVa79Axb7Rh", "pad": .string(String(repeating: "p", count: 1000))]
        let count = 2000
        let done = DispatchSemaphore(value: 0)
        final class Total: @unchecked Sendable {
            var bytes = 0
            var newlines = 0
        }
        let total = Total()
        DispatchQueue.global().async {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(pipe.readEnd, $0.baseAddress, $0.count) }
                if n == 0 { break }
                if n < 0 {
                    if errno == EAGAIN {
                        usleep(100)
                        continue
                    }
                    break
                }
                total.bytes += n
                total.newlines += chunk[0..<n].filter { $0 == 0x0A }.count
            }
            done.signal()
        }
        let writer = JSONLinesWriter(fileDescriptor: pipe.writeEnd, bufferCapacity: 200_000)
        for _ in 0..<count { try writer.write(record) }
        try writer.flush()
        pipe.closeWrite()
        done.wait()
        #expect(total.newlines == count)
        #expect(total.bytes == count * (record.serialized().utf8.count + 1))
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full")))
    func devFullIsAnIOError() throws {
        let fd = open("/dev/full", O_WRONLY)
        #expect(fd >= 0)
        defer { _ = close(fd) }
        let writer = JSONLinesWriter(fileDescriptor: fd)
        try writer.write(["a": 1])
        do {
            try writer.flush()
            Issue.record("no error")
        } catch let error as ToolError {
            #expect(error.exitCode == .ioError)
            #expect(error.message == "write to standard output failed: \(String(cString: strerror(ENOSPC)))")
        }
        // The failed bytes are dropped: a second flush has nothing to write.
        try writer.flush()
        let named = JSONLinesWriter(fileDescriptor: fd, name: "out.jsonl", flushesEachRecord: true)
        #expect(throws: ToolError.ioError("write to out.jsonl failed: \(String(cString: strerror(ENOSPC)))")) {
            try named.writeText("x")
        }
    }

    @Test func brokenPipe() throws {
        // Tests share one process: ignoring SIGPIPE for all of it is fine (tools do the same).
        signal(SIGPIPE, SIG_IGN)
        let pipe = TestPipe()
        pipe.closeRead()
        let writer = JSONLinesWriter(fileDescriptor: pipe.writeEnd)
        try writer.write(["a": 1])
        #expect(throws: BrokenPipe.self) { try writer.flush() }
        let eager = JSONLinesWriter(fileDescriptor: pipe.writeEnd, flushesEachRecord: true)
        #expect(throws: BrokenPipe.self) { try eager.write(["a": 1]) }
    }
}
