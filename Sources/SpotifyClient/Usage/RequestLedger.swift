import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What every process of the toolkit sent to Spotify, per app (client id), kept for a rolling day
/// under `$XDG_STATE_HOME/spotify-toolkit/`, and the quota pause: since Spotify's July 2026 quota,
/// a spent budget locks the app out for about 13 hours, and every tool must know it without
/// asking Spotify again. A record of requests, never a reason to fail one: a request that cannot
/// be written down is sent all the same, and a damaged ledger is set aside (`AppendLog`).
package struct RequestLedger: Sendable {
    /// Which Spotify service a request went to.
    package enum Service: String, Sendable {
        case webAPI = "api"
        case accounts
    }

    /// One request, one line of the ledger.
    package struct Entry: Sendable, Equatable {
        package var at: Double
        package var tool: String
        package var service: Service
        package var method: String
        /// The answer's status; 0 when no answer came (the request may still have counted).
        package var status: Int
        /// A 429's `reason` (`QUOTA_EXCEEDED`) and `Retry-After`, when it had them.
        package var reason: String?
        package var retryAfter: Double?

        package init(
            at: Double, tool: String, service: Service, method: String, status: Int, reason: String? = nil,
            retryAfter: Double? = nil
        ) {
            self.at = at
            self.tool = tool
            self.service = service
            self.method = method
            self.status = status
            self.reason = reason
            self.retryAfter = retryAfter
        }

        var json: JSONValue {
            var object: JSONObject = [
                "at": .double((at * 1000).rounded() / 1000), "tool": .string(tool),
                "service": .string(service.rawValue),
                "method": .string(method), "status": .int(status),
            ]
            if let reason { object["reason"] = .string(reason) }
            if let retryAfter { object["retry_after"] = .double(retryAfter) }
            return .object(object)
        }

        /// A ledger line read back; nil for a line that is not one (it is skipped, never fatal).
        init?(line: some StringProtocol) {
            guard let value = try? JSONValue.parse(String(line)), let at = value["at"]?.doubleValue, at.isFinite,
                let tool = value["tool"]?.stringValue, let method = value["method"]?.stringValue,
                let status = value["status"]?.intValue
            else { return nil }
            self.at = at
            self.tool = tool
            self.service = value["service"]?.stringValue.flatMap(Service.init(rawValue:)) ?? .webAPI
            self.method = method
            self.status = status
            self.reason = value["reason"]?.stringValue
            self.retryAfter = value["retry_after"]?.doubleValue.flatMap { $0.isFinite ? $0 : nil }
        }
    }

    /// The ledger keeps a rolling day; it is trimmed once its oldest line is an hour past that.
    package static let window: Double = 24 * 3600
    static let trimSlack: Double = 3600
    /// Below this size the ledger is not even looked at for trimming.
    static let trimCheckBytes = 64 << 10

    package let tool: String
    /// The app the ledger counts for: its client id, made safe for a file name.
    package let app: String
    let log: AppendLog
    let directory: PrivateDirectory
    /// This run's count, shared by every copy of the ledger the run makes (`ToolContext.requestsSent`).
    package var tally: Locked<Int>?
    let clock: @Sendable () -> Double
    /// The user's zone (`TZ`), for when a spent quota is expected back.
    let zone: LocalZone

    package init(environment: ToolEnvironment, tool: String, clock: @escaping @Sendable () -> Double) {
        let clientID =
            environment["SPOTIFY_CLIENT_ID"] ?? (try? ConfigFile(environment: environment).load().clientID) ?? nil
        self.init(
            directory: PrivateDirectory(environment.stateDirectory), app: Self.fileSafe(clientID), tool: tool,
            clock: clock, zone: LocalTime.zone(environment["TZ"]))
    }

    package init(
        directory: PrivateDirectory, app: String, tool: String, clock: @escaping @Sendable () -> Double,
        zone: LocalZone = .system
    ) {
        self.directory = directory
        self.app = app
        self.tool = tool
        self.clock = clock
        self.zone = zone
        log = AppendLog(directory: directory, name: "requests-\(app).jsonl")
    }

    /// A client id as part of a file name: letters, digits, `-` and `_` only (a client id is 32 hex
    /// digits), else "default", so no value can name a file elsewhere.
    package static func fileSafe(_ clientID: String?) -> String {
        guard let clientID, !clientID.isEmpty, clientID.utf8.count <= 64,
            clientID.utf8.allSatisfy({ Self.fileNameBytes.contains($0) })
        else { return "default" }
        return clientID
    }

    static let fileNameBytes = Set(Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_".utf8))

    var ledgerPath: String { log.path }
    var pausePath: String { directory.file(pauseName) }
    var pauseName: String { "quota-\(app).json" }

    // MARK: Counting

    /// Writes one request down. Never throws and never waits for long: a ledger that cannot be
    /// written loses the line, not the request.
    package func record(
        _ service: Service, method: String, status: Int, reason: String? = nil, retryAfter: Double? = nil
    ) {
        tally?.withLock { $0 += 1 }
        let now = clock()
        let entry = Entry(
            at: now, tool: tool, service: service, method: method, status: status, reason: reason,
            retryAfter: retryAfter)
        guard let size = try? log.append(entry.json.serialized()), size > Self.trimCheckBytes else { return }
        trimIfDue(now: now)
    }

    /// Drops what is older than the window, once the oldest line is an hour past it (so a trim
    /// happens about once an hour, not at every request).
    func trimIfDue(now: Double) {
        guard let first = log.firstLine() else { return }
        // A first line that is not an entry is damage: the trim drops it.
        let oldest = Entry(line: first)?.at ?? 0
        guard now - oldest > Self.window + Self.trimSlack else { return }
        _ = try? log.trim { line in (Entry(line: line)?.at).map { now - $0 <= Self.window } ?? false }
    }

    /// Every request of the last day (the lines within the window), oldest first.
    package func entries() throws -> [Entry] {
        let now = clock()
        return try log.lines().compactMap { Entry(line: $0) }.filter { now - $0.at <= Self.window }
    }

    /// More requests than this in one run is worth a line on a terminal.
    package static let costlyRun = 100

    /// "sent 667 requests to Spotify; the app's ledger counts 1,204 in the last 24 h (spotify-auth usage)".
    package func costNote(sent: Int) -> String {
        let day = (try? entries().count).map { "; the app's ledger counts \($0) in the last 24 h" } ?? ""
        return "sent \(sent) requests to Spotify\(day) (spotify-auth usage)"
    }

    // MARK: The quota pause

    /// The quota pause as it is kept on disk.
    package struct Pause: Sendable, Equatable {
        package var until: Double
        var setAt: Double
        package var tool: String

        var json: JSONValue {
            [
                "quota_exceeded_until": .string(isoSecondsTimestamp(until)), "until": .double(until),
                "set_at": .string(isoSecondsTimestamp(setAt)), "tool": .string(tool),
            ]
        }

        init(until: Double, setAt: Double, tool: String) {
            self.until = until
            self.setAt = setAt
            self.tool = tool
        }

        init?(_ data: Data) {
            guard let value = try? JSONValue.parse(data), let until = value["until"]?.doubleValue, until.isFinite
            else { return nil }
            self.until = until
            setAt = value["set_at"]?.stringValue.flatMap(parseISOTimestamp) ?? 0
            tool = value["tool"]?.stringValue ?? ""
        }
    }

    /// The pause in force now, if any. A pause file that cannot be read is no pause: the next
    /// request asks Spotify, which says again if the quota is spent.
    package func pause() -> Pause? {
        guard let data = try? directory.read(pauseName, trust: .file), let pause = Pause(data),
            pause.until > clock()
        else { return nil }
        return pause
    }

    /// Spotify said the quota is spent for `seconds`: every tool of this app holds off until then.
    /// A later deadline moves the pause; an earlier one (an older answer) leaves it. Returns when
    /// the pause in force ends (nil for a wait of nothing). A week at most: a larger Retry-After
    /// is a server's mistake, and `--clear-pause` undoes any.
    @discardableResult
    func pauseForQuota(seconds: Double) -> Double? {
        guard seconds.isFinite, seconds > 0 else { return nil }
        let now = clock()
        let until = now + min(seconds, Self.longestPause)
        if let current = pause(), current.until >= until { return current.until }
        let pause = Pause(until: until, setAt: now, tool: tool)
        try? directory.write(Data((pause.json.serialized() + "\n").utf8), to: pauseName)
        return until
    }

    static let longestPause: Double = 7 * 24 * 3600

    /// Forgets the pause (`spotify-auth usage --clear-pause`); whether there was one in force.
    @discardableResult
    package func clearPause() throws -> Bool {
        let had = pause() != nil
        try directory.remove(pauseName)
        return had
    }

    /// Throws the quota error (exit 69) while a pause is in force, before anything is sent.
    func refuseIfPaused() throws {
        guard let pause = pause() else { return }
        throw quotaError(until: pause.until)
    }

    /// The quota error for a pause ending at `until`, in this ledger's zone and clock.
    package func quotaError(until: Double) -> ToolError {
        Self.quotaError(until: until, now: clock(), zone: zone)
    }

    /// "Spotify's quota for this app is used up; it is expected back at 08:12 (in 13 h 35 min)".
    package static func quotaError(until: Double, now: Double, zone: LocalZone) -> ToolError {
        // The day too when it is not within the next 20 hours, where a bare time could be misread.
        let format = until - now < 20 * 3600 ? "HH:mm" : "yyyy-MM-dd HH:mm"
        let local = LocalTime.text(isoSecondsTimestamp(until), format, in: zone)
        return ToolError.unavailable(
            """
            Spotify's quota for this app is used up (QUOTA_EXCEEDED); it is expected back at \(local) \
            (in \(durationText(until - now))); until then no tool sends a request (spotify-auth usage shows it; \
            --clear-pause forgets it)
            """)
    }

    /// "13 h 35 min", "4 min", "40 s": to the nearest minute from a minute on, as the clock time
    /// beside it is shown to the minute.
    package static func durationText(_ seconds: Double) -> String {
        let whole = seconds.isFinite ? Int(clamped(seconds, to: 0...1e9).rounded(.up)) : 0
        if whole < 60 { return "\(whole) s" }
        let minutes = Int((Double(whole) / 60).rounded())
        if minutes < 60 { return "\(minutes) min" }
        return "\(minutes / 60) h \(minutes % 60) min"
    }
}
