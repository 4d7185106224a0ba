import Dispatch
import LoopbackHTTP
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
    /// Where a pasted redirect URL comes from (the tool's standard input).
    package var input: Int32
    /// Whether `input` is a terminal, as the run's context sees it (a test may say either).
    package var inputIsTerminal: Bool
    /// Messages for the person logging in (stderr).
    package var say: @Sendable (String) -> Void

    package init(
        clientID: String, redirect: LoopbackRedirect, scopes: [String], pasteMode: Bool, timeoutSeconds: Double,
        showDialog: Bool, accounts: AccountsClient, environment: ToolEnvironment, input: Int32,
        inputIsTerminal: Bool, say: @escaping @Sendable (String) -> Void
    ) {
        self.clientID = clientID
        self.redirect = redirect
        self.scopes = scopes
        self.pasteMode = pasteMode
        self.timeoutSeconds = timeoutSeconds
        self.showDialog = showDialog
        self.accounts = accounts
        self.environment = environment
        self.input = input
        self.inputIsTerminal = inputIsTerminal
        self.say = say
    }

    /// The read-only set every login asks for (`SpotifyScope.defaults`); `--scope` and the scopes of
    /// earlier logins add to it.
    static let defaultScopes = SpotifyScope.defaults

    package struct Result {
        package var tokens: TokenResponse
        package var redirectURI: String
    }

    package func run() async throws -> Result {
        let verifier = PKCE.makeVerifier()
        let state = PKCE.makeState()
        let wait = LoginWait()
        let waited = formatClock(milliseconds: Int(saturating: timeoutSeconds * 1000))
        let redirectURI: String
        let outcome: LoginWait.Outcome
        if pasteMode {
            redirectURI = redirect.uri(port: redirect.port ?? 8888)
            let url = authorizeURL(redirectURI: redirectURI, verifier: verifier, state: state)
            say("Open this URL in a browser, log in and allow access:\n\n  \(url.absoluteString)\n")
            say("Then paste the address your browser was sent to (it starts with \(redirectURI)):")
            let reader = pasteReader(state: state, redirectURI: redirectURI, wait: wait, endsTheLogin: true)
            defer { reader?.stop() }
            outcome = await wait.wait(timeoutSeconds: timeoutSeconds)
            if case .timedOut = outcome {
                throw ToolError.tempFail(
                    """
                    login timed out after \(waited) waiting for the pasted redirect URL; run it again (--timeout sets \
                    how long to wait)
                    """
                )
            }
        } else {
            let listener: CallbackListener
            do {
                listener = try CallbackListener(redirect: redirect, state: state, wait: wait, say: say)
            } catch var error as ToolError where error.exitCode == .unavailable && redirect.port != nil {
                // The registered port is taken; say what can be done about it.
                error.message +=
                    """
                    ; another spotify-auth login may be running. Or log in with --no-browser (nothing listens then), \
                    or with --redirect-uri set to another port registered for the app
                    """
                throw error
            }
            defer { listener.stop() }
            redirectURI = listener.redirectURI
            let url = authorizeURL(redirectURI: redirectURI, verifier: verifier, state: state)
            say(
                """
                Opening the Spotify login page in your browser. If it does not open, visit:\n\n  \(url.absoluteString)\n
                """
            )
            openBrowser(url, wait: wait)
            // Over SSH the browser runs on another machine and its redirect never reaches this
            // listener: the address it was sent to can be pasted here instead, without starting
            // again with --no-browser (as rclone and gcloud allow).
            let reader = pasteReader(state: state, redirectURI: redirectURI, wait: wait, endsTheLogin: false)
            defer { reader?.stop() }
            say(
                "Waiting for Spotify to redirect to \(redirectURI) (up to \(waited))..."
                    + (reader != nil && inputIsTerminal
                        ? "\nIf the browser runs on another machine, paste the address it was sent to here." : "")
            )
            outcome = await wait.wait(timeoutSeconds: timeoutSeconds)
            if case .timedOut = outcome {
                throw ToolError.tempFail(
                    """
                    login timed out after \(waited) waiting for the browser; run it again, and if the browser runs on \
                    another machine, paste here the address it was sent to
                    """
                )
            }
        }
        guard case .callback(let callback) = outcome else {
            throw ToolError.noPermission("login cancelled: no redirect URL was pasted")
        }
        let code = try Self.code(from: callback)
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
        case .stateMismatch, .unrelated:
            // Never an answer: the listener and the paste reader explain these and keep waiting.
            throw ToolError.noPermission("login failed: the redirect carried no code for this login")
        }
    }

    /// Reads pasted lines from `input` until the login is over. A redirect with a code (or a
    /// refusal) answers the login; anything else is explained and the wait goes on, bounded by
    /// the timeout, so one slip of the mouse does not end it. At the end of the input the login
    /// is cancelled in paste mode (`endsTheLogin`, Ctrl-D), and only the browser is waited for
    /// otherwise (stdin was /dev/null, or a pipe with nothing to say).
    func pasteReader(state: String, redirectURI: String, wait: LoginWait, endsTheLogin: Bool) -> PastedLines? {
        // A terminal this process is not the foreground of would stop a background `spotify-auth
        // login &` (SIGTTIN) when read; only paste mode, which has nothing else to wait for, reads it then.
        if !endsTheLogin && inputIsTerminal && tcgetpgrp(input) != getpgrp() { return nil }
        let say = say
        return PastedLines.start(
            input,
            line: { line in
                let pasted = line.trimmingCharacters(in: .whitespacesAndNewlines)
                guard !pasted.isEmpty else { return }
                let outcome = Self.interpretPasted(pasted, state: state)
                switch outcome {
                case .code, .denied:
                    wait.finish(.callback(outcome))
                case .stateMismatch:
                    wait.ifWaiting {
                        say(
                            """
                            spotify-auth: that address belongs to another login (its state is not this one's); paste \
                            the address the URL above led to
                            """
                        )
                    }
                case .unrelated:
                    wait.ifWaiting {
                        say(
                            """
                            spotify-auth: that is not the address your browser was sent to (it has no code); paste \
                            the whole address, it starts with \(redirectURI)
                            """
                        )
                    }
                }
            },
            end: { if endsTheLogin { wait.finish(.endOfInput) } })
    }

    /// A pasted line: the whole redirect URL, or just its query.
    static func interpretPasted(_ line: String, state: String) -> AuthorizationCallback {
        let query = line.contains("?") ? String(line.split(separator: "?", maxSplits: 1)[1]) : line
        return AuthorizationCallback.interpret(
            URLForm.decode(query.split(separator: "#").first.map(String.init) ?? query), expectedState: state)
    }

    /// `$BROWSER` (the first of a colon-separated list; `%s` marks the URL), else the platform
    /// opener; not waited for. A command that fails at once (not found, a non-zero exit) is
    /// reported then, not after the whole timeout: the user can open the URL elsewhere and paste.
    /// The browser's own output goes nowhere: stdout carries only our record.
    func openBrowser(_ url: URL, wait: LoginWait) {
        let say = say
        let started = LinkOpener(environment: environment).launchDetached(url.absoluteString) { reason in
            // Only while the login waits: once it is over, the stream may belong to someone else.
            wait.ifWaiting {
                say(
                    """
                    spotify-auth: could not open a browser with \(reason); open the URL above yourself (on any \
                    machine), then paste here the address it was sent to
                    """
                )
            }
        }
        if !started {
            say("Could not start a browser; open the URL above yourself.")
        }
    }
}

