import ToolkitCore

/// `--max-requests`: the most requests a reading run sends, so a library larger than a day's
/// quota is read over several days. Counted by the run's own tally (`ToolContext.requestsSent`,
/// every request and retry the ledger writes down). The list scheduler sends nothing past it: the
/// lists handed on before the stop are printed and cached whole, and the run ends with
/// `Exhausted`, which the reader turns into a count of what is done (exit 75: run it again, and
/// what is cached costs nothing).
package struct RequestBudget: Sendable {
    package let limit: Int
    let sent: Locked<Int>

    package init(limit: Int, sent: Locked<Int>) {
        self.limit = limit
        self.sent = sent
    }

    /// Requests sent so far.
    package var used: Int { sent.withLock { $0 } }

    /// How many more may go out with `inFlight` already on the wire.
    func room(inFlight: Int) -> Int { max(0, limit - used - inFlight) }

    /// The scheduler stopped at the budget with nothing left on the wire.
    package struct Exhausted: Error, Sendable {
        package var limit: Int
        package var sent: Int
    }

    /// A request outside the scheduler (a lookup) past the budget.
    func refusal() -> ToolError {
        ToolError.tempFail(
            """
            stopped at --max-requests \(limit) (\(used) requests sent); run the same command again to go on (what is \
            cached costs no request)
            """
        )
    }

    /// "stopped at --max-requests 1000 (1,003 sent): 412 of 2,000 playlists are done and cached; …"
    /// `atLeast`: more sources may still come on standard input.
    package static func stopped(
        _ exhausted: Exhausted, done: Int, of total: Int, atLeast: Bool = false, noun: String
    ) -> ToolError {
        ToolError.tempFail(
            """
            stopped at --max-requests \(exhausted.limit) (\(groupedThousands(exhausted.sent)) requests sent): \
            \(groupedThousands(done)) of \(atLeast ? "at least " : "")\(groupedThousands(total)) \(noun) are done and \
            cached; run the same \
            command again to go on where it stopped (what is cached costs no request)
            """
        )
    }

    // MARK: --max-requests auto

    /// The requests a day this app may send when `--max-requests auto` asks the ledger: Spotify
    /// publishes no quota for Development Mode apps, users report a lockout after about 1,100 to
    /// 2,500 a day, so the default stays under the lowest report.
    package static let dailyVariable = "SPOTIFY_TOOLKIT_DAILY_REQUESTS"
    static let defaultDaily = 1000

    /// `SPOTIFY_TOOLKIT_DAILY_REQUESTS`: a whole number from 1 to 1,000,000.
    package static func daily(_ text: String?) throws -> Int {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return defaultDaily }
        guard let value = Int(text), (1...1_000_000).contains(value) else {
            throw ToolError.config("\(dailyVariable) must be a number of requests from 1 to 1000000, not '\(text)'")
        }
        return value
    }

    /// What `auto` leaves for this run: the daily budget less what the ledger counts in the last
    /// 24 hours (`times`: when each of those requests went, oldest first). When nothing is left,
    /// the error says when the oldest request leaves the day (pure).
    package static func automatic(daily: Int, times: [Double], now: Double, zone: LocalZone) throws -> Int {
        let recent = times.filter { now - $0 <= RequestLedger.window }
        let left = daily - recent.count
        if left > 0 { return left }
        // Room for one more once `1 - left` of the oldest have aged out of the window.
        let freeing = recent.sorted()[min(recent.count - 1, max(0, -left))]
        let at = freeing + RequestLedger.window
        let local = LocalTime.text(isoSecondsTimestamp(at), "HH:mm", in: zone)
        throw ToolError.tempFail(
            """
            --max-requests auto: the ledger counts \(recent.count) requests in the last 24 h, the daily budget \
            (\(dailyVariable), default \(defaultDaily)) is spent; a request is free again at \(local) (in \
            \(RequestLedger.durationText(at - now))) (spotify-auth usage)
            """
        )
    }
}
