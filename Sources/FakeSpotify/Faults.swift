import Foundation
import LoopbackHTTP
import ToolkitCLI
import ToolkitCore

/// A fault fake-spotify injects into Web API answers, by rate or on a schedule: a 429 with
/// Retry-After, a quota 429, a 5xx, a reset connection, a truncated body, an unparsable body, or a
/// delay (to provoke client timeouts). Rules come from `--fault` at launch or `POST /_fake/faults`.
package struct FaultRule: Sendable, Equatable {
    package enum Kind: String, Sendable, CaseIterable {
        case rateLimit = "rate_limit"
        case quota
        case serverError = "server_error"
        case reset
        /// The request is carried out, then the connection closes without a byte of the answer.
        case lostAnswer = "lost_answer"
        case truncate
        case garbage
        case delay
    }

    package enum Trigger: Sendable, Equatable {
        /// Each matching request with this probability (from a seeded generator: reproducible).
        case rate(Double)
        /// Every Nth matching request.
        case every(Int)
        /// The matching requests with these 1-based numbers.
        case at(Set<Int>)
    }

    package var kind: Kind
    package var trigger: Trigger
    /// Requests whose path starts with this are matched.
    package var pathPrefix = "/v1/"
    /// For server_error.
    package var status = 503
    /// For rate_limit and quota: the Retry-After header.
    package var retryAfter = "1"
    /// For delay: how long to wait before answering.
    package var delayMs = 0
    /// Fire at most this many times; nil: no limit.
    package var limit: Int?
    var seen = 0
    var fired = 0
    var random: SplitMix64

    /// Parses `kind=server_error every=10 status=502` style fields (the form of POST /_fake/faults,
    /// and of --fault with the fields separated by spaces or commas).
    package init(fields: [(name: String, value: String)]) throws {
        var kind: Kind?
        var trigger: Trigger?
        var seed: UInt64 = 1
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
            case "rate":
                guard let rate = Double(value), rate >= 0, rate <= 1 else {
                    throw ControlError("rate must be a number from 0 to 1, not '\(value)'")
                }
                try setTrigger(.rate(rate))
            case "every":
                let every = try FakeSpotifySettings.int(name, value)
                guard every >= 1 else { throw ControlError("every must be at least 1") }
                try setTrigger(.every(every))
            case "at":
                var numbers = Set<Int>()
                for part in value.split(whereSeparator: { $0 == "+" || $0 == ";" || $0 == " " }) {
                    guard let number = Int(part), number >= 1 else {
                        throw ControlError("at takes request numbers from 1, separated by '+', not '\(value)'")
                    }
                    numbers.insert(number)
                }
                guard !numbers.isEmpty else { throw ControlError("at needs at least one request number") }
                try setTrigger(.at(numbers))
            case "path_prefix":
                guard value.hasPrefix("/") else { throw ControlError("path_prefix must start with '/'") }
                pathPrefix = value
            case "status":
                status = try FakeSpotifySettings.int(name, value)
                guard (500...599).contains(status) else {
                    throw ControlError("status must be 500...599 for server_error")
                }
            case "retry_after": retryAfter = value
            case "delay_ms":
                delayMs = try FakeSpotifySettings.int(name, value)
                guard (0...600_000).contains(delayMs) else { throw ControlError("delay_ms must be 0...600000") }
            case "count":
                let count = try FakeSpotifySettings.int(name, value)
                guard count >= 1 else { throw ControlError("count must be at least 1") }
                limit = count
            case "seed":
                guard let value = UInt64(value) else { throw ControlError("seed must be a whole number") }
                seed = value
            default:
                throw ControlError(
                    "unknown fault field '\(name)'; known: kind, rate, every, at, path_prefix, status, retry_after, delay_ms, count, seed"
                )
            }
        }
        guard let kind else { throw ControlError("kind is required") }
        guard let trigger else { throw ControlError("one of rate, every or at is required") }
        self.kind = kind
        self.trigger = trigger
        self.random = SplitMix64(seed: seed)
    }

    /// `--fault 'kind=reset every=20'` (spaces or commas between fields).
    package init(launchSpec: String) throws {
        let fields = launchSpec.split(whereSeparator: { $0 == " " || $0 == "," }).map {
            part -> (name: String, value: String) in
            let pieces = part.split(separator: "=", maxSplits: 1)
            return (String(pieces[0]), pieces.count > 1 ? String(pieces[1]) : "")
        }
        try self.init(fields: fields)
    }

    /// Whether this rule hits the next request to `path`; counts it.
    mutating func hits(path: String) -> Bool {
        guard path.hasPrefix(pathPrefix) else { return false }
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

    /// A 429 (rate limit or quota) refuses the request: it is not carried out. Every other fault
    /// breaks the answer of a request that was: a 5xx, a reset or a cut body after a write has
    /// landed is exactly the unknown outcome a writer must find out about by reading again.
    var refusesBeforeHandling: Bool { kind == .rateLimit || kind == .quota }

    /// The answer after the fault: replaces or breaks the normal one.
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
        case .delay:
            return response
        }
    }

    var json: JSONValue {
        let trigger: JSONValue =
            switch self.trigger {
            case .rate(let rate): ["rate": .double(rate)]
            case .every(let n): ["every": .int(n)]
            case .at(let numbers): ["at": .array(numbers.sorted().map(JSONValue.int))]
            }
        return [
            "kind": .string(kind.rawValue), "trigger": trigger, "path_prefix": .string(pathPrefix),
            "count": limit.map(JSONValue.int) ?? .null, "seen": .int(seen), "fired": .int(fired),
        ]
    }
}

/// What one Web API request gets from the load controls: a delay first, maybe a fault after.
struct RequestPlan {
    var delayMs: Int
    var fault: FaultRule?
}

extension FakeSpotifyState {
    /// Called as a Web API request starts: counts it in flight and picks its faults.
    mutating func beginRequest(path: String) -> RequestPlan {
        inFlight += 1
        counters.maxInFlight = max(counters.maxInFlight, inFlight)
        var plan = RequestPlan(delayMs: settings.library.latencyMs, fault: nil)
        for index in faults.indices where faults[index].hits(path: path) {
            counters.faultsFired += 1
            if faults[index].kind == .delay {
                plan.delayMs += faults[index].delayMs
            } else if plan.fault == nil {
                plan.fault = faults[index]
            }
        }
        return plan
    }

    mutating func endRequest() {
        inFlight -= 1
    }
}

extension FakeSpotifyService {
    /// Adds fault rules (from --fault at launch).
    package func addFaults(_ rules: [FaultRule]) {
        state.withLock { $0.faults += rules }
    }

    /// `POST /_fake/faults` kind=K (rate=P | every=N | at=A+B) [path_prefix] [status] [retry_after] [delay_ms] [count] [seed].
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
    func beginWebAPIRequest(path: String) -> RequestPlan {
        let plan = state.withLock { $0.beginRequest(path: path) }
        if plan.delayMs > 0 { Thread.sleep(forTimeInterval: Double(plan.delayMs) / 1000) }
        return plan
    }

    func endWebAPIRequest() {
        state.withLock { $0.endRequest() }
    }
}
