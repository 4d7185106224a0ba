import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite(.tags(.small)) struct CommandLineParserTests {
    let tool = CommandSpec(
        name: "tool",
        abstract: "a test tool",
        arguments: [ArgumentSpec("FILE", help: "input", optional: true, repeatable: true, completion: .file)],
        options: [
            OptionSpec("target", short: "t", value: "DURATION", help: "target"),
            OptionSpec("select", short: "s", help: "select"),
            OptionSpec("json", short: "j", help: "json"),
            OptionSpec("scope", value: "SCOPE", help: "scope", repeatable: true),
            OptionSpec("format", value: "FORMAT", help: "format", completion: .choices(["json", "table"])),
        ]
    )
    let auth = CommandSpec(
        name: "auth",
        abstract: "subcommands",
        options: [
            OptionSpec("verbose", short: "v", help: "a flag login shares"),
            OptionSpec("watch", help: "the top command's own"),
        ],
        subcommands: [
            CommandSpec(
                name: "login", abstract: "log in",
                options: [
                    OptionSpec("timeout", value: "DURATION", help: "t"), OptionSpec("verbose", short: "v", help: "v"),
                ]),
            CommandSpec(name: "status", abstract: "status"),
        ]
    )

    func parse(_ arguments: [String]) throws -> ParsedCommand { try CommandLineParser.parse(arguments, spec: tool) }

    func usageMessage(_ arguments: [String], spec: CommandSpec? = nil) -> String? {
        do {
            _ = try CommandLineParser.parse(arguments, spec: spec ?? tool)
            return nil
        } catch let error as ToolError {
            #expect(error.exitCode == .usage)
            return error.message
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test func longOptionWithSeparateOrInlineValue() throws {
        #expect(try parse(["--target", "15m"]).value("target") == "15m")
        #expect(try parse(["--target=15m"]).value("target") == "15m")
        #expect(try parse(["--target="]).value("target") == "")
    }

    /// `=` and a combining mark after it are one Character: the name still ends, and
    /// the value starts, at the `=`; so does `-t`'s attached value.
    @Test func anInlineValueMayStartWithACombiningMark() throws {
        #expect(try parse(["--target=\u{301}15m"]).value("target") == "\u{301}15m")
        #expect(try parse(["--target=🏻"]).value("target") == "🏻")
        #expect(try parse(["--scope==\u{301}"]).value("scope") == "=\u{301}")
        #expect(try parse(["-t\u{301}15m"]).value("target") == "\u{301}15m")
        #expect(try parse(["-jt🏻"]).value("target") == "🏻")
        #expect(usageMessage(["--format=\u{301}json"])?.hasPrefix("invalid value '\u{301}json' for --format") == true)
        #expect(usageMessage(["--select=\u{301}"]) == "option '--select' does not take a value")
        #expect(usageMessage(["-target=\u{301}15m"]) == "unknown option '-target'; did you mean '--target'?")
    }

    @Test func shortOptionsBundledAndWithAttachedValues() throws {
        let bundled = try parse(["-sjt", "15m"])
        #expect(bundled.flag("select") && bundled.flag("json"))
        #expect(bundled.value("target") == "15m")
        #expect(try parse(["-t15m"]).value("target") == "15m")
        #expect(try parse(["-t", "-5"]).value("target") == "-5")  // a value may start with a dash
    }

    @Test func positionalsDashAndDoubleDash() throws {
        let parsed = try parse(["a.jsonl", "-", "--", "--target", "-j"])
        #expect(parsed.positionals == ["a.jsonl", "-", "--target", "-j"])
        #expect(parsed.value("target") == nil)
        #expect(!parsed.flag("json"))
    }

    @Test func repeatableOptionsCollectEveryValueAndLastWins() throws {
        let parsed = try parse(["--scope", "a", "--scope=b", "--target", "1m", "--target", "2m"])
        #expect(parsed.values("scope") == ["a", "b"])
        #expect(parsed.value("target") == "2m")
    }

    @Test func usageErrors() {
        #expect(usageMessage(["--bogus"]) == "unknown option '--bogus'")
        #expect(usageMessage(["--selct"]) == "unknown option '--selct'; did you mean '--select'?")
        #expect(usageMessage(["--target"]) == "option '--target' needs a value (DURATION)")
        #expect(usageMessage(["-t"]) == "option '-t' needs a value (DURATION)")
        #expect(usageMessage(["--json=1"]) == "option '--json' does not take a value")
        #expect(usageMessage(["-q"]) == "unknown option '-q'")
        #expect(usageMessage(["--format", "xml"]) == "invalid value 'xml' for --format; expected one of: json, table")
    }

    /// A long name with one dash is not a cluster of short options.
    @Test func aLongNameWithOneDashIsAnUnknownOptionNotAClusterValue() throws {
        #expect(usageMessage(["-target", "15m"]) == "unknown option '-target'; did you mean '--target'?")
        #expect(usageMessage(["-target=15m"]) == "unknown option '-target'; did you mean '--target'?")
        #expect(usageMessage(["-json"]) == "unknown option '-json'; did you mean '--json'?")
        #expect(try parse(["-t15m"]).value("target") == "15m")
        #expect(try parse(["-help"]).wantsHelp)
    }

    /// Suggestions by edit distance, swaps counted as one slip, ties named.
    @Test func suggestsByEditDistanceAndNamesTies() {
        let routineCommands = ["add", "edit", "list", "show", "link", "unlink", "log", "run", "history"]
        #expect(Suggestions.closest(to: "hist", among: routineCommands) == ["history"])
        #expect(Suggestions.closest(to: "lsit", among: routineCommands) == ["list"])
        #expect(Suggestions.closest(to: "lint", among: routineCommands) == ["list", "link"])
        #expect(Suggestions.closest(to: "liekd", among: ["liked", "limit", "json"]) == ["liked"])
        #expect(Suggestions.closest(to: "zzzz", among: routineCommands) == [])
        #expect(Suggestions.editDistance("lsit", "list") == 1)
        #expect(Suggestions.editDistance("", "abc") == 3)
        #expect(Suggestions.editDistance("kitten", "sitting") == 3)
        #expect(Suggestions.didYouMean(["a"]) == "did you mean 'a'?")
        #expect(Suggestions.didYouMean(["a", "b"]) == "did you mean 'a' or 'b'?")
        #expect(Suggestions.didYouMean(["a", "b", "c"]) == "did you mean 'a', 'b' or 'c'?")
        #expect(Suggestions.didYouMean([]) == nil)
        #expect(usageMessage(["--jsno"]) == "unknown option '--jsno'; did you mean '--json'?")
        #expect(usageMessage(["--s"]) == "unknown option '--s'; did you mean '--select' or '--scope'?")
    }

    @Test func helpWinsOverErrors() throws {
        #expect(try parse(["--bogus", "--help"]).wantsHelp)
        #expect(try parse(["-sh"]).wantsHelp)
        #expect(try parse(["--version"]).wantsVersion)
        // After `--`, --help is just a file name.
        #expect(throws: Never.self) { try parse(["--", "--help"]) }
        #expect(try !parse(["--", "--help"]).wantsHelp)
    }

    @Test func subcommandsAndInheritedOptions() throws {
        let parsed = try CommandLineParser.parse(["login", "--timeout", "2m", "-v"], spec: auth)
        #expect(parsed.path == ["auth", "login"])
        #expect(parsed.subcommand == "login")
        #expect(parsed.value("timeout") == "2m")
        #expect(parsed.flag("verbose"))
        let help = try CommandLineParser.parse(["status", "--help"], spec: auth)
        #expect(help.wantsHelp && help.spec.name == "status")
        #expect(usageMessage([], spec: auth) == "missing command; one of: login, status")
        #expect(usageMessage(["logn"], spec: auth) == "unknown command 'logn'; did you mean 'login'?")
        // An option without its dashes, and a duration the shell split.
        let nowplaying = SpotifyNowPlaying.spec
        #expect(usageMessage(["wacth"], spec: nowplaying) == "unknown command 'wacth'; did you mean '--watch'?")
        #expect(
            usageMessage(["--watch", "--for", "1h", "30m"], spec: nowplaying)
                == "unknown command '30m'; did you mean --for '1h 30m'? (quote a duration with a space in it)")
        #expect(usageMessage(["status", "--timeout", "1m"], spec: auth) == "unknown option '--timeout'")
        #expect(usageMessage(["status", "extra"], spec: auth) == "unexpected argument 'extra'")
        // A subcommand takes only the options it declares (offered means read): the top
        // command's own are refused after its name, and before it.
        #expect(usageMessage(["status", "--watch"], spec: auth) == "unknown option '--watch'")
        #expect(usageMessage(["status", "-v"], spec: auth) == "unknown option '-v'")
        #expect(usageMessage(["-v", "status"], spec: auth) == "option '--verbose' is not an option of 'auth status'")
        #expect(try CommandLineParser.parse(["-v", "login"], spec: auth).flag("verbose"))
        #expect(
            try CommandLineParser.parse(
                ["--watch"],
                spec: CommandSpec(
                    name: "auth", abstract: "x", options: [OptionSpec("watch", help: "w")])
            ).flag("watch"))
    }

    @Test func usageErrorsNameTheCommandTheyAreAbout() throws {
        let error = try #require(throws: ToolError.self) {
            try CommandLineParser.parse(["login", "--bogus"], spec: auth)
        }
        #expect(error.commandPath == ["auth", "login"])
        #expect(try CommandLineParser.parse(["bogus", "--help"], spec: auth).wantsHelp)  // --help still wins
    }

    @Test func requiredPositionals() {
        let spec = CommandSpec(name: "get", abstract: "x", arguments: [ArgumentSpec("ID", help: "id")])
        #expect(usageMessage([], spec: spec) == "missing argument ID")
        #expect(usageMessage(["a", "b"], spec: spec) == "unexpected argument 'b'")
    }
}

