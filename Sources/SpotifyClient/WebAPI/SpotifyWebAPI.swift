import HTTPClient
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Authenticated requests to the Web API with the retry policy every tool shares: a 401 gets one
/// refresh and one retry; a 429 waits `Retry-After` up to a cap (beyond it: exit 75, saying how
/// long Spotify asked for; `QUOTA_EXCEEDED`: exit 69); on GETs, 5xx answers, failed connections
/// (resets, timeouts, truncated bodies) and bodies the caller cannot read are retried with
/// exponential backoff and jitter, and the final error says what failed after how many tries.
/// Errors name what failed and how to fix it, never the token.
package struct SpotifyWebAPI: Sendable {
    package var baseURL: String
    var transport: HTTPTransport
    package let tokens: TokenProvider
    /// The longest a 429 may make us wait before giving up (exit 75).
    var maxRetryWait: Double
    var retry: RetryPolicy
    var sleep: @Sendable (Double) async -> Void
    /// Told a line for a person when a request waits before going again (a retry, or a 429 asking
    /// for more than `noteWait` seconds), so a terminal is not left silent; tools set it only when
    /// stderr is a terminal (`ToolContext.webAPI`).
    package var note: (@Sendable (String) -> Void)?
    static let noteWait = 2.0
    /// A malformed SPOTIFY_API_BASE or SPOTIFY_TOOLKIT_MAX_RETRY_WAIT (exit 78 naming it): thrown
    /// by `validated()` and by every request, so no caller can send with a guessed configuration.
    let configurationError: ToolError?
    /// Where every request is written down, and the quota pause that stops every tool of the app
    /// before it sends anything (`RequestLedger`); nil in code that counts nothing (tests of parts).
    package var ledger: RequestLedger?
    /// `--max-requests`: the list scheduler sends nothing past it, and any other request past it
    /// ends the run (75), so a library larger than a day's quota is read over several days.
    package var budget: RequestBudget?

    package static let defaultBase = "https://api.spotify.com/v1"

    package init(
        environment: ToolEnvironment, developer: DeveloperSettings = DeveloperSettings(), tokens: TokenProvider,
        transport: HTTPTransport? = nil
    ) {
        var configurationError: ToolError?
        do throws(ToolError) {
            self.baseURL = try Self.apiBase(environment[Self.baseVariable])
        } catch {
            self.baseURL = Self.defaultBase
            configurationError = error
        }
        // The time-out and the proxy tunnel for plain http are developer settings; the CA settings
        // are SSL_CERT_FILE's (`CertificateTrust`).
        self.transport =
            transport
            ?? HTTPTransport(
                timeout: developer.requestTimeout,
                proxy: .init(tunnelsPlainHTTP: developer.tunnelsPlainHTTP, environment: environment),
                trust: .init(environment: environment))
        self.tokens = tokens
        do throws(ToolError) {
            self.maxRetryWait = try Self.maxRetryWait(environment[Self.maxRetryWaitVariable])
        } catch {
            self.maxRetryWait = Self.defaultMaxRetryWait
            configurationError = configurationError ?? error
        }
        self.configurationError = configurationError
        self.retry = RetryPolicy()
        self.sleep = { seconds in try? await Task.sleep(nanoseconds: UInt64(clamped(seconds, to: 0...3600) * 1e9)) }
    }

    /// This client for a shell's Tab: one try, no waiting out a 429, and an answer within
    /// `deadline` seconds or none, so a completion never blocks the shell.
    package func forCompletion(deadline: Double = 2) -> SpotifyWebAPI {
        var api = self
        api.retry = RetryPolicy(maxAttempts: 1, maxRateLimitWaits: 0)
        api.maxRetryWait = 0
        api.transport = transport.with(timeout: deadline, deadline: deadline)
        api.note = nil
        return api
    }

    /// This client, or the configuration error (exit 78) its environment holds: a tool checks
    /// before it reads input or sends anything.
    package func validated() throws -> SpotifyWebAPI {
        if let configurationError { throw configurationError }
        return self
    }

    /// GET `path` (relative to the API base, e.g. "/me") and return the successful result, or
    /// the answer itself when its status is in `passing`.
    package func get(_ path: String, query: [(String, String)] = [], passing: Set<Int> = []) async throws -> HTTPResult
    {
        try await send(method: "GET", path: path, query: query, body: nil, passing: passing)
    }

    package func send(
        method: String, path: String, query: [(String, String)] = [], body: Data?, passing: Set<Int> = [],
        scope: SpotifyScope.Need? = nil, idempotent: Bool = false
    ) async throws -> HTTPResult {
        try await perform(
            method: method, path: path, query: query, body: body, passing: passing, scope: scope, idempotent: idempotent
        ) { $0 }
        .value
    }

    /// What `perform` got.
    package struct Outcome<Value: Sendable>: Sendable {
        package var value: Value
    }

    /// A body that arrived whole but cannot be used (not JSON, a field missing, a page too short):
    /// `read` throws it and a GET is tried again like after a 5xx.
    package struct UnreadableBody: Error, Sendable, CustomStringConvertible {
        package var description: String
        package init(_ description: String) { self.description = description }

        /// The body as a JSON object, or an `UnreadableBody` that says what it was instead.
        static func jsonObject(_ body: Data) throws -> JSONValue {
            guard let json = try? JSONValue.parse(body), json.objectValue != nil else {
                throw UnreadableBody(
                    body.isEmpty ? "the body is empty" : "the body is not a JSON object (\(body.count) bytes)")
            }
            return json
        }
    }

    /// Sends the request under the retry policy. `passing` lists error statuses handed to `read`
    /// instead of thrown (e.g. 403 and 404 when the caller has its own words for them). `read`
    /// turns the answer into a value; an `UnreadableBody` from it retries a GET. `slot`: each try
    /// is sent only when that limit has room (the pager's window); waits between tries hold no place.
    /// `scope`: what the request needs, so a 403 for a missing scope names it and the login that adds it.
    /// `idempotent`: a write that sets an absolute state (`PUT /me/player/volume`, `PUT /me/library`),
    /// so sending it again after a lost answer cannot change the outcome: retried like a GET.
    package func perform<Value: Sendable>(
        method: String, path: String, query: [(String, String)] = [], body: Data? = nil, passing: Set<Int> = [],
        slot: InFlightSlot? = nil, scope: SpotifyScope.Need? = nil, idempotent: Bool = false,
        read: (HTTPResult) throws -> Value
    ) async throws -> Outcome<Value> {
        if let configurationError { throw configurationError }
        try ledger?.refuseIfPaused()
        if let budget, budget.room(inFlight: 0) == 0 && slot == nil { throw budget.refusal() }
        var urlText = baseURL + path
        if !query.isEmpty { urlText += "?" + URLForm.encode(query) }
        guard let url = URL(string: urlText) else { throw ToolError.software("bad request URL for \(path)") }
        let retriable = method == "GET" || idempotent
        var token = try await tokens.accessToken()
        var refreshed = false
        var attempt = 0
        var rateLimitWaits = 0
        while true {
            attempt += 1
            var request = HTTPClientRequest(url: url, method: method, headers: ["Authorization": "Bearer \(token)"])
            if let body {
                request.body = body
                request.setHeader("Content-Type", "application/json")
            }
            let result: HTTPResult
            do {
                result = try await transport.send(request, slot: slot)
            } catch let failure as HTTPFailure where failure.isTransient {
                ledger?.record(.webAPI, method: method, status: 0)
                try await backOff(failure.toolError.outcome(failure.requestOutcome), attempt: attempt, retriable)
                continue
            } catch let failure as HTTPFailure {
                ledger?.record(.webAPI, method: method, status: 0)
                // Nothing above branches on how the exchange failed, only on what it left behind.
                throw failure.toolError.outcome(failure.requestOutcome)
            }
            // A success's body is its caller's to parse (parsing every page twice was a sixth of a read's CPU).
            let error = result.isSuccess ? SpotifyErrorBody(success: result.status) : SpotifyErrorBody(result)
            let retryAfter = result.status == 429 ? Self.retryAfterSeconds(result.header("Retry-After")) : nil
            ledger?.record(
                .webAPI, method: method, status: result.status, reason: result.status == 429 ? error.reason : nil,
                retryAfter: retryAfter)
            // A spent quota ends the request even where the caller takes 429s itself (the watch):
            // waiting it out takes hours, and every tool of the app must hold off meanwhile.
            if result.status == 429 && error.reason == "QUOTA_EXCEEDED" {
                throw quotaExceeded(retryAfter: retryAfter).outcome(.notCarriedOut)
            }
            if result.isSuccess || passing.contains(result.status) {
                do {
                    return Outcome(value: try read(result))
                } catch let error as UnreadableBody {
                    try await backOff(
                        ToolError.unavailable(
                            "Spotify's answer to \(method) \(path) could not be read: \(error.description)"),
                        attempt: attempt, retriable)
                    continue
                }
            }
            let decision = RetryDecision(
                error, method: method, path: path, refreshed: refreshed, rateLimitWaits: rateLimitWaits,
                retryAfter: retryAfter, random: Double.random(in: 0..<1), maxRetryWait: maxRetryWait, policy: retry,
                knowsScope: scope != nil)
            switch decision {
            case .refreshToken:
                token = try await tokens.accessToken(afterRejectionOf: token)
                refreshed = true
                attempt -= 1  // a refresh is not a failed try
            case .waitOut(let wait):
                rateLimitWaits += 1
                attempt -= 1  // waiting out a 429 is not a failed try
                await sitOut(wait, after: result, slot: slot)
            case .tryAgain(let failure):
                try await backOff(failure, attempt: attempt, retriable)
            case .missingScope:
                throw await missingScope(scope!).outcome(.notCarriedOut)
            case .fail(let failure):
                throw failure
            }
        }
    }

    /// Waits out a 429 as Spotify asked. Under a limit that pauses its run, the limit already holds
    /// every start until the shared deadline: this request waits there, in its order, holding no place.
    private func sitOut(_ wait: Double, after result: HTTPResult, slot: InFlightSlot?) async {
        let sharedPause = slot?.limit.holdsRun(after: result) ?? false
        if wait > Self.noteWait && (!sharedPause || slot?.limit.claimPauseNote() == true) {
            note?("Spotify is rate limiting; waiting \(Self.seconds(wait)) as it asked, then trying again")
        }
        if !sharedPause { await sleep(wait) }
    }

    /// A transient failure on try `attempt`: back off and return to try again, or, when the
    /// request may not be sent again or its tries are spent, throw it, saying after how many.
    private func backOff(_ failure: ToolError, attempt: Int, _ retriable: Bool) async throws {
        guard retriable, attempt < retry.maxAttempts else {
            var error = failure
            if attempt > 1 { error.message += " (gave up after \(attempt) tries)" }
            throw error
        }
        note?("\(failure.message); trying again (\(attempt + 1) of \(retry.maxAttempts))")
        await sleep(retry.backoff(afterAttempt: attempt, random: Double.random(in: 0..<1)))
    }

    /// A spent quota: kept in the ledger when Spotify said for how long, so every tool of the app
    /// stops without asking again until then; said with when it is expected back.
    func quotaExceeded(retryAfter: Double?) -> ToolError {
        if let retryAfter, let ledger, let until = ledger.pauseForQuota(seconds: retryAfter) {
            return ledger.quotaError(until: until)
        }
        if let retryAfter, retryAfter > 0 {
            let now = Date().timeIntervalSince1970
            return RequestLedger.quotaError(until: now + retryAfter, now: now, zone: .system)
        }
        return ToolError.unavailable(
            "Spotify's quota for this app is used up (QUOTA_EXCEEDED); it resets later, not in seconds")
    }

    /// A missing scope, said the way that fixes it: a login adds it, but a token from
    /// SPOTIFY_ACCESS_TOKEN is used instead of any login, so that token itself must have it.
    func missingScope(_ need: SpotifyScope.Need) async -> ToolError {
        await tokens.usesEnvironmentToken ? need.environmentTokenError : need.error
    }

    /// The in-flight limit for one run of this client's requests (`--concurrency N`, or nil for
    /// the adaptive window): a 429 it can wait out pauses every request of the run once, until
    /// its Retry-After (`RetryPolicy.runPause`), with this client's sleep for the wake-up.
    package func inFlightLimit(concurrency: Int?) -> InFlightLimit {
        let cap = maxRetryWait
        let sleep = self.sleep
        return InFlightLimit(
            window: ConcurrencyWindow(fixed: concurrency),
            pauseRule: InFlightLimit.PauseRule(
                holdOff: { answer in
                    RetryPolicy.runPause(
                        status: answer.status, retryAfter: Self.retryAfterSeconds(answer.header("Retry-After")),
                        reason: answer.status == 429 ? SpotifyErrorBody(answer).reason : nil, cap: cap)
                },
                after: { seconds, wake in
                    Task {
                        await sleep(seconds)
                        wake()
                    }
                }))
    }

    /// "7 s", "1 h 0 min": how long Spotify asked us to wait.
    static func seconds(_ value: Double) -> String {
        let whole = value.isFinite ? Int(min(value, 1e9).rounded(.up)) : 0
        if whole < 120 { return "\(whole) s" }
        if whole < 7200 { return "\(whole / 60) min" }
        return "\(whole / 3600) h \(whole % 3600 / 60) min"
    }
}

