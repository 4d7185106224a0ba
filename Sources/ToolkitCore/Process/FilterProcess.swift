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

/// Runs a command as a filter: `input` on its standard input, its standard output collected, its
/// standard error passed on to the caller's as it comes (so jq's own message reaches the user),
/// and noted. The input is written and the standard error relayed from other threads while the
/// output is read, so no side can block another.
package struct FilterProcess {
    package var status: Int32
    /// Ended by a signal rather than exiting.
    var signaled: Bool
    package var output: Data
    /// Whether it wrote anything on standard error: a filter that complained may have failed for
    /// some records whatever its status (jq 1.6 exits 0 when the last record went well).
    package var complained: Bool
    /// The command printed more than `outputLimit` bytes: it was killed, and `output` is cut there.
    package var overflowed = false

    /// "exited with status 3", "was killed by signal 9".
    package var statusDescription: String {
        signaled ? "was killed by signal \(status)" : "exited with status \(status)"
    }

    /// Runs `executable` with `arguments` in `environment`; throws when it cannot be started. Past
    /// `outputLimit` bytes of output the command is killed (`overflowed`): `yes` must not fill memory.
    package static func run(
        _ executable: String, arguments: [String], input: Data, environment: [String: String], stderr: Int32,
        outputLimit: Int = .max
    ) throws -> FilterProcess {
        var opened: [Int32] = []
        let stdin: (read: Int32, write: Int32)
        let stdout: (read: Int32, write: Int32)
        let errors: (read: Int32, write: Int32)
        let child: ChildProcess
        do {
            stdin = try ChildProcess.pipe()
            opened += [stdin.read, stdin.write]
            stdout = try ChildProcess.pipe()
            opened += [stdout.read, stdout.write]
            errors = try ChildProcess.pipe()
            opened += [errors.read, errors.write]
            child = try ChildProcess.spawn(
                [executable] + arguments, environment: environment, stdin: stdin.read, stdout: stdout.write,
                stderr: errors.write)
        } catch {
            for descriptor in opened { close(descriptor) }
            throw ToolError(.noInput, "cannot run \(executable): \(error.message)")
        }
        close(stdin.read)
        close(stdout.write)
        close(errors.write)
        let relay = ErrorRelay()
        detachThread { relay.run(from: errors.read, to: stderr) }
        detachThread {
            // A command that stops reading early (head) closes its end: the rest is dropped. SIGPIPE
            // is blocked on this thread only, so that is EPIPE here, not the end of the process.
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            _ = input.withUnsafeBytes { writeAll(stdin.write, $0) }
            close(stdin.write)
        }
        let bytes = ChildProcess.readAll(
            stdout.read, limit: outputLimit == .max ? .max : outputLimit + 1, stopping: true)
        let overflowed = bytes.count > outputLimit
        if overflowed { kill(child.pid, SIGKILL) }
        close(stdout.read)
        let end = child.wait()
        let complained = relay.waitForEnd()
        close(errors.read)
        var run = FilterProcess(
            status: end.status, signaled: end.signaled, output: Data(bytes.prefix(outputLimit)), complained: complained)
        run.overflowed = overflowed
        return run
    }
}

/// Passes a child's standard error on as it comes, and tells whether any came.
private final class ErrorRelay: @unchecked Sendable {  // `ended` and `wrote` behind `condition`
    private let condition = PlainCondition()
    private var ended = false
    private var wrote = false

    func run(from source: Int32, to destination: Int32) {
        // A closed standard error is EPIPE on this thread, not the end of the process.
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
        var buffer = [UInt8](repeating: 0, count: 4096)
        var any = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            any = true
            _ = buffer.withUnsafeBytes { writeAll(destination, UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
        condition.lock()
        ended = true
        wrote = any
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until the child's end of the pipe is closed; whether anything came through it.
    func waitForEnd() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !ended { condition.wait() }
        return wrote
    }
}