/// The first answer to a login wins: the browser's redirect, a pasted address, the end of the
/// pasted input, or the timeout.
final class LoginWait: Sendable {
    enum Outcome: Sendable, Equatable {
        case callback(AuthorizationCallback)
        case endOfInput
        case timedOut
    }
    private struct State {
        var isFinished = false
        var outcome: Outcome?
        var continuation: CheckedContinuation<Outcome, Never>?
    }
    private let state = Locked(State())

    /// The first answer, or `.timedOut` after `timeoutSeconds`.
    func wait(timeoutSeconds: Double) async -> Outcome {
        let timer = Task {
            try? await Task.sleep(nanoseconds: UInt64(clamped(timeoutSeconds, to: 0...86_400) * 1e9))
            self.finish(.timedOut)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let finished: Outcome? = state.withLock {
                if $0.isFinished { return $0.outcome }
                $0.continuation = continuation
                return nil
            }
            if let finished { continuation.resume(returning: finished) }
        }
    }

    /// The first call wins; later ones are ignored.
    func finish(_ value: Outcome) {
        let waiting = state.withLock { (state: inout State) -> CheckedContinuation<Outcome, Never>? in
            guard !state.isFinished else { return nil }
            state.isFinished = true
            state.outcome = value
            defer { state.continuation = nil }
            return state.continuation
        }
        waiting?.resume(returning: value)
    }

