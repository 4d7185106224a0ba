/// The toolkit's exit statuses (sysexits(3) numbers), documented in every man page.
package enum ExitCode: Int32, Sendable, CaseIterable {
    case success = 0
    /// Nothing found (e.g. nothing playing).
    case notFound = 1
    case usage = 64
    case dataError = 65
    case noInput = 66
    case unavailable = 69
    case software = 70
    case ioError = 74
    case tempFail = 75
    case noPermission = 77
    case config = 78
    /// Ended early by a signal it caught and answered (a write that said what landed): 128 + the
    /// signal's number, as the shell reports a process the signal killed.
    case hangUp = 129
    case interrupted = 130
    case terminated = 143

    /// One line for EXIT STATUS sections and `--help`.
    package var meaning: String {
        switch self {
        case .success: "success"
        case .notFound: "nothing found"
        case .usage: "usage error: unknown option, missing or bad value"
        case .dataError: "bad input data (a line that is not a JSON object, a record without a required field)"
        case .noInput: "an input file does not exist or cannot be read"
        case .unavailable:
            """
            service unavailable: offline, Spotify down or failing after retries, or the app's quota used up \
            (QUOTA_EXCEEDED)
            """
        case .software: "internal error"
        case .ioError: "I/O error, e.g. writing to standard output failed"
        case .tempFail: "temporary failure; try again (e.g. rate limited for longer than the wait cap)"
        case .noPermission: "not logged in, token revoked, or permission denied"
        case .hangUp: "stopped by SIGHUP (the terminal closed) after saying what was done"
        case .interrupted: "stopped by SIGINT (Ctrl-C) after saying what was done"
        case .terminated: "stopped by SIGTERM after saying what was done"
        case .config:
            """
            configuration error, e.g. no client id, or a token store that is unreadable or that another user could \
            change
            """
        }
    }
}

extension ExitCode {
    /// The status that reports an answered `signal` (SIGINT: 130), as the shell reports it.
    package static func answering(signal number: Int32) -> ExitCode {
        switch number {
        case 1: .hangUp
        case 15: .terminated
        default: .interrupted
        }
    }
}
