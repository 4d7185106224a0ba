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
/// standard error the caller's (so jq's own message reaches the user). The input is written from
/// another thread while the output is read, so neither side can block the other.
package struct FilterProcess {
    package var status: Int32
    /// Ended by a signal rather than exiting.
    var signaled: Bool
    package var output: Data
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
        let child: ChildProcess
        do {
            stdin = try ChildProcess.pipe()
            opened += [stdin.read, stdin.write]
            stdout = try ChildProcess.pipe()
            opened += [stdout.read, stdout.write]
            child = try ChildProcess.spawn(
                [executable] + arguments, environment: environment, stdin: stdin.read, stdout: stdout.write,
                stderr: stderr)
        } catch {
            for descriptor in opened { close(descriptor) }
            throw ToolError(.noInput, "cannot run \(executable): \(error.message)")
        }
        close(stdin.read)
        close(stdout.write)
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
        var run = FilterProcess(status: end.status, signaled: end.signaled, output: Data(bytes.prefix(outputLimit)))
        run.overflowed = overflowed
        return run
    }
}
