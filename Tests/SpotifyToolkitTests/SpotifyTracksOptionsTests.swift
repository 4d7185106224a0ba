import Testing

@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// spotify-tracks' command line, read and checked in `SpotifyTracks.Options` before any request:
/// what a run reads, and the usage errors of options that do not go together.
@Suite(.tags(.small)) struct SpotifyTracksOptionsTests {
    func options(_ arguments: [String]) throws -> SpotifyTracks.Options {
        try SpotifyTracks.Options(CommandLineParser.parse(arguments, spec: SpotifyTracks.spec))
    }

    func usageError(_ arguments: [String]) -> ToolError? {
        do {
            _ = try options(arguments)
            return nil
        } catch let error as ToolError {
            return error
        } catch {
            return nil
        }
    }

    @Test func sourcesAreTheArgumentsWithTheirReleaseGroups() throws {
        let read = try options(["--include-groups", "single,album,single", "--no-cache", "spotify:artist:a", "Run"])
        let (arguments, includeGroups) = try #require(read.reading.sources)
        #expect(arguments == ["spotify:artist:a", "Run"])
        #expect(includeGroups == "single,album")
        #expect(read.cache == PlaylistCacheOptions.Choice(bypass: true))
        #expect(!read.json && read.concurrency == nil)
    }

    @Test func libraryReadsTakeTheirRange() throws {
        let read = try options(["--top-artists", "--range", "long", "--concurrency", "3", "--json"])
        let library = try #require(read.reading.library)
        #expect(library.source == .topArtists && library.range == .long)
        #expect(read.concurrency == 3 && read.json)
        #expect(try options(["--top"]).reading.library?.range == .medium)
    }

    @Test func searchParsesItsQueriesAndCandidates() throws {
        let search = try #require(try options(["--search", "-n", "3", "Queen - Bohemian Rhapsody"]).reading.search)
        #expect(search.perQuery == 3)
        #expect(search.arguments?.map(\.place) == ["query 1"])
        let fromInput = try #require(try options(["--search"]).reading.search)
        #expect(fromInput.arguments == nil && fromInput.perQuery == 1)
    }

    @Test(arguments: [
        (["--liked", "Run"], "--liked reads your saved tracks; it takes no SOURCE"),
        (["--candidates", "2"], "--candidates needs --search"),
        (["--search", "--raw"], "--search and --raw cannot be used together"),
        (["--search", "--offline"], "--search always asks Spotify; it cannot be used with --offline"),
        (["--search", "  "], "query 1: an empty query"),
        (["--search", "--candidates", "11"], "--candidates must be a whole number from 1 to 10, not '11'"),
        (["--saved-albums", "--range", "short"], "--range goes with --top or --top-artists"),
        (["--top", "--liked"], "--top and --liked cannot be used together; run them one at a time"),
        (["--followed", "Run"], "--followed reads your library; it takes no PLAYLIST"),
        (
            ["--include-groups", "albums"],
            "--include-groups takes album, single, appears_on and compilation, comma-separated, not 'albums'"
        ),
        (["--concurrency", "0"], "--concurrency must be a whole number from 1 to 8, not '0'"),
        (["--no-cache", "--offline"], "--offline prints from the cache, which --no-cache turns off; use one of them"),
    ])
    func optionsThatDoNotGoTogetherFailInTheInit(arguments: [String], message: String) {
        let error = usageError(arguments)
        #expect(error?.exitCode == .usage)
        #expect(error?.message == message)
    }
}

extension SpotifyTracks.Options.Reading {
    var sources: ([String], String)? {
        if case .sources(let arguments, let includeGroups) = self { (arguments, includeGroups) } else { nil }
    }

    var library: SpotifyTracks.LibraryRead? {
        if case .library(let library) = self { library } else { nil }
    }

    var search: SpotifyTracks.SearchOptions? {
        if case .search(let search) = self { search } else { nil }
    }
}
