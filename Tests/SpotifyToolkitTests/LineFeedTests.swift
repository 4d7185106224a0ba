import Foundation
import Testing

@testable import ToolkitCLI
@testable import ToolkitCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard input read as it arrives (`LineFeed`, `StandardInput.feed`): every wait here is for
/// an event (a line written, the pipe closed), bounded, never a timed window.
@Suite(.tags(.medium)) struct LineFeedTests {
    final class Pipe: @unchecked Sendable {
        let readEnd: Int32
        let writeEnd: Int32
        init() {
            var fds: [Int32] = [0, 0]
            precondition(pipe(&fds) == 0)
            readEnd = fds[0]
            writeEnd = fds[1]
        }
        func write(_ text: String) {
            _ = Array(text.utf8).withUnsafeBytes { ToolkitCore.writeAll(writeEnd, $0) }
        }
        func closeWrite() { close(writeEnd) }
        deinit { close(readEnd) }
    }

    @Test func aLineIsHandedOverWhileTheInputIsStillOpen() async throws {
        let pipe = Pipe()
        let feed = StandardInput(fileDescriptor: pipe.readEnd).feed { line -> String in
            guard line != "bad" else { throw StandardInput.Rejection("not a playlist") }
            return line.uppercased()
        }
        #expect(try feed.poll().isPending, "nothing written yet")
        pipe.write("one\n\n")
        #expect(try await feed.awaitFirst())
        #expect(try await feed.next() == "ONE", "the first line, with the pipe still open")
        #expect(try feed.poll().isPending)
        pipe.write("two\nbad\nthree\n")
        #expect(try await feed.next() == "TWO")
        await #expect(throws: ToolError.self) { try await feed.next() }
        do {
            _ = try await feed.next()
        } catch let error as ToolError {
            Issue.record("the error is handed over once: \(error.message)")
        }
        pipe.closeWrite()
    }

    @Test func theErrorNamesItsLineAndComesInItsTurn() async throws {
        let pipe = Pipe()
        pipe.write("a\n\nbad\nc\n")
        pipe.closeWrite()
        let feed = StandardInput(fileDescriptor: pipe.readEnd).feed { line -> String in
            guard line != "bad" else { throw StandardInput.Rejection("not a playlist") }
            return line
        }
        #expect(try await feed.next() == "a")
        do {
            _ = try await feed.next()
            Issue.record("line 3 is bad")
        } catch let error as ToolError {
            #expect(error.message == "standard input: line 3: not a playlist")
            #expect(error.exitCode == .dataError)
        }
        #expect(try await feed.next() == nil, "nothing is read after it")
    }

    @Test func anEmptyInputHoldsNothingAndAFirstBadLineIsThrownAtOnce() async throws {
        let empty = Pipe()
        empty.write("\n  \n")
        empty.closeWrite()
        #expect(try await !StandardInput(fileDescriptor: empty.readEnd).feed { $0 }.awaitFirst())

        let bad = Pipe()
        bad.write("bad\n")
        let feed = StandardInput(fileDescriptor: bad.readEnd).feed { line -> String in
            throw StandardInput.Rejection("no")
        }
        await #expect(throws: ToolError.self) { try await feed.awaitFirst() }
        bad.closeWrite()
    }

    /// The reader stops at `capacity` elements not yet taken: memory stays bounded.
    @Test func theReaderWaitsForRoom() async throws {
        let pipe = Pipe()
        let lines = (1...50).map { "\($0)\n" }.joined()
        pipe.write(lines)
        pipe.closeWrite()
        let feed = LineFeed(fileDescriptor: pipe.readEnd, displayName: nil, capacity: 4) { _, line in Int(line)! }
        var taken: [Int] = []
        while let next = try await feed.next() { taken.append(next) }
        #expect(taken == Array(1...50))
    }

    /// A waiting task that is cancelled returns at once, the pipe still open.
    @Test func aCancelledWaitReturns() async throws {
        let pipe = Pipe()
        let feed = StandardInput(fileDescriptor: pipe.readEnd).feed { $0 }
        let waiter = Task { await feed.waitForMore() }
        waiter.cancel()
        await waiter.value
        #expect(try feed.poll().isPending)
        feed.stop()
        #expect(try feed.poll().isEnd, "stopped: nothing more")
        pipe.closeWrite()
    }
}

extension LineFeed.Next {
    var isPending: Bool { if case .pending = self { true } else { false } }
    var isEnd: Bool { if case .end = self { true } else { false } }
}