extension SpotifyWebAPI {
    /// `Retry-After` in seconds when it is the delay-seconds form (digits only, RFC 9110); nil for
    /// anything else (`inf`, `-5`, a date), which then gets the ordinary backoff. May be huge.
    static func retryAfterSeconds(_ header: String?) -> Double? {
        guard let text = header?.trimmingCharacters(in: .whitespaces), !text.isEmpty,
            text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return Double(text)
    }

    package static let baseVariable = "SPOTIFY_API_BASE"
    package static let maxRetryWaitVariable = "SPOTIFY_TOOLKIT_MAX_RETRY_WAIT"
    static let defaultMaxRetryWait = 30.0

    /// `SPOTIFY_API_BASE`: an http or https URL with a host, without query or fragment; unset or
    /// empty gives Spotify's. Anything else is a configuration mistake (exit 78 naming the
    /// variable), not an internal error or a server to retry.
    /// `allowsInsecure`: only to compare a base with a stored login's, never to send to it.
    package static func apiBase(_ text: String?, allowsInsecure: Bool = false) throws(ToolError) -> String {
        guard let text, !text.isEmpty else { return defaultBase }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil, url.user == nil
        else {
            throw ToolError.config(
                """
                \(baseVariable) must be an http or https URL such as \(defaultBase), not \
                '\(SpotifyErrorBody.printable(text))'
                """
            )
        }
        try ServiceBase.refuseCleartext(url, variable: baseVariable, allowsInsecure: allowsInsecure)
        return text.trimmingSuffix("/")
    }

