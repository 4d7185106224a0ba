import Foundation
import LoopbackHTTP
import ToolkitCore

/// A fault fake-spotify injects into Web API answers, by rate or on a schedule: a 429 with
/// Retry-After, a quota 429, a 5xx, a reset connection, a truncated body, an unparsable body, a
/// delay (to provoke client timeouts), or a read served from a replica one write behind. Whether
/// the request itself is carried out (now, never, or late) is the rule's `carry`. Rules come from
/// `--fault` at launch or `POST /_fake/faults`.
struct FaultRule: Sendable, Equatable {
    enum Kind: String, Sendable, CaseIterable {
        case rateLimit = "rate_limit"
        case quota
        case serverError = "server_error"
        case reset
        /// The request is carried out, then the connection closes without a byte of the answer.
        case lostAnswer = "lost_answer"
        case truncate
        case garbage
        case delay
        /// A GET of a written playlist (`/v1/playlists/{id}`, `/items`, the legacy `/tracks`) is
        /// served as the playlist was before its most recent write: a replica lagging one write.
        case staleRead = "stale_read"

        /// A 429 refuses the request: it is never carried out.
        var refusesRequest: Bool { self == .rateLimit || self == .quota }
        /// The kinds that break an answer, and so may or may not have carried the request out.
        var breaksAnswer: Bool { [.serverError, .reset, .lostAnswer, .truncate, .garbage].contains(self) }
    }

    /// Whether a broken request is carried out: the difference a writer must find out by reading again.
    enum Carry: String, Sendable, CaseIterable {
        /// Carried out, then its answer broken (the default, as Spotify usually fails).
        case yes
        /// Not carried out; the broken answer comes instead (always so for the 429s).
        case no
        /// Carried out `lateMs` after it arrived, on a timer, against the playlist as it is then;
        /// the connection gets no useful answer (see `FakeSpotifyService.answerLate`).
        case late
    }

    enum Trigger: Sendable, Equatable {
        /// Each matching request with this probability (from a seeded generator: reproducible).
        case rate(Double)
        /// Every Nth matching request.
        case every(Int)
        /// The matching requests with these 1-based numbers.
        case at(Set<Int>)
    }

    var kind: Kind
    var trigger: Trigger
    /// Requests whose path starts with this are matched.
    var pathPrefix = "/v1/"
    /// And, when set, only those whose `offset` query is this: one page of a list (the last
    /// page of a read failing).
    var offset: Int?
    /// And, when set, only requests of this method (a DELETE refused while reads go through).
    var method: String?
    /// For server_error, and for the error whose breakage answers a request not carried out.
    var status = 503
    /// For rate_limit and quota: the Retry-After header.
    var retryAfter = "1"
    /// For delay: how long to wait before answering.
    var delayMs = 0
    /// For the kinds that break an answer: whether the request is carried out (Carry).
    var carry = Carry.yes
    /// For carry=late: how long after it arrived the request is carried out.
    var lateMs = 0
    /// Fire at most this many times; nil: no limit.
    var limit: Int?
    var seen = 0
    var fired = 0
    var random: SplitMix64

