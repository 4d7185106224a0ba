/// The one error type tools report: a message meant for a person and the exit status it implies.
/// The runner prints it as `tool: message` on stderr and exits with `exitCode`.
package struct ToolError: Error, Sendable, Equatable, CustomStringConvertible {
    package var exitCode: ExitCode
    package var message: String
    /// Usage errors also print the usage line and "Try 'tool --help'".
    package var showsUsageHint: Bool
    /// The command the usage hint is about (`["spotify-auth", "login"]`); nil means the tool itself.
    package var commandPath: [String]?
    /// For a failed request: whether the server may have carried it out. A writer settles an
    /// unknown outcome by reading; it never reads the message to decide.
    package var requestOutcome: RequestOutcome?
    /// Lines printed under the message, one each (numbered steps): the message itself is
    /// flattened to one line, which would run steps together.
    package var detailLines: [String] = []

    package init(_ exitCode: ExitCode, _ message: String, showsUsageHint: Bool = false) {
        self.exitCode = exitCode
        self.message = message
        self.showsUsageHint = showsUsageHint
    }

    package var description: String { message }

    package static func usage(_ message: String) -> ToolError { ToolError(.usage, message, showsUsageHint: true) }
    package static func dataError(_ message: String) -> ToolError { ToolError(.dataError, message) }
    package static func noInput(_ message: String) -> ToolError { ToolError(.noInput, message) }
    package static func ioError(_ message: String) -> ToolError { ToolError(.ioError, message) }
    package static func config(_ message: String) -> ToolError { ToolError(.config, message) }
    package static func noPermission(_ message: String) -> ToolError { ToolError(.noPermission, message) }
    package static func unavailable(_ message: String) -> ToolError { ToolError(.unavailable, message) }
    package static func tempFail(_ message: String) -> ToolError { ToolError(.tempFail, message) }
    package static func software(_ message: String) -> ToolError { ToolError(.software, message) }
}

/// An error with cases of its own for the code around it to branch on (an HTTP failure: worth
/// another try or not), which becomes a ToolError, message and exit status, in one place: its
/// `toolError`, taken at the boundary past which nothing branches on it any more.
package protocol ToolErrorConvertible: Error {
    var toolError: ToolError { get }
}

/// What a failed request left behind on the server, as far as the client can tell.
package enum RequestOutcome: Sendable, Equatable {
    /// Refused before it was carried out (a 429, a quota, a 4xx, a connection never made).
    case notCarriedOut
    /// It may have been carried out: the answer was lost or cut, or a 5xx.
    case unknown
    /// It may have been carried out, and may still be: the server held it past the time-out.
    case timedOut

    /// Whether the request may have been carried out.
    package var mayHaveLanded: Bool { self != .notCarriedOut }
}

extension ToolError {
    /// The same error, saying what its request left behind.
    package func outcome(_ outcome: RequestOutcome) -> ToolError {
        var error = self
        error.requestOutcome = outcome
        return error
    }

    /// The same error, its message after `prefix`.
    package func with(prefix: String) -> ToolError {
        var error = self
        error.message = "\(prefix): \(message)"
        return error
    }

    /// Any error as the one a person reads: a typed one's own words, else unavailable (69).
    package static func converting(_ error: any Error) -> ToolError {
        if let error = error as? any ToolErrorConvertible { return error.toolError }
        return .unavailable("\(error)")
    }
}

extension ToolError: ToolErrorConvertible {
    package var toolError: ToolError { self }
}
