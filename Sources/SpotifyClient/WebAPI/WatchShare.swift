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

/// One watch, many readers: while a `--watch` polls the player, it publishes Spotify's latest
/// answer here, and a one-shot `spotify-nowplaying` answers from it at no request while it is
/// fresh (until the watch's next poll is due), so ten status bars beside one watch cost what the
/// watch costs. Kept under `$XDG_RUNTIME_DIR/spotify-toolkit/` (memory, private to the user) where
/// set, else the state directory; one file per app and per endpoint (with or without the device),
/// replaced atomically, so a reader sees one whole answer or none.
package struct WatchShare: Sendable {
    let directory: PrivateDirectory
    let name: String
    /// The Web API the answers came from: a reader pointed elsewhere (another SPOTIFY_API_BASE)
    /// does not take them.
    let apiBase: String
    let clock: @Sendable () -> Double

    /// What a reader gets: Spotify's answer (nil: 204, nothing plays) and when it was seen.
    package struct Snapshot: Sendable, Equatable {
        package var body: JSONValue?
        package var observedAt: Double
        var freshUntil: Double
        package var pid: Int32
    }

    /// Slack added to the watch's next poll, so a reader between a due poll and its answer still
    /// gets the last one rather than a request of its own.
    static let slack = 2.0

    package init(
        environment: ToolEnvironment, app: String, apiBase: String, withDevice: Bool,
        clock: @escaping @Sendable () -> Double
    ) {
        let base = environment["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? $0 + "/spotify-toolkit" : nil }
        self.init(
            directory: PrivateDirectory(base ?? environment.stateDirectory),
            name: "nowplaying-\(app)\(withDevice ? "-player" : "").json", apiBase: apiBase, clock: clock)
    }

    init(directory: PrivateDirectory, name: String, apiBase: String, clock: @escaping @Sendable () -> Double) {
        self.directory = directory
        self.name = name
        self.apiBase = apiBase
        self.clock = clock
    }

    /// The watch saw `body` now; it polls again in `nextPollIn` seconds (wall time).
    /// Best effort: a share that cannot be written leaves readers asking Spotify.
    package func publish(_ body: JSONValue?, nextPollIn: Double) {
        let now = clock()
        let record: JSONValue = [
            "observed_at": .double(now), "fresh_until": .double(now + max(0, min(nextPollIn, 3600)) + Self.slack),
            "pid": .int(Int(getpid())), "api_base": .string(apiBase), "body": body ?? .null,
        ]
        // No fsync: rewritten at every poll, and worth nothing after a crash; a slow disk must
        // not slow the watch.
        try? directory.write(Data(record.serialized().utf8), to: name, durable: false)
    }

    /// The watch stopped, or its last poll failed: readers ask Spotify again.
    package func withdraw() {
        try? directory.remove(name)
    }

    /// The latest answer, when a live watch published it and its next poll is not yet overdue.
    package func freshSnapshot() -> Snapshot? {
        guard let data = try? directory.read(name, trust: .file), let value = try? JSONValue.parse(data),
            let observedAt = value["observed_at"]?.doubleValue, let freshUntil = value["fresh_until"]?.doubleValue,
            let pid = value["pid"]?.intValue, let pid = Int32(exactly: pid), pid > 0,
            value["api_base"]?.stringValue == apiBase
        else { return nil }
        let now = clock()
        guard observedAt <= now + 1, now <= freshUntil, Self.isAlive(pid) else { return nil }
        let body = value["body"]
        return Snapshot(body: body == .null ? nil : body, observedAt: observedAt, freshUntil: freshUntil, pid: pid)
    }

    /// Whether a process with `pid` runs (ours or not: EPERM means it exists).
    static func isAlive(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }
}
