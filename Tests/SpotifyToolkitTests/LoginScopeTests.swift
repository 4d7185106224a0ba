import Foundation
import Testing

@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCore
@testable import Tools

/// Scopes accumulate across logins: the login asks /authorize for the
/// defaults, what the last login was granted and what --scope adds; named sets and comma lists;
/// --reset-scopes; and every missing-scope hint is one command. The "browser" is a script that
/// follows fake-spotify's consent redirect to the login's loopback listener.
@Suite(.tags(.medium)) struct LoginScopeTests {
    static let playback = "user-modify-playback-state"
    static let history = ["user-read-recently-played", "user-top-read", "user-follow-read"]
    static let edit = ["playlist-modify-private", "playlist-modify-public", "user-library-modify"]

    /// A browser that follows the consent page's redirect to the callback.
    static func browser(in fake: InProcessFake) throws -> String {
        let path = try fake.home.file(
            "browser.sh",
            contents: """
                #!/bin/sh
                loc=$(curl -s --max-time 10 -o /dev/null -w '%{redirect_url}' "$1")
                curl -s --max-time 10 -o /dev/null "$loc"
                """)
        chmod(path, 0o755)
        return path
    }

    /// A login in process through the browser script; the run and the scopes its authorize URL asked for.
    static func login(_ fake: InProcessFake, _ arguments: [String] = []) async throws -> (ToolRun, [String]) {
        let run = try await fake.run(
            "spotify-auth", ["login", "--redirect-uri", "http://127.0.0.1/callback", "--timeout", "20s"] + arguments,
            // Through sh, not exec'd: a process another test spawns at the same moment may still
            // hold the new script open for writing, and exec would fail with ETXTBSY (exit 126).
            environment: ["BROWSER": "sh " + (try browser(in: fake))])
        return (run, requestedScopes(run.stderr))
    }

    /// The `scope` parameter of the authorize URL the login printed.
    static func requestedScopes(_ stderr: String) -> [String] {
        guard
            let line = stderr.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }).first(where: {
                $0.contains("/authorize?")
            }),
            let items = URLComponents(string: line)?.queryItems,
            let scope = items.first(where: { $0.name == "scope" })?.value
        else { return [] }
        return scope.split(separator: " ").map(String.init)
    }

    static func granted(_ run: ToolRun) throws -> [String] {
        try JSONValue.parse(run.stdout)["scopes"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    @Test func aSecondLoginKeepsTheScopesOfTheFirst() async throws {
        let fake = try InProcessFake()
        defer { fake.stop() }
        let (first, firstAsked) = try await Self.login(fake, ["--scope", "playback"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(firstAsked == LoginFlow.defaultScopes + [Self.playback])

        // The history hint's login must not drop playback (the loop the review went round).
        let (second, secondAsked) = try await Self.login(fake, ["--scope", "history"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(secondAsked == LoginFlow.defaultScopes + [Self.playback] + Self.history)
        #expect(try Self.granted(second) == LoginFlow.defaultScopes + [Self.playback] + Self.history)
        #expect(second.stderr.contains("Keeping the scopes of your last login: \(Self.playback)"))

        // A plain login keeps them too.
        let (third, thirdAsked) = try await Self.login(fake)
        #expect(third.status == 0, "\(third.stderr)")
        #expect(thirdAsked == LoginFlow.defaultScopes + [Self.playback] + Self.history)

        // --reset-scopes goes back to the defaults (plus what this login asks for).
        let (reset, resetAsked) = try await Self.login(fake, ["--reset-scopes"])
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(resetAsked == LoginFlow.defaultScopes)
        #expect(!reset.stderr.contains("Keeping the scopes"))
        let (after, afterAsked) = try await Self.login(fake, ["--reset-scopes", "--scope", "history"])
        #expect(after.status == 0, "\(after.stderr)")
        #expect(afterAsked == LoginFlow.defaultScopes + Self.history)
    }

    @Test func anExpiredStoredLoginsScopesAreAskedForAgain() async throws {
        let fake = try InProcessFake()
        defer { fake.stop() }
        try await fake.seedLogin(
            expiresIn: 0, scope: (LoginFlow.defaultScopes + [Self.playback]).joined(separator: " "))
        let (run, asked) = try await Self.login(fake, ["--scope", "history"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(asked == LoginFlow.defaultScopes + [Self.playback] + Self.history)
    }

    /// Spotify ends the session (invalid_grant) and the tokens go; the next login still asks for
    /// what that one had, from the config file. Logout forgets them.
    @Test func anEndedSessionsScopesAreAskedForAgainAndLogoutForgetsThem() async throws {
        let fake = try InProcessFake(["--refresh-token-lifetime", "0"])
        defer { fake.stop() }
        let (first, _) = try await Self.login(fake, ["--scope", "edit"])
        #expect(first.status == 0, "\(first.stderr)")
        let ended = try await fake.run("spotify-auth", ["refresh"])
        #expect(ended.status == 77, "\(ended.stderr)")
        #expect(try fake.store.load() == nil)
        let (second, asked) = try await Self.login(fake)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(asked == LoginFlow.defaultScopes + Self.edit)

        let logout = try await fake.run("spotify-auth", ["logout"])
        #expect(logout.status == 0, "\(logout.stderr)")
        let config = try String(contentsOfFile: fake.configDirectory + "/config.json", encoding: .utf8)
        #expect(!config.contains("scopes"))
        #expect(config.contains("test-client"))
        let (third, afterLogout) = try await Self.login(fake)
        #expect(third.status == 0, "\(third.stderr)")
        #expect(afterLogout == LoginFlow.defaultScopes)
    }

    @Test func namedSetsAndCommaLists() async throws {
        let fake = try InProcessFake()
        defer { fake.stop() }
        let (all, allAsked) = try await Self.login(fake, ["--scope", "all"])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(Set(allAsked) == Set(LoginFlow.defaultScopes + [Self.playback] + Self.history + Self.edit))
        let (list, listAsked) = try await Self.login(
            fake, ["--reset-scopes", "--scope", "playback,history", "--scope", "user-top-read"])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(listAsked == LoginFlow.defaultScopes + [Self.playback] + Self.history)

        let unknown = try await fake.run("spotify-auth", ["login", "--scope", "playback,everything"])
        #expect(unknown.status == 64)
        #expect(
            unknown.stderr.contains(
                "unknown scope 'everything' for --scope; expected a set (playback, history, edit, all)"))
    }

    @Test func setsExpandInOrderOnceEach() throws {
        #expect(try SpotifyScope.expand(["edit"]) == Self.edit)
        #expect(
            try SpotifyScope.expand(["history, playback", "user-modify-playback-state"]) == Self.history + [
                Self.playback
            ])
        #expect(try SpotifyScope.expand(["all"]) == [Self.playback] + Self.history + Self.edit)
        #expect(try SpotifyScope.expand([]) == [])
        #expect(throws: ToolError.self) { try SpotifyScope.expand(["playlist-modify"]) }
    }

    /// Every hint is the one command that adds what is missing, by its set's name.
    @Test func hintsNameOneCommand() {
        #expect(SpotifyScope.loginCommand(for: Self.edit) == "spotify-auth login --scope edit")
        #expect(
            SpotifyScope.loginCommand(for: [Self.playback] + Self.history)
                == "spotify-auth login --scope playback --scope history")
        #expect(SpotifyScope.loginCommand(for: ["user-top-read"]) == "spotify-auth login --scope history")
        #expect(SpotifyScope.loginCommand(for: ["user-follow-read"]) == "spotify-auth login --scope history")
        #expect(
            SpotifyScope.loginCommand(for: ["user-read-playback-position"])
                == "spotify-auth login --scope user-read-playback-position")
        #expect(
            SpotifyScope.Need(
                [SpotifyScope.modifyPrivatePlaylists, SpotifyScope.modifyPublicPlaylists], for: "changing playlists"
            )
            .error.message
                == "changing playlists needs the scopes playlist-modify-private and playlist-modify-public; add them with: spotify-auth login --scope edit (the scopes you have are kept)"
        )
        #expect(
            PlayerCommandError.missingScope.toolError.message
                == "controlling playback needs the user-modify-playback-state scope; add it with: spotify-auth login --scope playback (the scopes you have are kept)"
        )
    }

    /// A scope typed wrong gets the one it was probably meant to be.
    @Test func aMistypedScopeGetsASuggestion() {
        let error = #expect(throws: ToolError.self) { try SpotifyScope.expand(["histroy"]) }
        #expect(error?.message.contains("unknown scope 'histroy' for --scope; did you mean 'history'?") == true)
    }

    /// A write refused before any item landed (here, for a missing scope) says so and
    /// stops there: no "add the rest" recipe for a command that sent nothing.
    @Test func aWriteRefusedForAScopeOffersNoRecipe() async throws {
        let library = try await Library()
        let run = try await library.run(
            "spotify-playlists", ["add", generated(10)], stdin: "spotify:track:4uLU6hMCjMI75M1A2tKUQC\n")
        #expect(run.status == 77, "\(run.stderr)")
        #expect(run.stderr.contains("needs the scopes"), "\(run.stderr)")
        #expect(run.stderr.contains("nothing was added"), "\(run.stderr)")
        #expect(!run.stderr.contains("add the rest"), "\(run.stderr)")
    }

    @Test func listeningHistoryHintNamesTheHistorySet() async throws {
        let library = try await Library()
        let run = try await library.fake.run("spotify-nowplaying", ["recent"])
        #expect(run.status == 77)
        #expect(
            run.stderr
                == "spotify-nowplaying: listening history needs the user-read-recently-played scope; add it with: spotify-auth login --scope history (the scopes you have are kept)\n"
        )
    }
}

