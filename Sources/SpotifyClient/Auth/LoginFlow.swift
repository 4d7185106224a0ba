import Foundation
import HTTPClient
import LoopbackHTTP
import ToolkitCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The Authorization Code + PKCE login: build the authorize URL, get the user's consent in a
/// browser (listening on the loopback redirect URI, or reading the pasted redirect URL),
/// exchange the code, and return the new tokens.
package struct LoginFlow {
    package var clientID: String
    package var redirect: LoopbackRedirect
    package var scopes: [String]
    package var pasteMode: Bool
    package var timeoutSeconds: Double
    package var showDialog: Bool
    package var accounts: AccountsClient
    package var environment: ToolEnvironment
    /// Messages for the person logging in (stderr).
    package var say: @Sendable (String) -> Void

    package init(
        clientID: String, redirect: LoopbackRedirect, scopes: [String], pasteMode: Bool, timeoutSeconds: Double,
        showDialog: Bool, accounts: AccountsClient, environment: ToolEnvironment,
        say: @escaping @Sendable (String) -> Void
    ) {
        self.clientID = clientID
        self.redirect = redirect
        self.scopes = scopes
        self.pasteMode = pasteMode
        self.timeoutSeconds = timeoutSeconds
        self.showDialog = showDialog
        self.accounts = accounts
        self.environment = environment
        self.say = say
    }

    /// The read-only set DESIGN.md names; `--scope` and the scopes of earlier logins add to it.
    package static let defaultScopes = SpotifyScope.defaults

    package struct Result {
        package var tokens: TokenResponse
        package var redirectURI: String
    }

    package func run() async throws -> Result {
        let verifier = PKCE.makeVerifier()
        let state = PKCE.makeState()
        let code: String
        let redirectURI: String
        if pasteMode {
            redirectURI = redirect.uri(port: redirect.port ?? 8888)
            let url = authorizeURL(redirectURI: redirectURI, verifier: verifier, state: state)
            say("Open this URL in a browser, log in and allow access:\n\n  \(url.absoluteString)\n")
            say("Then paste the address your browser was sent to (it starts with \(redirectURI)):")
            code = try readPastedCode(state: state)
        } else {
            let listener = try CallbackListener(redirect: redirect, state: state, say: say)
            defer { listener.stop() }
            redirectURI = listener.redirectURI
            let url = authorizeURL(redirectURI: redirectURI, verifier: verifier, state: state)
            say(
                "Opening the Spotify login page in your browser. If it does not open, visit:\n\n  \(url.absoluteString)\n"
            )
            openBrowser(url)
            say(
                "Waiting for Spotify to redirect to \(redirectURI) (up to \(formatClock(milliseconds: Int(saturating: timeoutSeconds * 1000))))..."
            )
            guard let outcome = await listener.wait(timeoutSeconds: timeoutSeconds) else {
                throw ToolError.tempFail(
                    "login timed out after \(formatClock(milliseconds: Int(saturating: timeoutSeconds * 1000))) waiting for the browser; run it again, or use --no-browser to paste the redirect URL"
                )
            }
            code = try Self.code(from: outcome)
        }
        let tokens = try await accounts.exchange(
            code: code, redirectURI: redirectURI, clientID: clientID, verifier: verifier)
        return Result(tokens: tokens, redirectURI: redirectURI)
    }

    func authorizeURL(redirectURI: String, verifier: String, state: String) -> URL {
        var url = accounts.authorizeURL(
            clientID: clientID, redirectURI: redirectURI, challenge: PKCE.challenge(for: verifier), state: state,
            scopes: scopes)
        if showDialog { url = URL(string: url.absoluteString + "&show_dialog=true")! }
        return url
    }

    static func code(from outcome: AuthorizationCallback) throws -> String {
        switch outcome {
        case .code(let code): return code
        case .denied("access_denied"):
            throw ToolError.noPermission(
                "login cancelled: access was denied on the Spotify consent page (access_denied)")
        case .denied(let error): throw ToolError.noPermission("login failed: Spotify answered \(error)")
        case .stateMismatch:
            throw ToolError.noPermission(
                "login failed: the redirect carried a different state than this login sent (a stale tab or a forged request); run spotify-auth login again"
            )
        case .unrelated:
            throw ToolError.noPermission(
                "login failed: the pasted URL has no code; paste the whole address the browser was sent to")
        }
    }

    /// Paste mode: one line on stdin, the full redirect URL (or just its query), within the timeout.
    func readPastedCode(state: String) throws -> String {
        let pasted: String?
        switch Self.readLine(from: 0, timeoutSeconds: timeoutSeconds) {
        case .line(let text): pasted = text
        case .endOfInput: pasted = nil
        case .timedOut:
            throw ToolError.tempFail(
                "login timed out after \(formatClock(milliseconds: Int(saturating: timeoutSeconds * 1000))) waiting for the pasted redirect URL; run it again (--timeout sets how long to wait)"
            )
        }
        guard let line = pasted?.trimmingCharacters(in: .whitespacesAndNewlines), !line.isEmpty else {
            throw ToolError.noPermission("login cancelled: no redirect URL was pasted")
        }
        let query = line.contains("?") ? String(line.split(separator: "?", maxSplits: 1)[1]) : line
        return try Self.code(
            from: AuthorizationCallback.interpret(
                URLForm.decode(query.split(separator: "#").first.map(String.init) ?? query), expectedState: state))
    }

    enum PastedLine: Equatable {
        case line(String)
        case endOfInput
        case timedOut
    }

    /// One line from `descriptor` (a terminal or a pipe), waiting at most `timeoutSeconds` in all.
    /// Reads byte by byte so nothing after the line is consumed; a line is at most 64 KiB.
    static func readLine(from descriptor: Int32, timeoutSeconds: Double) -> PastedLine {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(clamped(timeoutSeconds, to: 0...86_400) * 1e9)
        var bytes: [UInt8] = []
        while bytes.count < 64 << 10 {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return .timedOut }
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let waited = poll(&ready, 1, Int32(min((deadline - now) / 1_000_000 + 1, 60_000)))
            if waited < 0 && errno != EINTR { break }
            if waited <= 0 { continue }
            var byte: UInt8 = 0
            let count = read(descriptor, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            if byte == UInt8(ascii: "\n") { return .line(String(decoding: bytes, as: UTF8.self)) }
            bytes.append(byte)
        }
        return bytes.isEmpty ? .endOfInput : .line(String(decoding: bytes, as: UTF8.self))
    }

    /// `$BROWSER` (the first of a colon-separated list; `%s` marks the URL), else the platform opener;
    /// not waited for. The browser's own output goes nowhere: stdout carries only our record.
    func openBrowser(_ url: URL) {
        if !LinkOpener(environment: environment).launchDetached(url.absoluteString) {
            say("Could not start a browser; open the URL above yourself.")
        }
    }
}

