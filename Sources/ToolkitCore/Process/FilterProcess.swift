import Foundation

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
    package var signaled: Bool
    package var output: Data

    /// "exited with status 3", "was killed by signal 9".
    package var statusDescription: String {
        signaled ? "was killed by signal \(status)" : "exited with status \(status)"
    }

    /// Runs `executable` with `arguments` in `environment`; throws when it cannot be started.
    package static func run(
        _ executable: String, arguments: [String], input: Data, environment: [String: String], stderr: Int32
    ) throws -> FilterProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle(fileDescriptor: stderr, closeOnDealloc: false)
        do {
            try process.run()
        } catch {
            throw ToolError(.noInput, "cannot run \(executable): \(error.localizedDescription)")
        }
        let writer = Thread {
            // A command that stops reading early (head) closes its end: the rest is dropped. SIGPIPE
            // is blocked on this thread only, so that is EPIPE here, not the end of the process.
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            let handle = stdin.fileHandleForWriting
            input.withUnsafeBytes { writeAll(handle.fileDescriptor, $0) }
            try? handle.close()
        }
        writer.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return FilterProcess(
            status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal,
            output: output)
    }
}