/// A browser command that fails is reported while the login waits, in
/// process; the timing and the paste that follows are end to end (LoginWithoutABrowserTests).
@Suite(.tags(.medium)) struct LoginBrowserFailureTests {
    @Test(arguments: [
        ("/nonexistent/browser", "'/nonexistent/browser': not found (exit status 127)"),
        ("false", "'false': exit status 1"),
    ])
    func aFailingBrowserIsReportedBeforeTheTimeout(browser: String, reason: String) async throws {
        let fake = try InProcessFake()
        defer { fake.stop() }
        let run = try await fake.run(
            "spotify-auth", ["login", "--redirect-uri", "http://127.0.0.1/callback", "--timeout", "3s"],
            environment: ["BROWSER": browser])
        #expect(run.status == 75)
        let report = try #require(
            run.stderr.range(of: "spotify-auth: could not open a browser with \(reason); open the URL above yourself"),
            "\(run.stderr)")
        let timeout = try #require(run.stderr.range(of: "login timed out after 0:03"))
        #expect(report.upperBound < timeout.lowerBound)
    }

    @Test func aBrowserThatOpensIsNotReported() async throws {
        let fake = try InProcessFake()
        defer { fake.stop() }
        let run = try await fake.run(
            "spotify-auth", ["login", "--redirect-uri", "http://127.0.0.1/callback", "--timeout", "1s"],
            environment: ["BROWSER": "true"])
        #expect(run.status == 75)
        #expect(!run.stderr.contains("could not open a browser"), "\(run.stderr)")
    }
}

