import Dispatch

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
#if canImport(CoreServices)
import CoreServices
#endif

/// Hands a link to the user's browser or desktop: `$BROWSER` (a colon-separated list of commands,
/// tried in order; `%s` marks the link, else it is appended), then `xdg-open` (`open` on macOS).
/// The link is passed to `/bin/sh` as an argument, never spliced into the command text, so no
/// link can inject shell syntax. spotify-auth's login and routine-link's `open` share it.
package struct LinkOpener: Sendable {
    package var environment: ToolEnvironment
    /// How long to wait for an opener to exit before taking it as a success: xdg-open and most
    /// browsers hand over and exit at once; a browser that stays in the foreground has opened it.
    var patienceSeconds: Double = 5

    package init(environment: ToolEnvironment) {
        self.environment = environment
    }

    #if os(macOS)
    static let platformOpener = "open"
    #else
    static let platformOpener = "xdg-open"
    #endif

    /// The shell commands to try, in order, each reading the link as `$1`. Pure.
    package static func commands(browser: String?, platformOpener: String = platformOpener) -> [String] {
        let entries = (browser ?? "").split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            !$0.isEmpty
        }
        return entries.map { $0.contains("%s") ? $0.replacingOccurrences(of: "%s", with: "\"$1\"") : $0 + " \"$1\"" }
            + ["\(platformOpener) \"$1\""]
    }

    /// Starts the first command and does not wait (login: the URL is also printed to paste).
    /// False when even that could not start. `failed` hears, on another thread, why the command
    /// failed when it exits unsuccessfully within `patienceSeconds` ("'CMD': not found (exit
    /// status 127)"): a browser that opened the link stays up, or hands over and exits 0, so
    /// only such a failure is worth telling someone who is waiting for the browser.
    @discardableResult
    package func launchDetached(_ link: String, failed: (@Sendable (String) -> Void)? = nil) -> Bool {
        let command = Self.commands(browser: environment["BROWSER"])[0]
        guard let child = try? spawn(command, link: link) else { return false }
        let deadline = DispatchTime.now() + patienceSeconds
        // Reaped on a thread of its own, so no zombie is left while the tool runs on.
        detachThread {
            let end = child.wait()
            guard let failed, DispatchTime.now() < deadline, let reason = Self.failure(of: end) else { return }
            failed("'\(Self.shown(command))': \(reason)")
        }
        return true
    }

    /// A command as the user typed it in `$BROWSER` (the link's place shown as `%s` when given).
    static func shown(_ command: String) -> String {
        command.replacingOccurrences(of: " \"$1\"", with: "").replacingOccurrences(of: "\"$1\"", with: "%s")
    }

    /// Why an opener that exited failed; nil when it succeeded. The shell says 127 when the
    /// command is not found and 126 when it cannot run it.
    static func failure(of end: ChildProcess.Termination) -> String? {
        let status = end.status
        if end.signaled { return "killed by signal \(status)" }
        switch status {
        case 0: return nil
        case 127: return "not found (exit status 127)"
        case 126: return "cannot be run (exit status 126)"
        default: return "exit status \(status)"
        }
    }

    package enum Outcome: Sendable, Equatable {
        /// Opened by this command (as typed in `$BROWSER`, or the platform opener).
        case opened(by: String)
        /// Every command failed; the reasons, one per command.
        case failed([String])
    }

    /// Tries each command until one exits 0 (or is still running after `patienceSeconds`).
    package func open(_ link: String) -> Outcome {
        var failures: [String] = []
        for command in Self.commands(browser: environment["BROWSER"]) {
            let shown = Self.shown(command)
            let child: ChildProcess
            do {
                child = try spawn(command, link: link)
            } catch {
                failures.append("\(shown): \(error.message)")
                continue
            }
            let deadline = Date().addingTimeInterval(patienceSeconds)
            var end = child.poll()
            while end == nil && Date() < deadline {
                usleep(10_000)
                end = child.poll()
            }
            guard let end else {
                // Still running, so it opened the link; reaped once it exits.
                detachThread { _ = child.wait() }
                return .opened(by: shown)
            }
            if !end.signaled && end.status == 0 { return .opened(by: shown) }
            let status = end.status
            failures.append(status == 127 ? "\(shown): not found" : "\(shown): exit status \(status)")
        }
        return .failed(failures)
    }

    /// `command` run by `/bin/sh` with the link as `$1`.
    func spawn(_ command: String, link: String) throws(ChildProcess.SpawnFailure) -> ChildProcess {
        // The opener's chatter must not reach stdout, which carries only records.
        let devNull = Self.openDevNull()
        guard devNull >= 0 else { throw ChildProcess.SpawnFailure(code: errno) }
        defer { close(devNull) }
        return try ChildProcess.spawn(
            ["/bin/sh", "-c", command, "spotify-toolkit-opener", link], environment: childEnvironment, stdin: devNull,
            stdout: devNull, stderr: devNull)
    }

    static func openDevNull() -> Int32 {
        #if canImport(Glibc)
        Glibc.open("/dev/null", O_RDWR | O_CLOEXEC)
        #else
        Darwin.open("/dev/null", O_RDWR | O_CLOEXEC)
        #endif
    }

    /// The environment for a browser or opener: the tool's own, without any `SPOTIFY_` variable.
    /// A browser (and everything it starts) has no use for `SPOTIFY_ACCESS_TOKEN` or the client
    /// settings, and would keep them readable in `/proc/PID/environ` for as long as it runs.
    var childEnvironment: [String: String] {
        environment.variables.filter { !$0.key.hasPrefix("SPOTIFY_") }
    }

    // MARK: spotify: links

    /// Whether something is registered to open `spotify:` URIs (the Spotify app): Launch
    /// Services on macOS; `xdg-mime query default x-scheme-handler/spotify` elsewhere (no
    /// xdg-mime, or an empty answer: no handler).
    package func spotifySchemeHasHandler() -> Bool {
        #if canImport(CoreServices) && os(macOS)
        guard let url = URL(string: "spotify:") else { return false }
        return LSCopyDefaultApplicationURLForURL(url as CFURL, .all, nil)?.takeRetainedValue() != nil
        #else
        guard let xdgMime = environment.executable(named: "xdg-mime") else { return false }
        let devNull = Self.openDevNull()
        guard devNull >= 0, let output = try? ChildProcess.pipe() else { return false }
        defer { close(devNull) }
        guard
            let child = try? ChildProcess.spawn(
                [xdgMime, "query", "default", "x-scheme-handler/spotify"], environment: childEnvironment,
                stdin: devNull, stdout: output.write, stderr: devNull)
        else {
            close(output.read)
            close(output.write)
            return false
        }
        close(output.write)
        // The answer is one short line; read it, bounded by the pipe closing when xdg-mime exits.
        let data = ChildProcess.readAll(output.read, limit: 4096)
        close(output.read)
        let end = child.wait()
        let answer = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return !end.signaled && end.status == 0 && !answer.isEmpty
        #endif
    }
}
