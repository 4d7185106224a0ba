#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with posix_spawn: the core's one way to run another program (the
/// filter of `spotify-playlists rewrite`, a browser opener, routine-link's pipeline). Not
/// Foundation's `Process`, which is not in FoundationEssentials and on Linux also starts a
/// run-loop thread to reap its children.
package struct ChildProcess: Sendable {
    package let pid: pid_t

    /// The child `pid`, started elsewhere.
    package init(pid: pid_t) { self.pid = pid }

    /// How a child ended: its exit status, or the signal that killed it.
    package struct Termination: Sendable, Equatable {
        package var status: Int32
        /// Ended by a signal (`status` is its number) rather than exiting.
        var signaled: Bool

        /// A shell's view: the exit status, or 128 + the signal's number.
        package var shellStatus: Int32 { signaled ? 128 + status : status }

        init(waitStatus: Int32) {
            // WIFEXITED / WEXITSTATUS / WTERMSIG, spelled out (the C macros are not imported).
            let signalNumber = waitStatus & 0x7f
            signaled = signalNumber != 0
            status = signaled ? signalNumber : (waitStatus >> 8) & 0xff
        }
    }

    /// Why a program could not be started: posix_spawn's error number.
    package struct SpawnFailure: Error, Sendable {
        package var code: Int32
        package var message: String { systemErrorMessage(code) }
    }

    /// Starts `command[0]` (a path; no `PATH` search) with `command` as its arguments, in exactly
    /// `environment`, with `stdin`, `stdout` and `stderr` as its descriptors 0, 1 and 2. Nothing else
    /// is inherited that is close-on-exec (every descriptor the toolkit opens is). The child starts
    /// with the default action for the signals a tool changes (INT, TERM, PIPE, HUP, QUIT) and no
    /// signal blocked; `processGroup` nil keeps ours (Ctrl-C reaches it too), 0 makes it lead a
    /// new one, else it joins that one.
    package static func spawn(
        _ command: [String], environment: [String: String], stdin: Int32, stdout: Int32, stderr: Int32,
        processGroup: pid_t? = nil
    ) throws(SpawnFailure) -> ChildProcess {
        #if canImport(Glibc)
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #else
        var actions: posix_spawn_file_actions_t? = nil
        var attributes: posix_spawnattr_t? = nil
        #endif
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var flags = Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
        if let processGroup {
            posix_spawnattr_setpgroup(&attributes, processGroup)
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = command.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, command[0], &actions, &attributes, argv, envp)
        guard result == 0 else { throw SpawnFailure(code: result) }
        return ChildProcess(pid: pid)
    }

    /// Waits for the child to end.
    package func wait() -> Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            // Only EINTR is expected; ECHILD (reaped elsewhere) has no status left to give.
            if errno != EINTR { return Termination(waitStatus: Int32(ExitCode.software.rawValue) << 8) }
        }
        return Termination(waitStatus: status)
    }

    /// How the child ended, or nil while it runs (it is reaped once this returns a value).
    package func poll() -> Termination? {
        var status: Int32 = 0
        var reaped = waitpid(pid, &status, WNOHANG)
        while reaped < 0 && errno == EINTR { reaped = waitpid(pid, &status, WNOHANG) }
        if reaped == 0 { return nil }
        if reaped < 0 { return Termination(waitStatus: Int32(ExitCode.software.rawValue) << 8) }
        return Termination(waitStatus: status)
    }

    /// A pipe whose two ends are close-on-exec: a child gets only what `spawn` hands it.
    package static func pipe() throws(SpawnFailure) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        #if canImport(Glibc)
        guard fds.withUnsafeMutableBufferPointer({ Glibc.pipe($0.baseAddress!) }) == 0 else {
            throw SpawnFailure(code: errno)
        }
        #else
        guard fds.withUnsafeMutableBufferPointer({ Darwin.pipe($0.baseAddress!) }) == 0 else {
            throw SpawnFailure(code: errno)
        }
        #endif
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return (fds[0], fds[1])
    }

    /// Everything `descriptor` gives until end of file, the first `limit` bytes kept.
    /// `stopping`: return as soon as `limit` bytes are in, rather than read (and drop) the rest
    /// until the end, which a command that never ends never reaches.
    package static func readAll(_ descriptor: Int32, limit: Int = .max, stopping: Bool = false) -> [UInt8] {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            if data.count < limit { data.append(contentsOf: buffer[0..<min(count, limit - data.count)]) }
            if stopping && data.count >= limit { break }
        }
        return data
    }
}

/// Runs `body` on a new thread of its own, detached (nobody joins it). Foundation's `Thread` is
/// not in FoundationEssentials; this is all the toolkit used of it.
package func detachThread(_ body: @escaping @Sendable () -> Void) {
    let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    #if canImport(Glibc)
    var thread = pthread_t()
    #else
    var thread: pthread_t? = nil
    #endif
    let result = pthread_create(
        &thread, nil,
        { context in
            #if canImport(Glibc)
            let body = Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue()
            #else
            let body = Unmanaged<ThreadBody>.fromOpaque(context).takeRetainedValue()
            #endif
            body.run()
            return nil
        }, box)
    // Out of threads: there is no way on without it (Foundation's Thread would crash too).
    precondition(result == 0, "cannot start a thread: \(systemErrorMessage(result))")
    #if canImport(Glibc)
    pthread_detach(thread)
    #else
    pthread_detach(thread!)
    #endif
}

private final class ThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

/// Runs `body` as a task and waits for it, blocking this thread: for a thread of its own (a
/// `LineFeed`'s reader) that needs an answer from async code. Never on the concurrency pool's
/// threads, which the task itself may need.
package func waitForTask<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let done = PlainCondition()
    let result = Locked<Result<T, any Error>?>(nil)
    Task {
        let outcome: Result<T, any Error>
        do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
        done.lock()
        result.withLock { $0 = outcome }
        done.broadcast()
        done.unlock()
    }
    done.lock()
    while result.withLock({ $0.map { _ in false } ?? true }) { done.wait() }
    done.unlock()
    return try result.withLock { $0! }.get()
}