    /// Parses `kind=server_error every=10 status=502` style fields (the form of POST /_fake/faults,
    /// and of --fault with the fields separated by spaces or commas).
    init(fields: [(name: String, value: String)]) throws {
        var kind: Kind?
        var trigger: Trigger?
        var seed: UInt64 = 1
        var carry: Carry?
        var lateMs: Int?
        func setTrigger(_ value: Trigger) throws {
            guard trigger == nil else { throw ControlError("give one of rate, every and at") }
            trigger = value
        }
        for (name, value) in fields {
            switch name {
            case "kind":
                guard let parsed = Kind(rawValue: value) else {
                    throw ControlError(
                        "kind must be one of \(Kind.allCases.map(\.rawValue).joined(separator: ", ")), not '\(value)'")
                }
                kind = parsed
            case "rate", "every", "at":
                try setTrigger(try Self.trigger(name, value))
            case "path_prefix":
                guard value.hasPrefix("/") else { throw ControlError("path_prefix must start with '/'") }
                pathPrefix = value
            case "offset":
                offset = try FakeSpotifySettings.int(name, value)
            case "method":
                guard ["GET", "POST", "PUT", "DELETE"].contains(value) else {
                    throw ControlError("method must be GET, POST, PUT or DELETE, not '\(value)'")
                }
                method = value
            case "status":
                status = try FakeSpotifySettings.int(name, value)
                guard (500...599).contains(status) else {
                    throw ControlError("status must be 500...599 for server_error")
                }
            case "retry_after": retryAfter = value
            case "delay_ms":
                delayMs = try FakeSpotifySettings.int(name, value)
                guard (0...600_000).contains(delayMs) else { throw ControlError("delay_ms must be 0...600000") }
            case "carry":
                guard let parsed = Carry(rawValue: value) else {
                    throw ControlError("carry must be yes, no or late, not '\(value)'")
                }
                carry = parsed
            case "late_ms":
                let late = try FakeSpotifySettings.int(name, value)
                guard (0...600_000).contains(late) else { throw ControlError("late_ms must be 0...600000") }
                lateMs = late
            case "count":
                let count = try FakeSpotifySettings.int(name, value)
                guard count >= 1 else { throw ControlError("count must be at least 1") }
                limit = count
            case "seed":
                guard let value = UInt64(value) else { throw ControlError("seed must be a whole number") }
                seed = value
            default:
                throw ControlError(
                    """
                    unknown fault field '\(name)'; known: kind, rate, every, at, path_prefix, offset, method, status, \
                    retry_after, delay_ms, carry, late_ms, count, seed
                    """
                )
            }
        }
        guard let kind else { throw ControlError("kind is required") }
        guard let trigger else { throw ControlError("one of rate, every or at is required") }
        self.kind = kind
        self.trigger = trigger
        self.random = SplitMix64(seed: seed)
        self.carry = try Self.checkedCarry(carry, lateMs: lateMs, kind: kind)
        self.lateMs = lateMs ?? 0
    }

    /// What a `rate`, `every` or `at` field says.
    private static func trigger(_ name: String, _ value: String) throws -> Trigger {
        switch name {
        case "rate":
            guard let rate = Double(value), rate >= 0, rate <= 1 else {
                throw ControlError("rate must be a number from 0 to 1, not '\(value)'")
            }
            return .rate(rate)
        case "every":
            let every = try FakeSpotifySettings.int(name, value)
            guard every >= 1 else { throw ControlError("every must be at least 1") }
            return .every(every)
        default:
            var numbers = Set<Int>()
            for part in value.split(whereSeparator: { $0 == "+" || $0 == ";" || $0 == " " }) {
                guard let number = Int(part), number >= 1 else {
                    throw ControlError("at takes request numbers from 1, separated by '+', not '\(value)'")
                }
                numbers.insert(number)
            }
            guard !numbers.isEmpty else { throw ControlError("at needs at least one request number") }
            return .at(numbers)
        }
    }

    /// The carry a kind allows: any for the kinds that break an answer (default yes), only no for
    /// the 429s, none given for delay and stale_read (a delay carries out, a stale read writes nothing).
    private static func checkedCarry(_ carry: Carry?, lateMs: Int?, kind: Kind) throws -> Carry {
        if lateMs != nil && carry != .late { throw ControlError("late_ms goes with carry=late") }
        if carry == .late && lateMs == nil { throw ControlError("carry=late needs late_ms (0...600000)") }
        if kind.refusesRequest {
            guard carry == nil || carry == .no else {
                throw ControlError("\(kind.rawValue) refuses the request: it is never carried out (carry=no)")
            }
            return .no
        }
        guard kind.breaksAnswer else {
            if carry != nil { throw ControlError("carry is for server_error, reset, lost_answer, truncate, garbage") }
            return .yes
        }
        return carry ?? .yes
    }

    /// `--fault 'kind=reset every=20'` (spaces or commas between fields).
    init(launchSpec: String) throws {
        let fields = launchSpec.split(whereSeparator: { $0 == " " || $0 == "," }).map {
            part -> (name: String, value: String) in
            let pieces = part.split(separator: "=", maxSplits: 1)
            return (String(pieces[0]), pieces.count > 1 ? String(pieces[1]) : "")
        }
        try self.init(fields: fields)
    }

