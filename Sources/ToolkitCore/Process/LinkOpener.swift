import Foundation

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
    package var patienceSeconds: Double = 5

    package init(environment: ToolEnvironment) {
        self.environment = environment
    }

    #if os(macOS)
    package static let platformOpener = "open"
    #else
    package static let platformOpener = "xdg-open"
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
        let process = process(command, link: link)
        if let failed {
            let deadline = DispatchTime.now() + patienceSeconds
            process.terminationHandler = { process in
                guard DispatchTime.now() < deadline, let reason = Self.failure(of: process) else { return }
                failed("'\(Self.shown(command))': \(reason)")
            }
        }
        do {
            try process.run()
            return true
        } catch {
            return false
        }
    }

    /// A command as the user typed it in `$BROWSER` (the link's place shown as `%s` when given).
    static func shown(_ command: String) -> String {
        command.replacingOccurrences(of: " \"$1\"", with: "").replacingOccurrences(of: "\"$1\"", with: "%s")
    }

    /// Why an opener that exited failed; nil when it succeeded. The shell says 127 when the
    /// command is not found and 126 when it cannot run it.
    static func failure(of process: Process) -> String? {
        let status = process.terminationStatus
        if process.terminationReason == .uncaughtSignal { return "killed by signal \(status)" }
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
            let process = process(command, link: link)
            do {
                try process.run()
            } catch {
                failures.append("\(shown): \(error.localizedDescription)")
                continue
            }
            let deadline = Date().addingTimeInterval(patienceSeconds)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { return .opened(by: shown) }
            if process.terminationReason == .exit && process.terminationStatus == 0 { return .opened(by: shown) }
            let status = process.terminationStatus
            failures.append(status == 127 ? "\(shown): not found" : "\(shown): exit status \(status)")
        }
        return .failed(failures)
    }

    func process(_ command: String, link: String) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command, "spotify-toolkit-opener", link]
        process.environment = childEnvironment
        // The opener's chatter must not reach stdout, which carries only records.
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        return process
    }

    /// The environment for a browser or opener: the tool's own, without any `SPOTIFY_` variable.
    /// A browser (and everything it starts) has no use for `SPOTIFY_ACCESS_TOKEN` or the client
    /// settings, and would keep them readable in `/proc/PID/environ` for as long as it runs.
    package var childEnvironment: [String: String] {
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: xdgMime)
        process.arguments = ["query", "default", "x-scheme-handler/spotify"]
        process.environment = childEnvironment
        let output = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return false }
        // The answer is one short line; read it, bounded by the pipe closing when xdg-mime exits.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let answer = String(decoding: data.prefix(4096), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return process.terminationStatus == 0 && !answer.isEmpty
        #endif
    }
}
