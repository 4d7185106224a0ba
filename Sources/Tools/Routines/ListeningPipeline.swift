import Dispatch
import ToolkitCLI
import ToolkitCore

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

/// `routine-link run`'s listening part, exactly the documented pipeline
/// `spotify-nowplaying --watch --for D | songcount`, with routine-link relaying the watch's
/// records to songcount so it can show them as they come.
///
/// Both children run in a process group of their own, so a terminal's Ctrl-C reaches only
/// routine-link, which then asks the watch to stop (SIGINT, then SIGTERM on a second signal):
/// the watch prints its final record, songcount counts, and the count is still logged.
struct ListeningPipeline {
    var watchCommand: [String]
    var countCommand: [String]
    var environment: [String: String]
    /// Where the watch's own messages go: the run's stderr (`ToolContext.stderr`), not fd 2.
    var errors: Int32

    struct Outcome: Sendable {
        /// Exit statuses; a child killed by a signal gets 128 + the signal number, as shells say.
        var watchStatus: Int32
        var countStatus: Int32
        var countOutput: Data
        var countErrors: Data
        /// Whether a signal asked us to stop early.
        var interrupted: Bool

        /// How a watch ends when asked to stop: exit 0 (its final record), or killed by a stop
        /// signal (SIGHUP, SIGINT, SIGTERM: 128 + 1, 2, 15). Anything else is the watch failing.
        static let stoppedStatuses: Set<Int32> = [0, 128 + SIGHUP, 128 + SIGINT, 128 + SIGTERM]

        /// Whether the watch failed rather than stopped: a third signal SIGKILLs the group, which
        /// is the user insisting, not a failure.
        var watchFailed: Bool {
            !Self.stoppedStatuses.contains(watchStatus) && !(interrupted && watchStatus == 128 + SIGKILL)
        }

        /// songcount's record, when it exited 0 with one.
        var count: SongCountSummary? {
            countStatus == 0 ? (try? JSONValue.parse(countOutput)).flatMap(SongCountSummary.init(record:)) : nil
        }

        /// What the run means for its session. Pure, so every case is tested alone.
        var verdict: RunVerdict {
            // A failed watch first: a count of a watch that died early is not the session the
            // user ran, however plausible it looks.
            if watchFailed { return .watchFailed(status: watchStatus, heard: count) }
            if let count { return .log(count, interrupted: interrupted) }
            if countStatus == 0 { return .countUnreadable }
            if countStatus != ExitCode.notFound.rawValue { return .countFailed(status: countStatus) }
            return .nothingHeard
        }
    }

    /// Log the count, or discard the session and say why.
    enum RunVerdict: Equatable {
        case log(SongCountSummary, interrupted: Bool)
        /// The watch failed (it said why on stderr: not logged in, Spotify down...). `heard`: what
        /// songcount counted before, printed so the user can still `routine-link log` it.
        case watchFailed(status: Int32, heard: SongCountSummary?)
        /// songcount failed; its stderr is passed on.
        case countFailed(status: Int32)
        /// songcount exited 0 without a song_count record: a broken toolkit, not a quiet success.
        case countUnreadable
        /// songcount heard nothing (exit 1).
        case nothingHeard
    }

    /// The command that runs the sibling tool `name`: `name` beside this executable's real file
    /// (an install keeps a link per tool beside `spotify-toolkit`, however this one was reached:
    /// through a link on `$PATH` or Homebrew's chain of them; a build directory keeps the per-tool
    /// executables together); else the multi-call binary itself, told which tool to be; else
    /// `name` on `$PATH`.
    static func sibling(
        _ name: String, environment: ToolEnvironment, executable: URL? = ToolEnvironment.executableURL
    ) -> [String]? {
        if let own = executable?.resolvingSymlinksInPath() {
            let path = own.deletingLastPathComponent().appendingPathComponent(name).path
            if access(path, X_OK) == 0 { return [path] }
            if own.lastPathComponent == MultiCall.programName { return [own.path, name] }
        }
        return environment.executable(named: name).map { [$0] }
    }