    /// Whether this rule hits the next request to `path`; counts it. `readHasPreviousVersion`: the
    /// request is a GET of a written playlist that has a version before its last write, the only
    /// request a stale_read can lag (so `at=1` means the first such read, not the first request).
    mutating func hits(path: String, method: String? = nil, offset: Int? = nil, readHasPreviousVersion: Bool = false)
        -> Bool
    {
        guard path.hasPrefix(pathPrefix), kind != .staleRead || readHasPreviousVersion else { return false }
        if let wanted = self.offset, offset != wanted { return false }
        if let wanted = self.method, method != wanted { return false }
        seen += 1
        if let limit, fired >= limit { return false }
        let hit: Bool
        switch trigger {
        case .rate(let rate): hit = nextUnit() < rate
        case .every(let n): hit = seen % n == 0
        case .at(let numbers): hit = numbers.contains(seen)
        }
        if hit { fired += 1 }
        return hit
    }

    mutating func nextUnit() -> Double { random.nextUnit() }

    /// The answer after the fault (carry=yes): replaces or breaks the normal one. A 5xx, a reset
    /// or a cut body after a write has landed is exactly the unknown outcome a writer must find
    /// out about by reading again.
    func apply(to response: HTTPResponse) -> HTTPResponse {
        switch kind {
        case .rateLimit:
            return Fixtures.response("error-429.json", status: 429, headers: [("Retry-After", retryAfter)])
        case .quota:
            return Fixtures.response(
                "error-429-quota-exceeded.json", status: 429, headers: [("Retry-After", retryAfter)])
        case .serverError:
            let message = status == 502 ? "Backend respond with 500" : HTTPResponse.reasonPhrase(for: status)
            return WebAPI.error(status, message)
        case .reset:
            var broken = response
            broken.transportFault = .reset
            return broken
        case .lostAnswer:
            var broken = response
            broken.transportFault = .dropAnswer
            return broken
        case .truncate:
            var broken = response
            broken.transportFault = .truncateBody(keeping: response.body.count / 2)
            return broken
        case .garbage:
            // Whole as HTTP, but the JSON stops halfway.
            var broken = response
            broken.body = Array(response.body.prefix(response.body.count / 2))
            return broken
        case .delay, .staleRead:
            return response
        }
    }

    /// The answer when the request is not carried out (carry=no, the 429s, and carry=late until
    /// later): the breakage of the `status` error (default 503), as a gateway that never reached
    /// Spotify, or gave up on it, would answer. Not the route's own answer: there is none, and a
    /// 2xx status would claim a write that did not happen.
    func answerWithoutCarryingOut() -> HTTPResponse {
        let message = status == 502 ? "Backend respond with 500" : HTTPResponse.reasonPhrase(for: status)
        return apply(to: WebAPI.error(status, message))
    }

    var json: JSONValue {
        let trigger: JSONValue =
            switch self.trigger {
            case .rate(let rate): ["rate": .double(rate)]
            case .every(let n): ["every": .int(n)]
            case .at(let numbers): ["at": .array(numbers.sorted().map(JSONValue.int))]
            }
        var object: JSONObject = [
            "kind": .string(kind.rawValue), "trigger": trigger, "path_prefix": .string(pathPrefix),
        ]
        if let offset { object["offset"] = .int(offset) }
        if let method { object["method"] = .string(method) }
        if kind.refusesRequest || kind.breaksAnswer { object["carry"] = .string(carry.rawValue) }
        if carry == .late { object["late_ms"] = .int(lateMs) }
        object["count"] = limit.map(JSONValue.int) ?? .null
        object["seen"] = .int(seen)
        object["fired"] = .int(fired)
        return .object(object)
    }
}

/// What one Web API request gets from the load controls: a delay first, maybe a fault after, and
/// maybe its playlist as it was before the last write.
struct RequestPlan {
    var delayMs: Int
    var fault: FaultRule?
    /// A stale_read fired: a written playlist is read as it was before its most recent write.
    var servesPreviousVersion = false
    /// The rolling rate limit refused it: a 429 with this Retry-After, and nothing else happens.
    var rateLimitedFor: Int?
}

