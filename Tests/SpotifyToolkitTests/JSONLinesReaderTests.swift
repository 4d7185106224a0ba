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

/// A temporary file holding `bytes`, opened for reading; removed and closed by `close()`.
private struct TempInput {
    let path: String
    let fd: Int32

    init(_ bytes: [UInt8]) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("jsonl-\(UUID().uuidString)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        fd = open(path, O_RDONLY)
    }

    init(_ text: String) throws { try self.init(Array(text.utf8)) }

    func close() {
        _ = closeDescriptor(fd)
        try? FileManager.default.removeItem(atPath: path)
    }
}

private func closeDescriptor(_ fd: Int32) -> Int32 { close(fd) }

private struct Line: Equatable, CustomStringConvertible {
    var number: Int
    var text: String
    var description: String { "\(number): \(text.debugDescription)" }
}

/// All lines of `input`, read with the given chunk size.
private func lines(
    _ input: [UInt8], chunkSize: Int = 1 << 20, maxLineBytes: Int = JSONLinesReader.defaultMaxLineBytes,
    displayName: String? = nil
) throws -> [Line] {
    let file = try TempInput(input)
    defer { file.close() }
    var reader = JSONLinesReader(
        fileDescriptor: file.fd, displayName: displayName, maxLineBytes: maxLineBytes,
        chunkSize: chunkSize)
    var result: [Line] = []
    try reader.forEachLine { number, line in
        result.append(Line(number: number, text: String(decoding: line, as: UTF8.self)))
        return true
    }
    return result
}

private func lines(
    _ input: String, chunkSize: Int = 1 << 20, maxLineBytes: Int = JSONLinesReader.defaultMaxLineBytes,
    displayName: String? = nil
) throws -> [Line] {
    try lines(Array(input.utf8), chunkSize: chunkSize, maxLineBytes: maxLineBytes, displayName: displayName)
}