    /// Runs the pipeline to its end. `onLine` sees each line the watch prints (on a reader thread).
    func run(onLine: @escaping @Sendable (String) -> Void) throws -> Outcome {
        // songcount may exit early; the relay must see EPIPE, not die. Given back at the end, so
        // a host process (a test) keeps its own disposition.
        let pipeDisposition = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, pipeDisposition) }
        let watchOut = try Self.makePipe()
        let countIn = try Self.makePipe()
        let countOut = try Self.makePipe()
        let countErr = try Self.makePipe()
        let devNull = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { if devNull >= 0 { close(devNull) } }

        let stopper = Stopper()
        stopper.installSignalHandlers()
        defer { stopper.restoreSignals() }

        let watchPID = try Self.spawn(
            watchCommand, environment: environment, stdin: devNull, stdout: watchOut.write, stderr: errors,
            processGroup: 0)
        close(watchOut.write)
        let countPID: pid_t
        do {
            countPID = try Self.spawn(
                countCommand, environment: environment, stdin: countIn.read, stdout: countOut.write,
                stderr: countErr.write, processGroup: watchPID)
        } catch {
            kill(watchPID, SIGTERM)
            var status: Int32 = 0
            _ = waitpid(watchPID, &status, 0)
            throw error
        }
        close(countIn.read)
        close(countOut.write)
        close(countErr.write)
        stopper.watch(watchPID)

        let errors = Locked<Data?>(nil)
        detachThread {
            let read = Self.readAll(countErr.read)
            errors.withLock { $0 = read }
        }

        // The relay: the watch's bytes go on to songcount unchanged; whole lines go to `onLine`.
        var pending = [UInt8]()
        var relaying = true
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(watchOut.read, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            if relaying { relaying = buffer[0..<count].withUnsafeBytes { writeAll(countIn.write, $0) } == 0 }
            pending.append(contentsOf: buffer[0..<count])
            while let newline = pending.firstIndex(of: 0x0A) {
                onLine(String(decoding: pending[..<newline], as: UTF8.self))
                pending.removeSubrange(...newline)
            }
            if pending.count > 1 << 20 { pending.removeAll() }  // no line is that long; keep memory flat
        }
        close(watchOut.read)
        close(countIn.write)  // songcount sees the end of its input and prints its count
        let output = Self.readAll(countOut.read)
        close(countOut.read)
        let watchStatus = Self.wait(watchPID)
        let countStatus = Self.wait(countPID)
        stopper.watch(nil)
        while errors.withLock({ $0 == nil }) { usleep(1000) }
        close(countErr.read)
        return Outcome(
            watchStatus: watchStatus, countStatus: countStatus, countOutput: output,
            countErrors: errors.withLock { $0 ?? Data() }, interrupted: stopper.signalCount > 0)
    }

    // MARK: Processes

    static func makePipe() throws -> (read: Int32, write: Int32) {
        do {
            return try ChildProcess.pipe()
        } catch {
            throw ToolError.ioError("cannot create a pipe: \(error.message)")
        }
    }

    /// The child in `processGroup` (0: a new one led by the child), with the default signal
    /// dispositions and an empty signal mask (ours ignores SIGINT/SIGPIPE).
    static func spawn(
        _ command: [String], environment: [String: String], stdin: Int32, stdout: Int32, stderr: Int32,
        processGroup: pid_t
    ) throws -> pid_t {
        do {
            return try ChildProcess.spawn(
                command, environment: environment, stdin: stdin, stdout: stdout, stderr: stderr,
                processGroup: processGroup
            ).pid
        } catch {
            throw ToolError.unavailable("cannot start \(command[0]): \(error.message)")
        }
    }

    /// The exit status, or 128 + the signal's number.
    static func wait(_ pid: pid_t) -> Int32 {
        ChildProcess(pid: pid).wait().shellStatus
    }

    /// Everything until end of file, at most 16 MiB (songcount prints one record).
    static func readAll(_ fd: Int32) -> Data {
        Data(ChildProcess.readAll(fd, limit: 16 << 20))
    }
}

/// Turns SIGINT/SIGTERM/SIGHUP to routine-link into a stop request for the watch: the first asks it
/// to stop (SIGINT: it prints its final record), a second insists (SIGTERM), a third kills the group.
final class Stopper: Sendable {
    private struct State {
        var watchPID: pid_t?
        var signals = 0
        var handlers: SignalHandlers?
    }

    private let state = Locked(State())

    var signalCount: Int { state.withLock { $0.signals } }

    func installSignalHandlers() {
        let handlers = SignalHandlers(StopSignal.signals) { [self] _ in received() }
        state.withLock { $0.handlers = handlers }
    }

    func restoreSignals() {
        state.withLock { $0.handlers }?.cancel()
    }

    /// The watch to stop; a signal that came before it started is passed on now.
    func watch(_ pid: pid_t?) {
        let pending: Int = state.withLock {
            $0.watchPID = pid
            return pid == nil ? 0 : $0.signals
        }
        if let pid, pending > 0 { forward(pending, to: pid) }
    }

    private func received() {
        let (pid, count): (pid_t?, Int) = state.withLock {
            $0.signals += 1
            return ($0.watchPID, $0.signals)
        }
        if let pid { forward(count, to: pid) }
    }

    private func forward(_ count: Int, to pid: pid_t) {
        switch count {
        case 1: kill(pid, SIGINT)
        case 2: kill(pid, SIGTERM)
        default: kill(-pid, SIGKILL)
        }
    }
}