extension FakeSpotifyState {
    /// Called as a Web API request arrives: counts it by route (now, so a request held for a late
    /// carry or never answered is counted too) and in flight, and picks its faults. `playlistRead`:
    /// the playlist's id when the request is a read a stale_read can lag.
    mutating func beginRequest(
        routeKey: String, path: String, method: String? = nil, offset: Int? = nil, playlistRead: String?
    ) -> RequestPlan {
        counters.requests[routeKey, default: 0] += 1
        inFlight += 1
        counters.maxInFlight = max(counters.maxInFlight, inFlight)
        let readHasPreviousVersion = playlistRead.map { playlistsBeforeLastWrite[$0] != nil } ?? false
        var plan = RequestPlan(delayMs: settings.library.latencyMs, fault: nil)
        // The rate limit stands in front, as Spotify's does: a refused request meets no fault.
        let now = Self.monotonicSeconds()
        noteArrival(path: path, now: now)
        plan.rateLimitedFor = rateLimitVerdict(path: path, now: now)
        if plan.rateLimitedFor != nil { return plan }
        for index in faults.indices
        where faults[index].hits(
            path: path, method: method, offset: offset, readHasPreviousVersion: readHasPreviousVersion)
        {
            let kind = faults[index].kind
            counters.faultsFired += 1
            counters.faultsFiredByKind[kind.rawValue, default: 0] += 1
            switch kind {
            case .delay: plan.delayMs += faults[index].delayMs
            case .staleRead: plan.servesPreviousVersion = true
            default: if plan.fault == nil { plan.fault = faults[index] }
            }
        }
        if plan.servesPreviousVersion { counters.staleReads += 1 }
        return plan
    }

    mutating func endRequest() {
        inFlight -= 1
    }
}

extension FakeSpotifyService {
    /// Adds fault rules (from --fault at launch).
    func addFaults(_ rules: [FaultRule]) {
        state.withLock { $0.faults += rules }
    }

    /// `POST /_fake/faults` kind=K (rate=P | every=N | at=A+B) [path_prefix] [offset] [method] [status]
    /// [retry_after] [delay_ms]
    /// [carry=yes|no|late] [late_ms] [count] [seed].
    func addFault(_ request: RouteRequest) -> HTTPResponse {
        do {
            let rule = try FaultRule(fields: request.fields)
            state.withLock { $0.faults.append(rule) }
            return Control.json(rule.json)
        } catch {
            return Control.error(error)
        }
    }

    func listFaults() -> HTTPResponse {
        Control.json(["faults": .array(state.withLock { $0.faults.map(\.json) })])
    }

    func clearFaults() -> HTTPResponse {
        let removed = state.withLock { state in
            defer { state.faults.removeAll() }
            return state.faults.count
        }
        return Control.json(["removed": .int(removed)])
    }

    /// A Web API request starts: in flight from now, after the added latency and any delay fault.
    func beginWebAPIRequest(
        routeKey: String, path: String, method: String? = nil, offset: Int? = nil, playlistRead: String?
    ) -> RequestPlan {
        let plan = state.withLock {
            $0.beginRequest(routeKey: routeKey, path: path, method: method, offset: offset, playlistRead: playlistRead)
        }
        if plan.delayMs > 0 { Thread.sleep(forTimeInterval: Double(plan.delayMs) / 1000) }
        return plan
    }

    /// carry=late: the request is carried out `fault.lateMs` after `arrival`, against the state as
    /// it is then (a late POST appends to the playlist as it has become, as Spotify would). A
    /// lost_answer holds the connection until then, so a client whose time-out is shorter gives
    /// up first (and may read and send again), carries the request out, and closes without a
    /// byte; the other kinds answer their breakage now and carry the request out on a timer.
    /// Bounded: one sleep or one timer of at most 600 s per request, nothing that loops.
    func answerLate(
        _ fault: FaultRule, arrival: DispatchTime, carryOut: @escaping @Sendable () -> Void
    ) -> HTTPResponse {
        let due = arrival + .milliseconds(fault.lateMs)
        state.withLock { $0.latePending += 1 }
        let state = self.state
        let carryOutAndCount: @Sendable () -> Void = {
            carryOut()
            state.withLock {
                $0.latePending -= 1
                $0.counters.carriedOutLate += 1
            }
        }
        guard fault.kind == .lostAnswer else {
            DispatchQueue.global().asyncAfter(deadline: due, execute: carryOutAndCount)
            return fault.answerWithoutCarryingOut()
        }
        let now = DispatchTime.now()
        if due > now { Thread.sleep(forTimeInterval: Double(due.uptimeNanoseconds - now.uptimeNanoseconds) / 1e9) }
        carryOutAndCount()
        var lost = HTTPResponse(status: 200)
        lost.transportFault = .dropAnswer
        return lost
    }

    func endWebAPIRequest() {
        state.withLock { $0.endRequest() }
    }
}