@Suite(.tags(.small)) struct TypedOptionsTests {
    static let select = OptionSpec("select", short: "s", help: "select")
    static let target = OptionSpec("target", short: "t", value: "DURATION", help: "target")
    static let other = OptionSpec("other", help: "declared by no command")
    static let sameNameOtherMeaning = OptionSpec("target", help: "a flag of the same name")
    let root = CommandSpec(
        name: "tool", abstract: "a test tool", options: [.jsonRecords],
        subcommands: [
            CommandSpec(name: "pick", abstract: "pick", options: [Self.select, Self.target]).offering(.jsonRecords)
        ])

    @Test func aDeclaredOptionAndOneSharedWithTheToolCanBeRead() throws {
        let parsed = try CommandLineParser.parse(["pick", "-s", "--target", "5m", "--json"], spec: root)
        #expect(try parsed.flag(Self.select) && parsed.flag(.jsonRecords))
        #expect(try parsed.value(Self.target) == "5m")
    }

    @Test func anUndeclaredOptionCannotBeReadNorOneOfTheSameNameThatMeansSomethingElse() throws {
        let parsed = try CommandLineParser.parse(["pick"], spec: root)
        for read in [{ _ = try parsed.flag(Self.other) }, { _ = try parsed.flag(Self.sameNameOtherMeaning) }] {
            let error = #expect(throws: ToolError.self) { try read() }
            #expect(error?.exitCode == .software)
            #expect(error?.message.contains("does not declare") == true)
        }
    }

    struct Pick: CommandOptions {
        var select: Bool
        var target: String?
        init(_ command: ParsedCommand) throws {
            select = try command.flag(TypedOptionsTests.select)
            target = try command.value(TypedOptionsTests.target)
            if select && target == nil { throw ToolError.usage("--select needs --target") }
        }
    }

    @Test func aHandlerGetsItsOptionsReadOnceAndAUsageErrorBeforeItRuns() async throws {
        let ran = Locked<[String]>([])
        let spec = CommandSpec(name: "pick", abstract: "pick", options: [Self.select, Self.target]).running {
            (options: Pick, _) in
            ran.withLock { $0.append(options.target ?? "none") }
            return .success
        }
        let quiet = open("/dev/null", O_RDWR)
        defer { close(quiet) }
        let streams = ToolStreams(stdin: quiet, stdout: quiet, stderr: quiet, terminal: .none)
        let environment = ToolEnvironment([:])
        #expect(
            await ToolRunner.execute(spec, arguments: ["-s", "-t", "1m"], environment: environment, streams: streams)
                == 0)
        #expect(await ToolRunner.execute(spec, arguments: ["-s"], environment: environment, streams: streams) == 64)
        #expect(ran.withLock { $0 } == ["1m"])
    }
}
