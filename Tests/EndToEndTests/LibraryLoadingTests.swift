import Foundation
import Testing

#if os(Linux)
/// Issue 26: on Linux a run that sends no request loads neither libcurl nor FoundationNetworking
/// (nor the ~30 libraries libcurl brings); the first request loads libcurl.so.4 (CCurl.h). Seen
/// through the dynamic loader's own log (LD_DEBUG=files lists every library it opens).
@Suite(.tags(.large)) struct LibraryLoadingTests {
    static let loaderLog = ["LD_DEBUG": "files"]

    @Test func aRunThatSendsNothingLoadsNoHTTPLibrary() throws {
        let record = #"{"id":"a","name":"A","type":"track","uri":"spotify:track:a","duration_ms":200000}"# + "\n"
        let local = try ToolProcess.run("songcount", ["--target", "15m"], stdin: record, environment: Self.loaderLog)
        #expect(local.stdout.contains(#""songs":1"#), "\(local.stderr)")
        #expect(local.stderr.contains("file=libc.so.6"), "the loader's log is there to read")
        #expect(!local.stderr.contains("libcurl"))
        #expect(!local.stderr.contains("FoundationNetworking"))

        let fake = try FakeSpotifyProcess()
        let notLoggedIn = try ToolProcess.run(
            "spotify-tracks", [generated(3)], environment: fake.environment(Self.loaderLog))
        #expect(notLoggedIn.status == 77, "\(notLoggedIn.stderr)")
        #expect(!notLoggedIn.stderr.contains("libcurl"))
    }

    /// Issue 26, item 4: the tools import FoundationEssentials, not Foundation, so no run loads
    /// full Foundation, FoundationInternationalization or ICU (32 MiB of data in a static build).
    @Test func noToolLoadsFullFoundationOrICU() throws {
        let record = #"{"id":"a","name":"A","type":"track","uri":"spotify:track:a","duration_ms":200000}"# + "\n"
        var runs = [try ToolProcess.run("songcount", ["--target", "15m"], stdin: record, environment: Self.loaderLog)]
        for tool in ["spotify-auth", "spotify-playlists", "spotify-tracks", "spotify-nowplaying", "routine-link"] {
            runs.append(try ToolProcess.run(tool, ["--help"], environment: Self.loaderLog))
        }
        runs.append(try ToolProcess.run("spotify-toolkit", ["songcount", "--help"], environment: Self.loaderLog))
        for run in runs {
            #expect(run.status == 0, "\(run.stderr.suffix(500))")
            #expect(run.stderr.contains("libFoundationEssentials.so"), "the loader's log names what it opens")
            for library in ["libFoundation.so", "FoundationInternationalization", "_FoundationICU"] {
                #expect(!run.stderr.contains(library), "\(library) loaded")
            }
        }
    }

    @Test func theFirstRequestLoadsLibcurl() throws {
        let fake = try FakeSpotifyProcess()
        try fake.seedLogin(expiresIn: 3600)
        let result = try ToolProcess.run(
            "spotify-tracks", [generated(3)], environment: fake.environment(Self.loaderLog))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines.count == 3)
        #expect(result.stderr.contains("file=libcurl.so.4"), "dlopen'd by name")
        #expect(!result.stderr.contains("FoundationNetworking"))
    }
}
#endif
