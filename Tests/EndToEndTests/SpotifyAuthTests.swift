import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore

/// Spawns the built `spotify-auth` against a spawned `fake-spotify` over loopback sockets.
@Suite(.tags(.large)) struct SpotifyAuthEndToEndTests {
    static let userID = "31kx7ufdeznvfbgxsw2ocqc2ql4e"

    /// A "browser" that fetches /favicon.ico from the callback first (as browsers do), then
    /// follows Spotify's redirect to the callback. `mangle` rewrites the redirect first.
    func browser(in fake: FakeSpotifyProcess, mangle: String = "") throws -> String {
        try fake.home.file(
            "browser.sh",
            contents: """
                #!/bin/sh
                loc=$(curl -s --max-time 10 -o /dev/null -w '%{redirect_url}' "$1")
                base=$(printf '%s' "$loc" | sed 's|^\\(http://[^/]*\\)/.*|\\1|')
                curl -s --max-time 10 -o /dev/null "$base/favicon.ico"
                loc=$(printf '%s' "$loc" \(mangle))
                curl -s --max-time 10 -o /dev/null "$loc"
                """
        ).withExecutableBit()
    }

    func login(_ fake: FakeSpotifyProcess, _ arguments: [String] = [], browser: String, extra: [String: String] = [:])
        throws -> ToolResult
    {
        try ToolProcess.run(
            "spotify-auth", ["login", "--redirect-uri", "http://127.0.0.1/callback"] + arguments,
            environment: fake.environment(["BROWSER": browser].merging(extra) { $1 }))
    }

    @Test func fullLoginThroughTheBrowser() throws {
        let fake = try FakeSpotifyProcess()
        let result = try login(fake, browser: try browser(in: fake))
        #expect(result.status == 0, "\(result.stderr)")
        let record = try JSONValue.parse(result.stdout)
        #expect(record["type"] == "auth_status")
        #expect(record["logged_in"] == true)
        #expect(record["user"]?["id"]?.stringValue == Self.userID)
        #expect(record["scopes"]?.arrayValue?.count == LoginFlow.defaultScopes.count)
        #expect(record["token_store"]?.stringValue == fake.store.path)
        #expect(
            result.stderr.contains(
                "\(fake.base)/authorize?client_id=test-client&response_type=code&redirect_uri=http%3A%2F%2F127.0.0.1%3A"
            ))
        #expect(result.stderr.contains("code_challenge_method=S256"))

        // The store is private from creation and holds what the fake issued; no token leaked.
        let stored = try #require(try fake.store.load())
        #expect(stored.userID == Self.userID)
        #expect(fileMode(fake.configDirectory) == 0o700)
        #expect(fileMode(fake.store.path) == 0o600)
        for secret in [stored.accessToken, stored.refreshToken ?? "-"] {
            #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret))
        }
        let config = try String(contentsOfFile: fake.configDirectory + "/config.json", encoding: .utf8)
        #expect(config.contains("\"client_id\" : \"test-client\""))

        let counters = try fake.counters()
        #expect(counters["grants"]?["authorization_code"] == 1)
        #expect(counters["requests"]?["GET /v1/me"] == 1)

        // The token is usable by everything that follows.
        let token = try ToolProcess.run("spotify-auth", ["token"], environment: fake.environment())
        #expect(token.stdout == stored.accessToken + "\n")
        let status = try ToolProcess.run("spotify-auth", ["status"], environment: fake.environment())
        #expect(status.status == 0)
        #expect(!status.stdout.contains(stored.accessToken))
    }

    @Test func loginOnIPv6Loopback() throws {
        let fake = try FakeSpotifyProcess()
        let result = try ToolProcess.run(
            "spotify-auth", ["login", "--redirect-uri", "http://[::1]/callback"],
            environment: fake.environment(["BROWSER": try browser(in: fake)]))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("redirect_uri=http%3A%2F%2F%5B%3A%3A1%5D%3A"))
    }

    @Test func aRedirectWithAForeignStateIsIgnoredAndTheRealOneStillCounts() throws {
        let fake = try FakeSpotifyProcess()
        let script = try fake.home.file(
            "forger.sh",
            contents: """
                #!/bin/sh
                loc=$(curl -s --max-time 10 -o /dev/null -w '%{redirect_url}' "$1")
                forged=$(printf '%s' "$loc" | sed 's/state=[^&]*/state=forged/; s/code=[^&]*/code=stolen/')
                curl -s --max-time 10 -o /dev/null -w '%{http_code}' "$forged" > "$(dirname "$0")/forged-status"
                curl -s --max-time 10 -o /dev/null "$loc"
                """
        ).withExecutableBit()
        let result = try login(fake, browser: script)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains("spotify-auth: ignored a request to the redirect URI that carried a different state")
        )
        #expect(try String(contentsOfFile: fake.home.path + "/forged-status", encoding: .utf8) == "400")
        #expect(try fake.counters()["grants"]?["authorization_code"] == 1)
    }

    @Test func onlyAForeignStateMeansNoLogin() throws {
        let fake = try FakeSpotifyProcess()
        let result = try login(
            fake, ["--timeout", "2s"], browser: try browser(in: fake, mangle: "| sed 's/state=[^&]*/state=forged/'"))
        #expect(result.status == 75)
        #expect(result.stderr.contains("ignored a request to the redirect URI that carried a different state"))
        #expect(try fake.store.load() == nil)
        #expect((try fake.counters()["grants"]?["authorization_code"]?.intValue ?? 0) == 0)
    }

    @Test func aFailedIdentityCheckStoresNothing() throws {
        let fake = try FakeSpotifyProcess()
        let previous = try fake.seedLogin(expiresIn: 3600)
        try fake.call(
            "POST", "/_fake/fail",
            form: [
                ("method", "GET"), ("path", "/v1/me"), ("status", "403"),
                ("body", "Check settings on developer.spotify.com/dashboard, the user may not be registered."),
            ])
        let result = try login(fake, browser: try browser(in: fake))
        #expect(result.status == 77)
        #expect(result.stderr.contains("User Management"))
        #expect(try fake.store.load() == previous)  // the working session is still there
    }

    @Test func logoutWaitsForARefreshInFlight() throws {
        let fake = try FakeSpotifyProcess(["--token-delay-ms", "1500"])
        try fake.seedLogin(expiresIn: 3600)
        let result = try ToolProcess.shell(
            "spotify-auth refresh > /dev/null & sleep 0.5; spotify-auth logout; wait; spotify-auth status > /dev/null; echo status=$?",
            environment: fake.environment())
        #expect(result.stdout == "status=77\n")
        #expect(try fake.store.load() == nil)
    }

    @Test func deniedConsent() throws {
        let fake = try FakeSpotifyProcess(["--deny"])
        let result = try login(fake, browser: try browser(in: fake))
        #expect(result.status == 77)
        #expect(result.stderr.contains("access was denied on the Spotify consent page (access_denied)"))
        #expect(try fake.store.load() == nil)
    }

    @Test func givingUpAfterTheTimeout() throws {
        let fake = try FakeSpotifyProcess()
        let result = try login(fake, ["--timeout", "1s"], browser: "true")
        #expect(result.status == 75)
        #expect(result.stderr.contains("login timed out after 0:01"))
    }

    @Test func pasteModeReadsTheRedirectedURL() throws {
        let fake = try FakeSpotifyProcess()
        let process = Process()
        process.executableURL = ToolProcess.url(of: "spotify-auth")
        process.arguments = [
            "login", "--no-browser", "--redirect-uri", "http://127.0.0.1:8888/callback", "--scope",
            "user-modify-playback-state",
        ]
        var env = ProcessInfo.processInfo.environment
        for (key, value) in fake.environment() { env[key] = value }
        process.environment = env
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        _ = ToolProcess.ignoreSIGPIPE
        try process.run()
        // Read stderr until the authorize URL shows up (bounded by the fake's own timeout).
        var seen = ""
        while !seen.contains("Then paste"), case let chunk = stderr.fileHandleForReading.availableData, !chunk.isEmpty {
            seen += String(decoding: chunk, as: UTF8.self)
        }
        let url = try #require(
            seen.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first {
                $0.hasPrefix("http://127.0.0.1:\(fake.port)/authorize?")
            })
        #expect(url.contains("user-modify-playback-state"))
        let redirected = try curlRedirect(url)
        #expect(redirected.hasPrefix("http://127.0.0.1:8888/callback?code="))
        try stdin.fileHandleForWriting.write(contentsOf: Data((redirected + "\n").utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        _ = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let record = try JSONValue.parse(output)
        #expect(record["logged_in"] == true)
        #expect(record["scopes"]?.arrayValue?.contains("user-modify-playback-state") == true)
    }

    /// Twenty processes that all need a refresh of a rotating token at the same moment: exactly
    /// one refresh call, every process succeeds, nobody uses a dead refresh token.
    @Test func twentyProcessesRaceForOneRefresh() throws {
        let fake = try FakeSpotifyProcess(["--token-delay-ms", "300"])
        try fake.seedLogin(expiresIn: 0)
        let script = (1...20).map { "spotify-auth token > \"$OUT/\($0)\" 2>&1 & " }.joined() + "wait"
        let out = try TemporaryDirectory()
        let result = try ToolProcess.shell(script, environment: fake.environment(["OUT": out.path]), timeout: 120)
        #expect(result.status == 0)
        let stored = try #require(try fake.store.load())
        for index in 1...20 {
            let text = try String(contentsOfFile: out.url.appendingPathComponent("\(index)").path, encoding: .utf8)
            #expect(text == stored.accessToken + "\n", "process \(index) printed \(text)")
        }
        let counters = try fake.counters()
        #expect(counters["refreshes"] == 1)
        #expect(counters["rejected_refreshes"] == 0)
        #expect(counters["grants"]?["refresh_token"] == 1)
    }

    func curlRedirect(_ url: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "--max-time", "10", "-o", "/dev/null", "-w", "%{redirect_url}", url]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    func fileMode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? Int) ?? -1
    }
}

