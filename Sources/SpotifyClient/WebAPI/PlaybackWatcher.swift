import Dispatch
import HTTPClient
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

/// The watch's sense of time. Normally the wall clock; for tests and benchmarks, a `scale` of N
/// (`DeveloperSettings.timeScale`) makes it run N times faster, so the real scheduling code paces
/// an accelerated fake-spotify session (15 minutes in 15 s at N=60).
package struct WatchClock: Sendable {
    package let scale: Double
    let origin: Double
    /// The run's clock (`ToolContext.clock`), seconds since 1970.
    let wall: @Sendable () -> Double

    package init(scale: Double = 1, wall: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.scale = scale
        self.wall = wall
        origin = wall()
    }

    /// Seconds since 1970 on this clock.
    package func now() -> Double {
        origin + (wall() - origin) * scale
    }

    /// Sleeps `seconds` of this clock's time, or until `stop`.
    package func sleep(_ seconds: Double, or stop: StopSignal) async {
        await stop.sleep(seconds / scale)
    }
}

/// `--watch`: polls the player on the `PollSchedule` and emits a `now_playing` record for every
/// change, then a final record when it stops (after `duration`, or on `stop`). Network failures,
/// 5xx, unreadable answers and rate limits never end it: each streak is reported once and retried
/// with backoff, or after the Retry-After Spotify names, never longer than the cap every request
/// honours (`SPOTIFY_TOOLKIT_MAX_RETRY_WAIT`). A poll in flight is raced against `stop` and the
/// `duration` end, so a network that hangs cannot stretch the watch. Token refresh happens
/// inside the Web API client.
package struct PlaybackWatcher: Sendable {
    package var player: SpotifyPlayer
    package var schedule: PollSchedule
    package var clock: WatchClock
    package var withDevice: Bool
    /// Seconds of watching on `clock`; nil: until stopped.
    package var duration: Double?
    /// Where each answer is published for one-shot readers (`WatchShare`); nil: nowhere.
    package var share: WatchShare?

    package init(
        player: SpotifyPlayer, schedule: PollSchedule, clock: WatchClock, withDevice: Bool = false,
        duration: Double? = nil
    ) {
        self.player = player
        self.schedule = schedule
        self.clock = clock
        self.withDevice = withDevice
        self.duration = duration
    }

    enum Poll: Sendable {
        case answered(HTTPResult)
        case failed(ToolError)
        case stopped
    }

    /// 429 and 5xx come back to the watch, which paces its own retries on its own clock.
    static let pacedHere = Set(500..<1000).union([429])

    package func run(stop: StopSignal, warn: (String) -> Void, emit: (NowPlayingRecord) throws -> Void) async throws {
        var paced = player.api
        let clock = self.clock
        paced.sleep = { seconds in await clock.sleep(seconds, or: stop) }
        let api = paced
        let path = withDevice ? "/me/player" : "/me/player/currently-playing"
        let end = duration.map { clock.now() + $0 }

        var last: PlaybackObservation?
        var lastAt = clock.now()
        var stateSince = lastAt
        var failures = 0
        /// What the current failure streak is (network, 5xx, 429): reported when it starts or changes.
        var failing: String?

        defer { share?.withdraw() }
        while !stop.isStopped {
            if let end, clock.now() >= end { break }
            // Delays count from the start of the poll, so request latency does not stretch the cadence.
            let pollStart = clock.now()
            let poll = await Self.race {
                try await api.get(path, query: [("additional_types", "track,episode")], passing: Self.pacedHere)
            } until: {
                if let end { await clock.sleep(end - clock.now(), or: stop) } else { await stop.wait() }
            }
            var problem: (kind: String, message: String)?
            var wait = 0.0
            switch poll {
            case .stopped:
                break
            case .failed(let error) where error.exitCode == .unavailable:
                failures += 1
                (problem, wait) = (("network", error.message), schedule.backoff(failures: failures))
            case .failed(let error):
                throw error
            case .answered(let result) where result.status == 429 || result.status >= 500:
                failures += 1
                (problem, wait) = serverTrouble(result, failures: failures, cap: api.maxRetryWait)
            case .answered(let result):
                let body: JSONValue?
                do {
                    body = try Self.playerBody(result)
                } catch let error as ToolError {
                    // Like a 5xx: a captive portal or a broken proxy passes; the watch goes on.
                    failures += 1
                    problem = ("unreadable", error.message)
                    wait = schedule.backoff(failures: failures)
                    break
                }
                let observation = PlaybackObservation(body, ofWholePlayer: withDevice)
                if failing != nil {
                    warn("Spotify answers again; watching on")
                    failing = nil
                }
                failures = 0
                let now = clock.now()
                if last.map({ $0.isChange(to: observation) }) ?? true {
                    try emit(NowPlayingRecord(observation, observedAt: isoTimestamp(now)))
                    if last?.isPlaying != observation.isPlaying || last?.hasItem != observation.hasItem {
                        stateSince = now
                    }
                }
                last = observation
                lastAt = now
                wait = schedule.delay(after: observation, inStateFor: now - stateSince)
                share?.publish(body, nextPollIn: wait / clock.scale)
            }
            if stop.isStopped { break }
            if let problem { failing = reportTrouble(problem, streak: failing, warn: warn) }
            let delay = wait - (clock.now() - pollStart)
            await clock.sleep(min(delay, end.map { $0 - clock.now() } ?? delay), or: stop)
        }

        if let last, last.hasItem {
            try emit(Self.finalRecord(last, seenAt: lastAt, now: clock.now()))
        }
    }

    /// A 429 or 5xx: what to say, and how long to wait before the next poll.
    func serverTrouble(_ result: HTTPResult, failures: Int, cap: Double) -> ((kind: String, message: String), Double) {
        guard result.status == 429 else {
            let message = "Spotify failed (HTTP \(result.status): \(SpotifyErrorBody(result).message))"
            return (("5xx", message), schedule.backoff(failures: failures))
        }
        let rateLimit = Self.rateLimitWait(
            retryAfter: result.header("Retry-After"), cap: cap, backoff: schedule.backoff(failures: failures))
        return (("429", rateLimit.message), rateLimit.wait)
    }

    /// The player object a 200 carries (nil: nothing plays); JSON that is not one is unreadable,
    /// as read as "nothing plays" it would fake a change.
    static func playerBody(_ result: HTTPResult) throws -> JSONValue? {
        let body = try SpotifyPlayer.body(of: result)
        if let body, body.objectValue == nil {
            throw ToolError.unavailable("Spotify answered JSON that is not a player object (HTTP 200)")
        }
        return body
    }

    /// A failed poll: what was published is no longer known to hold (readers ask Spotify
    /// themselves), and the streak of failures of one kind is said once: a watch over a blinking
    /// Wi-Fi must not flood stderr. Cleaned: server text (an error body, a proxy's page) must not
    /// drive the terminal. Returns the streak's kind.
    func reportTrouble(
        _ problem: (kind: String, message: String), streak failing: String?, warn: (String) -> Void
    ) -> String {
        share?.withdraw()
        if failing != problem.kind {
            warn(TerminalText.clean("\(problem.message); retrying (the watch goes on)"))
        }
        return problem.kind
    }

    /// The record said when the watch stops: the last one seen, its progress carried to `now`.
    static func finalRecord(_ last: PlaybackObservation, seenAt lastAt: Double, now: Double) -> NowPlayingRecord {
        let elapsed = max(0, min((now - lastAt) * 1000, 1e12))
        var carried = last
        carried.progressMs = last.progress(after: Int(elapsed))
        return NowPlayingRecord(carried, observedAt: isoTimestamp(now), final: true)
    }

    /// How long to sit out a 429 and what to say: the Retry-After it names (digits only, as the
    /// pager reads it), at most `cap`, else `backoff`. Never less than a second, so a cap of 0
    /// cannot turn the watch into a busy loop. Pure, and total: any header is a finite wait.
    static func rateLimitWait(retryAfter header: String?, cap: Double, backoff: Double) -> (
        wait: Double, message: String
    ) {
        guard let asked = SpotifyWebAPI.retryAfterSeconds(header), asked.isFinite else {
            return (max(backoff, 1), "Spotify is rate limiting")
        }
        if asked <= cap {
            return (max(asked, 1), "Spotify is rate limiting; waiting the \(SpotifyWebAPI.seconds(asked)) it asked for")
        }
        return (
            max(cap, 1),
            """
            Spotify is rate limiting and asked to wait \(SpotifyWebAPI.seconds(asked)); polling again after the \
            \(SpotifyWebAPI.seconds(max(cap, 1))) cap (SPOTIFY_TOOLKIT_MAX_RETRY_WAIT)
            """
        )
    }

    /// Runs one request until it answers or `until` returns (a stop, or the end of `--for`),
    /// whichever comes first; the loser is cancelled. Not a task group: that would wait for a
    /// request that ignores cancellation (a network black hole) before returning.
    static func race(
        _ request: @escaping @Sendable () async throws -> HTTPResult, until: @escaping @Sendable () async -> Void
    ) async -> Poll {
        let resumed = Locked(false)
        let tasks = Locked<[Task<Void, Never>]>([])
        let poll = await withCheckedContinuation { (continuation: CheckedContinuation<Poll, Never>) in
            let finish: @Sendable (Poll) -> Void = { poll in
                let first = resumed.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume(returning: poll) }
            }
            let work = Task {
                do {
                    finish(.answered(try await request()))
                } catch let error as ToolError {
                    finish(.failed(error))
                } catch {
                    finish(.failed(.unavailable("\(error)")))
                }
            }
            let limit = Task {
                await until()
                finish(.stopped)
            }
            tasks.withLock { $0 = [work, limit] }
        }
        for task in tasks.withLock({ $0 }) { task.cancel() }
        return poll
    }
}