@Suite(.tags(.medium)) struct JSONLinesReaderTests {
    @Test func splitsLines() throws {
        #expect(
            try lines("{\"a\":1}\n{\"b\":2}\n") == [
                Line(number: 1, text: #"{"a":1}"#), Line(number: 2, text: #"{"b":2}"#),
            ])
        #expect(try lines("") == [])
        #expect(try lines("\n") == [])
    }

    @Test func stripsCR() throws {
        #expect(
            try lines("{\"a\":1}\r\n{\"b\":2}\r\n") == [
                Line(number: 1, text: #"{"a":1}"#), Line(number: 2, text: #"{"b":2}"#),
            ])
        // Only one trailing CR; an inner CR stays.
        #expect(try lines("a\rb\r\r\n") == [Line(number: 1, text: "a\rb\r")])
    }

    @Test func stripsBOMAtStreamStartOnly() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let input = bom + Array("{}\n".utf8) + bom + Array("{}\n".utf8)
        for chunk in [1, 2, 3, 1 << 20] {
            let result = try lines(input, chunkSize: chunk)
            #expect(result == [Line(number: 1, text: "{}"), Line(number: 2, text: "\u{FEFF}{}")], "chunk \(chunk)")
        }
        #expect(try lines(bom) == [])
        #expect(try lines([0xEF, 0xBB], chunkSize: 1) == [Line(number: 1, text: "\u{FFFD}")])
        #expect(try lines([0xEF, 0x0A, 0x41], chunkSize: 1).map(\.number) == [1, 2])
    }

    @Test func skipsBlankLinesButCountsThem() throws {
        let input = "\n  \t\n{\"a\":1}\n\r\n \r\n{\"b\":2}\n\n"
        #expect(try lines(input) == [Line(number: 3, text: #"{"a":1}"#), Line(number: 6, text: #"{"b":2}"#)])
    }

    @Test func lastLineWithoutNewline() throws {
        #expect(
            try lines("{}\n{\"last\":true}") == [Line(number: 1, text: "{}"), Line(number: 2, text: #"{"last":true}"#)])
        #expect(try lines("{}\r") == [Line(number: 1, text: "{}")])
    }

    @Test func linesSpanningChunks() throws {
        var input = ""
        var expected: [Line] = []
        for i in 1...40 {
            if i % 7 == 0 {
                input += "\r\n"
                continue
            }
            let text =
                i % 5 == 0 ? JSONLinesFixtures.track : #"{"n":\#(i),"pad":"\#(String(repeating: "x", count: i * 3))"}"#
            input += text + (i % 2 == 0 ? "\r\n" : "\n")
            expected.append(Line(number: i, text: text))
        }
        for chunk in [1, 2, 3, 5, 7, 64, 1000, 4096] {
            #expect(try lines(input, chunkSize: chunk) == expected, "chunk \(chunk)")
        }
    }

    @Test func lineLengthLimit() throws {
        let ten = String(repeating: "x", count: 10)
        for chunk in [1, 4, 64] {
            // Exactly at the limit, with LF, CRLF or no line ending.
            #expect(try lines("\(ten)\n\(ten)\r\n\(ten)", chunkSize: chunk, maxLineBytes: 10).count == 3)
            #expect(throws: ToolError.dataError("line 2: longer than the 10-byte line limit")) {
                try lines("{}\n\(ten)x\n{}\n", chunkSize: chunk, maxLineBytes: 10)
            }
            #expect(throws: ToolError.dataError("line 3: longer than the 10-byte line limit")) {
                try lines("{}\n\n\(ten)x", chunkSize: chunk, maxLineBytes: 10)
            }
            #expect(throws: ToolError.dataError("line 1: longer than the 10-byte line limit")) {
                try lines("\(ten)x\r\n", chunkSize: chunk, maxLineBytes: 10)
            }
            #expect(throws: ToolError.dataError("in.jsonl: line 1: longer than the 10-byte line limit")) {
                try lines(
                    String(repeating: "y", count: 100), chunkSize: chunk, maxLineBytes: 10, displayName: "in.jsonl")
            }
        }
        #expect(throws: ToolError.dataError("line 1: longer than the 1 MiB line limit")) {
            try lines(String(repeating: "y", count: (1 << 20) + 1), chunkSize: 4096, maxLineBytes: 1 << 20)
        }
        let defaultLimit = JSONLinesReader(fileDescriptor: 0)
        #expect(defaultLimit.maxLineBytes == 16 << 20)
    }

    @Test func memoryStaysBoundedOnEndlessLine() throws {
        // /dev/zero is an endless line: the reader must give up after the limit, not buffer it all.
        let fd = open("/dev/zero", O_RDONLY)
        #expect(fd >= 0)
        defer { _ = closeDescriptor(fd) }
        var reader = JSONLinesReader(fileDescriptor: fd, displayName: "zero", maxLineBytes: 100_000, chunkSize: 4096)
        #expect(throws: ToolError.dataError("zero: line 1: longer than the 100000-byte line limit")) {
            try reader.forEachLine { _, _ in true }
        }
        #expect(reader.bufferCapacity <= 100_000 + 2 + 4096)
        var big = JSONLinesReader(fileDescriptor: fd, maxLineBytes: 4 << 20)
        #expect(throws: ToolError.dataError("line 1: longer than the 4 MiB line limit")) {
            try big.forEachLine { _, _ in true }
        }
        #expect(big.bufferCapacity <= (4 << 20) + 2 + (1 << 20))
    }

    @Test func stopsEarlyAndResumes() throws {
        let file = try TempInput("{\"n\":1}\n{\"n\":2}\n\n{\"n\":4}\n")
        defer { file.close() }
        var reader = JSONLinesReader(fileDescriptor: file.fd, displayName: nil, maxLineBytes: 100, chunkSize: 3)
        var seen: [Int] = []
        try reader.forEachLine { number, _ in
            seen.append(number)
            return number < 2
        }
        #expect(seen == [1, 2])
        try reader.forEachLine { number, _ in
            seen.append(number)
            return true
        }
        #expect(seen == [1, 2, 4])
    }

    @Test func bodyErrorsPropagate() throws {
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            let file = try TempInput("{}\n{}\n")
            defer { file.close() }
            var reader = JSONLinesReader(fileDescriptor: file.fd)
            try reader.forEachLine { _, _ in throw Stop() }
        }
    }

    @Test func readErrors() throws {
        let fd = open("/dev/null", O_WRONLY)
        defer { _ = closeDescriptor(fd) }
        var named = JSONLinesReader(fileDescriptor: fd, displayName: "songs.jsonl")
        #expect(throws: ToolError.ioError("songs.jsonl: read failed: \(String(cString: strerror(EBADF)))")) {
            try named.forEachLine { _, _ in true }
        }
        var unnamed = JSONLinesReader(fileDescriptor: fd)
        do {
            try unnamed.forEachLine { _, _ in true }
            Issue.record("no error")
        } catch let error as ToolError {
            #expect(error.exitCode == .ioError)
            #expect(error.message.hasPrefix("standard input: read failed: "))
        }
    }

    @Test func worksWithPipesAndTheScanner() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let text = JSONLinesFixtures.playlistItem + "\n" + JSONLinesFixtures.track + "\n"
        let written = Array(text.utf8).withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
        #expect(written == text.utf8.count)
        _ = closeDescriptor(fds[1])
        defer { _ = closeDescriptor(fds[0]) }
        var reader = JSONLinesReader(fileDescriptor: fds[0])
        var total = 0
        try reader.forEachLine { _, line in
            try JSONScanner.scanObjectLine(line) { key, scanner in
                if key.matches("duration_ms") { total += try scanner.readInt() ?? 0 }
                if key.matches("item"), scanner.nextKind == .object {
                    try scanner.readObject { key, scanner in
                        if key.matches("duration_ms") { total += try scanner.readInt() ?? 0 }
                    }
                }
            }
            return true
        }
        #expect(total == 2 * 322506)
    }
}