    /// `SPOTIFY_TOOLKIT_MAX_RETRY_WAIT`: the longest wait (seconds) a 429 may ask for before we
    /// give up; plain decimal digits (`30`, `0.5`) from 0 to 3600, 30 when unset or empty.
    /// Anything else (`nan`, `-1`, `1e300`, `0x10`, `abc`) is refused with exit 78 naming the
    /// variable, as a bad `SPOTIFY_TOOLKIT_CACHE_SIZE` is. The one parser of the variable: every
    /// waiter (the pager's retries, the watch) reads it here.
    static func maxRetryWait(_ text: String?) throws(ToolError) -> Double {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return defaultMaxRetryWait }
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let digits = { (part: Substring) in
            part.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        }
        guard !parts[0].isEmpty, parts.allSatisfy(digits), parts.count == 1 || !parts[1].isEmpty,
            let value = Double(text), value.isFinite, (0...3600).contains(value)
        else {
            throw ToolError.config(
                """
                \(maxRetryWaitVariable) must be a number of seconds from 0 to 3600, such as 30 or 0.5, not \
                '\(SpotifyErrorBody.printable(text))'
                """
            )
        }
        return value
    }
}

extension SpotifyWebAPI {
    /// The most requests a tool may keep in flight (`--concurrency`'s upper bound), so the tools
    /// need not reach into the HTTP layer for it.
    package static let concurrencyCeiling = ConcurrencyWindow.ceiling
}

