#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Settings for tests and benchmarks, not for users: each makes a run against fake-spotify faster
/// or lets a test provoke what it needs. The runner reads them from the environment once
/// (`ToolContext.developer`) and hands them down in the clients' configuration; nothing below
/// reads these variables. None of them can weaken a safety rule: a token still goes over plain
/// http only to a loopback address (`ServiceBase`), whatever they say. A bad value is exit 78
/// naming the variable. README.md, "Developer settings", says what each is for.
package struct DeveloperSettings: Sendable, Equatable {
    /// `SPOTIFY_TOOLKIT_SETTLE_PAUSE`: seconds before the read that settles a playlist write whose
    /// answer was lost (the second read waits twice as long).
    package var settlePause: Double
    /// `SPOTIFY_TOOLKIT_REQUEST_TIMEOUT`: seconds a Web API request may go without an answer
    /// before it is given up as timed out.
    package var requestTimeout: Double
    /// `SPOTIFY_TOOLKIT_PROXY_TUNNEL=1`: an http request goes through the environment's proxy as a
    /// CONNECT tunnel, as an https one always does, so fake-spotify (plain http, on a loopback
    /// address) can be tested behind a proxy.
    package var tunnelsPlainHTTP: Bool
    /// `SPOTIFY_TOOLKIT_TIME_SCALE`: the watch's clock (and `pause --after`'s) runs this many times
    /// faster, so the real scheduling code paces an accelerated fake-spotify session.
    package var timeScale: Double

    /// What a run uses when the environment sets none of them.
    package init(
        settlePause: Double = 1, requestTimeout: Double = 30, tunnelsPlainHTTP: Bool = false, timeScale: Double = 1
    ) {
        self.settlePause = settlePause
        self.requestTimeout = requestTimeout
        self.tunnelsPlainHTTP = tunnelsPlainHTTP
        self.timeScale = timeScale
    }

    package static let settlePauseVariable = "SPOTIFY_TOOLKIT_SETTLE_PAUSE"
    package static let requestTimeoutVariable = "SPOTIFY_TOOLKIT_REQUEST_TIMEOUT"
    package static let proxyTunnelVariable = "SPOTIFY_TOOLKIT_PROXY_TUNNEL"
    package static let timeScaleVariable = "SPOTIFY_TOOLKIT_TIME_SCALE"

    /// The settings `environment` gives: the default for each variable unset or empty.
    package init(environment: ToolEnvironment) throws(ToolError) {
        self.init()
        if let pause = try Self.number(
            environment, Self.settlePauseVariable, "a number of seconds from 0 to 60, such as 0.05",
            { $0 >= 0 && $0 <= 60 })
        {
            settlePause = pause
        }
        if let timeout = try Self.number(
            environment, Self.requestTimeoutVariable, "a number of seconds above 0 and at most 300, such as 2",
            { $0 > 0 && $0 <= 300 })
        {
            requestTimeout = timeout
        }
        if let scale = try Self.number(
            environment, Self.timeScaleVariable, "a number above 0 and at most 10000", { $0 > 0 && $0 <= 10_000 })
        {
            timeScale = scale
        }
        if let text = Self.text(environment, Self.proxyTunnelVariable) {
            guard text == "0" || text == "1" else {
                throw ToolError.config("\(Self.proxyTunnelVariable) must be 1 or 0, not '\(text.prefix(40))'")
            }
            tunnelsPlainHTTP = text == "1"
        }
    }

    static func text(_ environment: ToolEnvironment, _ variable: String) -> String? {
        guard let text = environment[variable]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        return text
    }

    /// The variable's finite number that `allowed` accepts; nil when unset.
    static func number(
        _ environment: ToolEnvironment, _ variable: String, _ what: String, _ allowed: (Double) -> Bool
    ) throws(ToolError) -> Double? {
        guard let text = text(environment, variable) else { return nil }
        guard let value = Double(text), value.isFinite, allowed(value) else {
            throw ToolError.config("\(variable) must be \(what), not '\(text.prefix(40))'")
        }
        return value
    }
}