/// The newcomer review's smaller login findings (7 and 9): the client-id guide names the
/// redirect URI this login would use, a client id that cannot be one is refused before the
/// browser opens, and a busy port says what to do.
@Suite(.tags(.medium)) struct LoginSetupMessageTests {
    @Test func theClientIDGuideNamesTheRedirectURIInUse() async throws {
        let fake = try InProcessFake()
        defer { fake.stop() }
        let run = try await fake.run(
            "spotify-auth", ["login"],
            environment: ["SPOTIFY_CLIENT_ID": "", "SPOTIFY_REDIRECT_URI": "http://127.0.0.1:9999/callback"])
        #expect(run.status == 78)
        #expect(run.stderr.contains("add the redirect URI http://127.0.0.1:9999/callback;"), "\(run.stderr)")
    }

    @Test func aClientIDThatCannotBeOneIsRefused() async throws {
        let fake = try InProcessFake()
        defer { fake.stop() }
        let run = try await fake.run(
            "spotify-auth", ["login", "--client-id", "not a client id!"], environment: ["BROWSER": "false"])
        #expect(run.status == 78)
        #expect(
            run.stderr.hasPrefix("spotify-auth: 'not a client id!' is not a client id: Spotify's are 32 hex digits"))
        #expect(!run.stderr.contains("/authorize?"))
    }

    @Test func aBusyPortSaysWhatToDo() async throws {
        let fake = try InProcessFake()
        defer { fake.stop() }
        let squatter = try LoopbackHTTPServer(port: 0) { _ in .text("busy\n") }
        defer { squatter.stop() }
        let run = try await fake.run(
            "spotify-auth", ["login", "--redirect-uri", "http://127.0.0.1:\(squatter.port)/callback"],
            environment: ["BROWSER": "false"])
        #expect(run.status == 69)
        #expect(
            run.stderr.contains(
                "cannot listen on 127.0.0.1:\(squatter.port): Address already in use; another spotify-auth login may be running. Or log in with --no-browser"
            ), "\(run.stderr)")
    }
}