extension InFlightLimit {
    /// A place in this limit's queue, served in `order`.
    package func slot(order: Int) -> InFlightSlot { InFlightSlot(self, order: order) }
}

/// Spotify's error body: `{"error":{"status":403,"message":"...","reason":"..."}}`, or plain text
/// (some Development Mode 403s).
package struct SpotifyErrorBody: Sendable, Equatable {
    package var status: Int
    package var message: String
    package var reason: String?

    /// An answer that is not an error: no message, no reason.
    init(success status: Int) {
        self.status = status
        message = ""
        reason = nil
    }

    package init(_ result: HTTPResult) {
        status = result.status
        let object = (try? JSONValue.parse(result.body))?["error"]
        if let object, let message = object["message"]?.stringValue {
            self.message = Self.printable(message)
            reason = object["reason"]?.stringValue.map(Self.printable)
        } else if let page = Self.htmlTitle(result.body) {
            // A front end's error page (a 413 for a body too large): its title, not its markup.
            message = page.isEmpty ? "HTTP \(result.status) (an HTML page)" : "HTTP \(result.status): \(page)"
            reason = nil
        } else {
            let text = Self.printable(String(decoding: result.body.prefix(300), as: UTF8.self))
            message = text.isEmpty ? "HTTP \(result.status)" : text
            reason = nil
        }
    }

    /// The title of an HTML body ("" when it has none), nil when the body is not HTML.
    static func htmlTitle(_ body: Data) -> String? {
        // ASCII case folded byte for byte, so offsets stay those of the body.
        let bytes = Array(body.prefix(4096))
        let folded = bytes.map { (65...90).contains($0) ? $0 + 32 : $0 }
        func find(_ tag: String, from start: Int = 0) -> Int? {
            let needle = Array(tag.utf8)
            guard folded.count >= needle.count, start <= folded.count - needle.count else { return nil }
            return (start...(folded.count - needle.count)).first {
                folded[$0..<($0 + needle.count)].elementsEqual(needle)
            }
        }
        let first = folded.firstIndex { ![9, 10, 13, 32].contains($0) } ?? 0
        guard find("<html") != nil || folded[first...].starts(with: Array("<!doctype".utf8)) else { return nil }
        guard let open = find("<title>"), let close = find("</title>", from: open + 7) else { return "" }
        return printable(String(decoding: bytes[(open + 7)..<close].prefix(120), as: UTF8.self))
    }

    /// A Development Mode 403 about the app or the user (not on the allowlist, owner without
    /// Premium): every request will get it, whatever it asks for.
    package var isAboutTheApp: Bool {
        message.contains("may not be registered")
            || message.localizedCaseInsensitiveContains("premium subscription required for the owner")
    }

    /// Server text made safe for a terminal and one line: control characters (escape sequences,
    /// newlines) become spaces, so a hostile or broken server cannot rewrite the user's screen.
    static func printable(_ text: String) -> String {
        TerminalText.clean(text).trimmingCharacters(in: .whitespaces)
    }

    /// A 403 with the fix: most are Development Mode rules that logging in again will not change.
    package var forbiddenExplanation: String {
        if message.contains("may not be registered") {
            return
                """
                Spotify refused: \(message) Add your Spotify account under User Management in the app's dashboard \
                (Development Mode allows 5 users).
                """
        }
        if message.localizedCaseInsensitiveContains("premium subscription required for the owner") {
            return "Spotify refused: \(message) The app owner's Premium subscription is required in Development Mode."
        }
        if reason == "PREMIUM_REQUIRED" {
            return "Spotify refused: this needs Spotify Premium (\(message))"
        }
        return "Spotify refused (403): \(message)"
    }
}