/// Listens on the redirect URI for the browser's return from the consent page. Ignores
/// requests that carry no code (browsers ask for /favicon.ico first) or a foreign `state`, and
/// answers the browser with a short page it can close.
final class CallbackListener: Sendable {
    let server: LoopbackHTTPServer
    let redirectURI: String
    private struct State {
        var isFinished = false
        var outcome: AuthorizationCallback?
        var continuation: CheckedContinuation<AuthorizationCallback?, Never>?
    }
    private let state = Locked(State())

    init(redirect: LoopbackRedirect, state: String, say: @escaping @Sendable (String) -> Void) throws {
        let box = OutcomeBox()
        let path = redirect.path
        // A login needs a browser's handful of requests: a few connections at once, each with a
        // few seconds to speak, so nothing local can pile up threads while we wait.
        server = try LoopbackHTTPServer(
            host: redirect.host, port: redirect.port ?? 0, maxConnections: 8, requestTimeoutSeconds: 5
        ) { request in
            guard request.path == path else { return .text("Not found\n", status: 404) }
            let outcome = AuthorizationCallback.interpret(request.query, expectedState: state)
            if outcome == .stateMismatch {
                // Any web page can make the browser request this URL; only the real redirect may end the wait.
                say(
                    "spotify-auth: ignored a request to the redirect URI that carried a different state (a stale tab or a forged request); still waiting"
                )
            } else {
                box.deliver(outcome)
            }
            return Self.page(for: outcome)
        }
        redirectURI = redirect.uri(port: server.port)
        box.listener = self
        server.start()
    }

    func stop() { server.stop() }

    /// The first meaningful callback, or nil after the timeout.
    func wait(timeoutSeconds: Double) async -> AuthorizationCallback? {
        let timer = Task {
            try? await Task.sleep(nanoseconds: UInt64(clamped(timeoutSeconds, to: 0...86_400) * 1e9))
            self.finish(nil)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            // Outer nil: not finished yet; the wait goes on.
            let finished: AuthorizationCallback?? = state.withLock {
                if $0.isFinished { return .some($0.outcome) }
                $0.continuation = continuation
                return .none
            }
            if let finished { continuation.resume(returning: finished) }
        }
    }

    /// The first call wins: a callback, or nil when the time is up.
    fileprivate func finish(_ value: AuthorizationCallback?) {
        let waiting = state.withLock { (state: inout State) -> CheckedContinuation<AuthorizationCallback?, Never>? in
            guard !state.isFinished else { return nil }
            state.isFinished = true
            state.outcome = value
            defer { state.continuation = nil }
            return state.continuation
        }
        waiting?.resume(returning: value)
    }

    static func page(for outcome: AuthorizationCallback) -> HTTPResponse {
        let (status, title, text): (Int, String, String) =
            switch outcome {
            case .code:
                (200, "Logged in", "spotify-auth has your login. You can close this tab and return to the terminal.")
            case .denied:
                (
                    200, "Login cancelled",
                    "Access was not granted. You can close this tab; run spotify-auth login to try again."
                )
            case .stateMismatch:
                (
                    400, "Ignored",
                    "This response does not belong to the login spotify-auth is waiting for, so it was ignored."
                )
            case .unrelated: (404, "Not found", "Nothing here.")
            }
        return .html(
            "<!doctype html><meta charset=utf-8><title>\(title)</title><h1>\(title)</h1><p>\(text)</p>\n",
            status: status)
    }

    /// Lets the server's handler (created before `self` exists) reach the listener.
    final class OutcomeBox: @unchecked Sendable {  // `listener` is set once before the server starts
        weak var listener: CallbackListener?
        /// Delivered a moment later, so the page reaches the browser before the login moves on and exits.
        func deliver(_ outcome: AuthorizationCallback) {
            guard outcome != .unrelated && outcome != .stateMismatch else { return }
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { [weak listener] in
                listener?.finish(outcome)
            }
        }
    }
}