extension String {
    /// Marks the file at this path executable and returns the path.
    func withExecutableBit() throws -> String {
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: self)
        return self
    }
}

/// A login that cannot reach a browser says so: a failing `BROWSER` is
/// reported at once, a pasted redirect URL completes a login that waits for the browser, and a
/// bad paste is explained and asked for again, in both modes.
@Suite(.tags(.large)) struct LoginWithoutABrowserTests {
    /// `spotify-auth login` with its stdin, stdout and stderr as pipes the test drives.
    final class InteractiveLogin {
        let process = Process()
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        let started = Date()
        private(set) var seen = ""

        init(_ fake: FakeSpotifyProcess, _ arguments: [String], browser: String) throws {
            process.executableURL = ToolProcess.url(of: "spotify-auth")
            process.arguments = ["login"] + arguments
            var env = ProcessInfo.processInfo.environment
            for (key, value) in fake.environment(["BROWSER": browser]) { env[key] = value }
            process.environment = env
            process.standardInput = stdin
            process.standardOutput = stdout
            process.standardError = stderr
            _ = ToolProcess.ignoreSIGPIPE
            try process.run()
        }

        /// Reads stderr until it holds `text` (bounded by the login's own --timeout); the seconds it took.
        @discardableResult
        func waitForStderr(_ text: String) -> Double {
            while !seen.contains(text), case let chunk = stderr.fileHandleForReading.availableData, !chunk.isEmpty {
                seen += String(decoding: chunk, as: UTF8.self)
            }
            return Date().timeIntervalSince(started)
        }

        var authorizeURL: String? {
            seen.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first {
                $0.contains("/authorize?")
            }
        }

        func paste(_ line: String) throws {
            try stdin.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
        }

        /// Closes stdin and collects the rest: the status, stdout, and all of stderr.
        func finish() throws -> ToolResult {
            try stdin.fileHandleForWriting.close()
            let output = stdout.fileHandleForReading.readDataToEndOfFile()
            seen += String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return ToolResult(
                status: process.terminationStatus, stdout: String(decoding: output, as: UTF8.self), stderr: seen)
        }
    }

    /// Where fake-spotify's consent page sends the browser: the address a user would paste.
    func redirect(from authorizeURL: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "--max-time", "10", "-o", "/dev/null", "-w", "%{redirect_url}", authorizeURL]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// The browser command does not exist: said within a few seconds, not after the timeout, and
    /// the login goes on waiting, so the address pasted from another machine's browser logs in.
    @Test func aFailingBrowserIsReportedAtOnceAndAPastedAddressStillLogsIn() throws {
        let fake = try FakeSpotifyProcess()
        let login = try InteractiveLogin(
            fake, ["--redirect-uri", "http://127.0.0.1/callback", "--timeout", "20s"], browser: "/nonexistent/browser")
        let seconds = login.waitForStderr("could not open a browser")
        #expect(seconds < 10, "reported after \(seconds) s")
        #expect(
            login.seen.contains(
                "spotify-auth: could not open a browser with '/nonexistent/browser': not found (exit status 127); open the URL above yourself"
            ))
        let url = try #require(login.authorizeURL)
        let address = try redirect(from: url)
        #expect(address.hasPrefix("http://127.0.0.1:"))
        try login.paste("  " + address + "  ")
        let result = try login.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try JSONValue.parse(result.stdout)["logged_in"] == true)
        #expect(!result.stderr.contains("timed out"))
        #expect(try fake.counters()["grants"]?["authorization_code"] == 1)
    }

    /// A browser that opens but whose redirect never reaches this machine (an SSH session): the
    /// pasted address completes the login the listener waits for; a bad paste is explained first.
    @Test func aPastedAddressCompletesALoginWaitingForTheBrowser() throws {
        let fake = try FakeSpotifyProcess()
        let login = try InteractiveLogin(
            fake, ["--redirect-uri", "http://127.0.0.1/callback", "--timeout", "20s"], browser: "true")
        login.waitForStderr("Waiting for Spotify to redirect")
        let address = try redirect(from: try #require(login.authorizeURL))
        try login.paste("garbage")
        login.waitForStderr("that is not the address your browser was sent to")
        try login.paste(address)
        let result = try login.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try JSONValue.parse(result.stdout)["logged_in"] == true)
        #expect(!result.stderr.contains("could not open a browser"))
    }

    /// --no-browser: garbage and another login's address are explained and asked for again (one
    /// slip no longer ends the login); the right address then logs in.
    @Test func aBadPasteAsksAgainInPasteMode() throws {
        let fake = try FakeSpotifyProcess()
        let login = try InteractiveLogin(
            fake, ["--no-browser", "--redirect-uri", "http://127.0.0.1:8888/callback", "--timeout", "20s"],
            browser: "true")
        login.waitForStderr("Then paste")
        let address = try redirect(from: try #require(login.authorizeURL))
        try login.paste("garbage")
        login.waitForStderr("it has no code")
        try login.paste(address.replacingOccurrences(of: "state=", with: "state=stale"))
        login.waitForStderr("that address belongs to another login")
        try login.paste(address)
        let result = try login.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "spotify-auth: that is not the address your browser was sent to (it has no code); paste the whole address, it starts with http://127.0.0.1:8888/callback"
            ))
        #expect(try JSONValue.parse(result.stdout)["logged_in"] == true)
    }

    /// Ctrl-D (the end of the pasted input) still cancels a --no-browser login at once.
    @Test func theEndOfInputCancelsAPasteModeLogin() throws {
        let fake = try FakeSpotifyProcess()
        let result = try ToolProcess.run(
            "spotify-auth", ["login", "--no-browser", "--timeout", "20s"], stdin: "garbage\n",
            environment: fake.environment())
        #expect(result.status == 77)
        #expect(result.stderr.contains("that is not the address your browser was sent to"))
        #expect(result.stderr.hasSuffix("spotify-auth: login cancelled: no redirect URL was pasted\n"))
    }
}