    /// Runs `body` only while no answer has come, holding off `finish` until it is done: a note
    /// from another thread never lands after the login has moved on (in a test that runs the
    /// tool in process, its stderr may by then be another file).
    func ifWaiting(_ body: () -> Void) {
        state.withLock { if !$0.isFinished { body() } }
    }
}

/// Lines typed or piped on a descriptor, read on a thread of their own until `stop()`. Reads
/// byte by byte, so nothing after a line is taken from whoever reads the descriptor next.
final class PastedLines: Sendable {
    private let descriptor: Int32
    /// A pipe that wakes the reader from poll(2) when the login is over.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let done = DispatchSemaphore(value: 0)
    private let running = Locked(true)

    private init(descriptor: Int32, wake: (Int32, Int32)) {
        self.descriptor = descriptor
        (wakeRead, wakeWrite) = wake
    }

    /// Starts reading; nil when no pipe for waking the reader could be made.
    static func start(
        _ descriptor: Int32, line: @escaping @Sendable (String) -> Void, end: @escaping @Sendable () -> Void
    ) -> PastedLines? {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        let reader = PastedLines(descriptor: descriptor, wake: (ends[0], ends[1]))
        detachThread { reader.readLines(line: line, end: end) }
        return reader
    }

    private func readLines(line: @Sendable (String) -> Void, end: @Sendable () -> Void) {
        defer { finishReading() }
        var bytes: [UInt8] = []
        while true {
            var ready = [
                pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            let count = poll(&ready, 2, -1)
            if count < 0 && errno == EINTR { continue }
            if count < 0 || ready[1].revents != 0 { return }
            var byte: UInt8 = 0
            let got = read(descriptor, &byte, 1)
            if got < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if got <= 0 {
                if !bytes.isEmpty { line(String(decoding: bytes, as: UTF8.self)) }
                end()
                return
            }
            if byte == UInt8(ascii: "\n") || bytes.count >= 64 << 10 {
                line(String(decoding: bytes, as: UTF8.self))
                bytes = byte == UInt8(ascii: "\n") ? [] : [byte]
            } else {
                bytes.append(byte)
            }
        }
    }

    private func finishReading() {
        running.withLock {
            $0 = false
            close(wakeRead)
            close(wakeWrite)
        }
        done.signal()
    }

    /// Wakes the reader and waits until it has let go of the descriptor (the caller may close it).
    func stop() {
        let wasRunning = running.withLock { isRunning in
            if isRunning {
                var byte: UInt8 = 1
                _ = write(wakeWrite, &byte, 1)
            }
            return isRunning
        }
        if wasRunning { done.wait() }
    }
}

/// Listens on the redirect URI for the browser's return from the consent page. Ignores
/// requests that carry no code (browsers ask for /favicon.ico first) or a foreign `state`, and
/// answers the browser with a short page it can close.
final class CallbackListener: Sendable {
    let server: LoopbackHTTPServer
    let redirectURI: String

    init(redirect: LoopbackRedirect, state: String, wait: LoginWait, say: @escaping @Sendable (String) -> Void) throws {
        let path = redirect.path
        // A login needs a browser's handful of requests: a few connections at once, each with a
        // few seconds to speak, so nothing local can pile up threads while we wait.
        server = try LoopbackHTTPServer(
            host: redirect.host, port: redirect.port ?? 0, maxConnections: 8, requestTimeoutSeconds: 5
        ) { request in
            guard request.path == path else { return .text("Not found\n", status: 404) }
            let outcome = AuthorizationCallback.interpret(request.query, expectedState: state)
            switch outcome {
            case .stateMismatch:
                // Any web page can make the browser request this URL; only the real redirect may end the wait.
                wait.ifWaiting {
                    say(
                        """
                        spotify-auth: ignored a request to the redirect URI that carried a different state (a stale \
                        tab or a forged request); still waiting
                        """
                    )
                }
            case .code, .denied:
                // A moment later, so the page reaches the browser before the login moves on and exits.
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { wait.finish(.callback(outcome)) }
            case .unrelated: break
            }
            return Self.page(for: outcome)
        }
        redirectURI = redirect.uri(port: server.port)
        server.start()
    }

    func stop() { server.stop() }

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
}
