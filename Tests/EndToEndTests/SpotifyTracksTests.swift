import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore

/// A fake-spotify with a stored login, and the tools run against it.
struct Library {
    let fake: FakeSpotifyProcess
    let tokens: StoredTokens

    init(_ arguments: [String] = []) throws {
        fake = try FakeSpotifyProcess(arguments)
        tokens = try fake.seedLogin(expiresIn: 3600)
    }

    func run(_ tool: String, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws
        -> ToolResult
    {
        let result = try ToolProcess.run(
            tool, arguments, stdin: stdin, environment: fake.environment(environment), timeout: 120)
        #expect(
            !result.stdout.contains(tokens.accessToken) && !result.stderr.contains(tokens.accessToken),
            "no token in output")
        return result
    }

    func tracks(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> ToolResult {
        try run("spotify-tracks", arguments, stdin: stdin, environment: environment)
    }

    func fault(_ fields: [(String, String)]) throws {
        let answer = try fake.call("POST", "/_fake/faults", form: fields)
        #expect(answer["kind"] != nil, "\(answer)")
    }

    func counters() throws -> JSONValue { try fake.counters() }
}

func records(_ result: ToolResult) throws -> [JSONValue] {
    try result.stdoutLines.map { try JSONValue.parse($0) }
}

func generated(_ count: Int, _ prefix: String = "gen") -> String {
    let digits = String(count)
    return prefix + String(repeating: "0", count: 19 - digits.count) + digits
}

@Suite(.tags(.large)) struct SpotifyTracksEndToEndTests {
    @Test func aClosedPipeStopsItEarlyAndQuietly() throws {
        let library = try Library(["--latency-ms", "20"])
        let result = try ToolProcess.shell(
            "spotify-tracks \(generated(10_000)) | head -1; echo \"${PIPESTATUS[0]}\" >&2",
            environment: library.fake.environment())
        #expect(try JSONValue.parse(result.stdoutLines[0])["position"] == 0)
        #expect(result.stderr == "141\n", "killed by SIGPIPE, nothing said")
        let pages = try library.counters()["requests"]?["GET /v1/playlists/{id}/items"]?.intValue ?? 0
        #expect(pages < 200, "streams page by page: stopped after \(pages) of 200 pages")
    }

    @Test func aClosedPipeStopsAWholeLibraryRunEarly() throws {
        let library = try Library(["--library-shape", "real", "--latency-ms", "20"])
        let result = try ToolProcess.shell(
            "spotify-playlists | spotify-tracks | head -1; echo \"${PIPESTATUS[1]}\" >&2",
            environment: library.fake.environment())
        #expect(try JSONValue.parse(result.stdoutLines[0])["position"] == 0)
        #expect(result.stderr == "141\n", "killed by SIGPIPE, nothing said")
        let requests = try library.counters()["requests"]
        let reads = ["GET /v1/playlists/{id}", "GET /v1/playlists/{id}/items"].reduce(0) {
            $0 + (requests?[$1]?.intValue ?? 0)
        }
        // A whole run makes about 440; the look-ahead is bounded, so a closed pipe stops it soon.
        #expect(reads < 100, "stopped after \(reads) requests")
    }

    /// Issue 20, item 7: with stdout a pipe, the reader downstream writes to the same terminal;
    /// a progress line redrawn with \r would glue itself into its output ("50/2,000 itemsTrack 1").
    @Test func noProgressWhenStdoutIsAPipe() throws {
        let library = try Library()
        let tool = ToolProcess.url(of: "spotify-tracks").path
        let result = try ToolProcess.shell(
            "script -qec '\(tool) \(generated(10_000)) | wc -l' /dev/null", environment: library.fake.environment())
        #expect(result.stdout.contains("10000"), "\(result.stdout.suffix(200))")
        #expect(!result.stdout.contains("items"), "no progress line: \(result.stdout.suffix(200).debugDescription)")
    }

    /// A signal that ends the run clears a drawn progress line first.
    @Test func aSignalClearsTheProgressLine() throws {
        let library = try Library(["--latency-ms", "30"])
        let tool = ToolProcess.url(of: "spotify-tracks").path
        let out = library.fake.home.url.appendingPathComponent("out.jsonl").path
        let script = """
            script -qec '\(tool) --concurrency 1 \(generated(10_000)) > \(out) & pid=$!; sleep 2; kill -TERM $pid; wait $pid' /dev/null
            """
        let result = try ToolProcess.shell(script, environment: library.fake.environment(), timeout: 60)
        #expect(
            result.stdout.contains("/10,000 items"), "progress was drawn: \(result.stdout.suffix(200).debugDescription)"
        )
        let last = result.stdout.range(of: "items", options: .backwards).map { result.stdout[$0.upperBound...] } ?? ""
        #expect(
            last.contains("\r\u{1B}[K"), "cleared after the last draw: \(result.stdout.suffix(120).debugDescription)")
    }

    @Test func progressOnlyWhenStderrIsATerminal() throws {
        let library = try Library()
        let tool = ToolProcess.url(of: "spotify-tracks").path
        // script(1) gives the tool a pseudo-terminal; stdout still goes to a file.
        let out = library.fake.home.url.appendingPathComponent("out.jsonl").path
        let result = try ToolProcess.shell(
            "script -qec '\(tool) \(generated(10_000)) > \(out)' /dev/null", environment: library.fake.environment())
        #expect(result.stdout.contains("/10,000 items"), "\(result.stdout.suffix(200))")
        #expect(result.stdout.contains("\r10,000/10,000 items"))
        // Cleared at the end, then the one line a run of more than 100 requests ends with on a terminal.
        #expect(result.stdout.contains("\r\u{1B}[Kspotify-tracks: sent 200 requests to Spotify"), "cleared at the end")
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("(spotify-auth usage)"))
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 10_000, "progress never reaches stdout")
    }
}
