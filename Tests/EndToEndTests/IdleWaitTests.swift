import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 20 item 6: a request waiting for its answer costs no CPU, and a timeout says how long it
/// waited. On Linux URLSession spent about 6.7 s of CPU in 8 s of waiting (a stale write
/// DispatchSource in FoundationNetworking; see CurlLoop.swift). The CPU is read from the tool's
/// own rusage (wait4), so tests running alongside in this process do not count.
@Suite(.tags(.large)) struct IdleWaitTests {
    @Test func waitingForAServerThatNeverAnswersIsIdleAndTimesOutSayingSo() throws {
        let server = try SilentListener(closesAtOnce: false)
        defer { server.stop() }
        // POST /me/player/next is not retried: one request, one timeout.
        let run = try SpawnedTool.run(
            "spotify-nowplaying", ["next"], environment: server.environment(timeout: 8), limit: 30)
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.stderr.contains("cannot reach 127.0.0.1:\(server.port): timed out after 8 s"), "\(run.stderr)")
        #expect(!run.stderr.contains("NSURLErrorDomain"))
        #expect(run.wall >= 7.5 && run.wall < 15, "waited \(run.wall) s")
        #expect(run.cpu < 0.5, "used \(run.cpu) s of CPU in \(run.wall) s of waiting")
        #expect(server.accepted >= 1)
    }

    // URLSession on Linux waited out the whole timeout here; curl says at once.
    @Test func aConnectionClosedWithoutAnAnswerFailsAtOnce() throws {
        let server = try SilentListener(closesAtOnce: true)
        defer { server.stop() }
        let run = try SpawnedTool.run(
            "spotify-nowplaying", ["next"], environment: server.environment(timeout: 8), limit: 30)
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.stderr.contains("closed without an answer"), "\(run.stderr)")
        #expect(run.wall < 4, "took \(run.wall) s")
    }

    // A write whose answer is lost on a reused connection, before its first byte: URLSession on
    // Linux waited out the whole request timeout for each (16 s here); the write is settled by
    // reading the playlist again at once.
    @Test func aWriteWhoseAnswerIsLostOnAReusedConnectionFailsAtOnce() throws {
        let fake = try FakeSpotifyProcess()
        try fake.seedLogin(
            expiresIn: 3600, scope: "playlist-read-private playlist-modify-private playlist-modify-public")
        let environment = fake.environment(["SPOTIFY_TOOLKIT_REQUEST_TIMEOUT": "8"])
        let source = try ToolProcess.run(
            "spotify-tracks", ["--no-cache", "gen0000000000000000450"], environment: environment)
        #expect(source.status == 0, "\(source.stderr)")
        try fake.call(
            "POST", "/_fake/faults",
            form: [("kind", "lost_answer"), ("every", "3"), ("path_prefix", "/v1/playlists/")])
        let started = Date()
        let added = try ToolProcess.run(
            "spotify-playlists", ["add", "gen0000000000000000040"], stdin: source.stdout, environment: environment)
        let wall = Date().timeIntervalSince(started)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(wall < 6, "took \(wall) s")
        #expect((try fake.counters()["faults_fired"]?.intValue ?? 0) >= 1)
    }
}

/// A loopback listener that accepts and never answers: it holds each connection open, or reads
/// the request and closes it without a byte. Its thread stops by itself at `stop()`.
final class SilentListener: @unchecked Sendable {  // `fd`, `port` immutable; the rest under `lock`
    let fd: Int32
    let port: Int
    private let lock = NSLock()
    private var stopped = false
    private var held: [Int32] = []
    private var acceptedCount = 0
    private let done = DispatchSemaphore(value: 0)

    init(closesAtOnce: Bool) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 16) == 0
                    && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw CocoaError(.fileNoSuchFile)
        }
        fd = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in
            defer { done.signal() }
            while !lock.withLock({ stopped }) {
                var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, 100) == 1 else { continue }
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { continue }
                lock.withLock { acceptedCount += 1 }
                if closesAtOnce {
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    _ = read(connection, &buffer, buffer.count)
                    close(connection)
                } else {
                    lock.withLock { held.append(connection) }
                }
            }
        }
    }

    var accepted: Int { lock.withLock { acceptedCount } }

    func environment(timeout: Int) -> [String: String] {
        [
            "SPOTIFY_ACCESS_TOKEN": "token",
            "SPOTIFY_API_BASE": "http://127.0.0.1:\(port)/v1",
            "SPOTIFY_ACCOUNTS_BASE": "http://127.0.0.1:\(port)",
            "SPOTIFY_TOOLKIT_REQUEST_TIMEOUT": String(timeout),
            "SPOTIFY_TOOLKIT_CACHE_SIZE": "0",
            "SPOTIFY_TOOLKIT_HISTORY_SIZE": "0",
        ]
    }

    func stop() {
        let connections = lock.withLock {
            stopped = true
            defer { held = [] }
            return held
        }
        done.wait()
        for connection in connections { close(connection) }
        close(fd)
    }
}

/// A built tool spawned without Foundation's Process, so its rusage can be read with wait4.
enum SpawnedTool {
    struct Run {
        var status: Int32
        var stderr: String
        var cpu: Double
        var wall: Double
    }

    /// Runs `tool` with stdin and stdout on /dev/null; kills it after `limit` seconds.
    static func run(_ tool: String, _ arguments: [String], environment: [String: String], limit: Double) throws -> Run {
        let scratch = try TemporaryDirectory()
        let errPath = scratch.url.appendingPathComponent("stderr").path
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "SPOTIFY_TOOLKIT_FORCE_TTY")
        env["XDG_CONFIG_HOME"] = scratch.url.appendingPathComponent("config").path
        env["XDG_CACHE_HOME"] = scratch.url.appendingPathComponent("cache").path
        env["XDG_STATE_HOME"] = scratch.url.appendingPathComponent("state").path
        for (key, value) in environment { env[key] = value }
        let path = ToolProcess.url(of: tool).path
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var pid: pid_t = 0
        let started = Date()
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard spawned == 0 else { throw CocoaError(.executableNotLoadable) }
        var status: Int32 = 0
        var usage = rusage()
        while true {
            let reaped = wait4(pid, &status, WNOHANG, &usage)
            if reaped == pid { break }
            if reaped < 0 && errno != EINTR { throw CocoaError(.executableLoad) }
            if Date().timeIntervalSince(started) > limit { kill(pid, SIGKILL) }
            usleep(20_000)
        }
        let wall = Date().timeIntervalSince(started)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return Run(
            status: exitStatus, stderr: stderr, cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime), wall: wall)
    }
}
