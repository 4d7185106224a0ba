// swift-tools-version: 6.0
// No package dependencies, by design: only the toolchain (Foundation, Dispatch, Glibc/Darwin,
// Swift Testing) and on macOS system frameworks. On Linux HTTPClient drives the system's libcurl
// itself (CurlLoop.swift), loading libcurl.so.4 at the first request: building needs no -dev
// package (Sources/CCurl/include/CCurl.h says what it assumes).
//
// The layers are targets whose dependencies run one way (docs/ARCHITECTURE.md):
//   ToolkitCore ← LoopbackHTTP, HTTPClient ← SpotifyClient ← Tools ← spotify-toolkit, the six executables
//   ToolkitCore ← ToolkitCLI ← Tools
//   ToolkitCore, LoopbackHTTP, ToolkitCLI ← FakeSpotify (never the client it stands in for)
//   ToolkitCore, SpotifyClient ← TestSupport ← the three test targets (in no product)
// No library product: across targets, code is `package`, not `public`.
import PackageDescription

let tools = ["songcount", "spotify-auth", "spotify-playlists", "spotify-tracks", "spotify-nowplaying", "routine-link"]
// What ships (make install, make dist): one executable that runs each tool through a link named
// after it. The six per-tool executables stay for development and the end-to-end tests.
let multiCall = "spotify-toolkit"

let package = Package(
    name: "spotify-toolkit",
    platforms: [.macOS(.v13)],
    products: (tools + [multiCall]).map { .executable(name: $0, targets: [$0]) },
    targets: [
        // Errors and exit codes, JSON, storage, text and time, environment, process and signal
        // helpers, encodings, song time. No Spotify, no HTTP, no CLI.
        .target(name: "ToolkitCore"),
        // The loopback HTTP server: the login callback, and fake-spotify.
        .target(name: "LoopbackHTTP", dependencies: ["ToolkitCore"]),
        // On Linux, libcurl's multi API: FoundationNetworking's URLSession busy-waits on every
        // request in flight (CurlLoop.swift says why). Its own declarations of the few curl
        // calls used, bound with dlopen at the first request; empty on macOS.
        .target(name: "CCurl"),
        // HTTP behind typed failures (URLSession on macOS, libcurl on Linux), and the in-flight limit.
        .target(
            name: "HTTPClient",
            dependencies: ["ToolkitCore", .target(name: "CCurl", condition: .when(platforms: [.linux]))]),
        // Auth, the Web API, the snapshot cache.
        .target(name: "SpotifyClient", dependencies: ["ToolkitCore", "HTTPClient", "LoopbackHTTP"]),
        // Command specs, parsing, help, man pages, completions, the runner and ToolContext.
        .target(name: "ToolkitCLI", dependencies: ["ToolkitCore"]),
        // One folder per tool: its spec, options and glue; and the domain only one tool uses.
        .target(name: "Tools", dependencies: ["ToolkitCore", "SpotifyClient", "ToolkitCLI"]),
    ] + (tools + [multiCall]).map { .executableTarget(name: $0, dependencies: ["Tools", "ToolkitCLI"]) } + [
        // Development only: a local stand-in for Spotify (tests, benchmarks, offline demo); never installed.
        .target(
            name: "FakeSpotify", dependencies: ["ToolkitCore", "LoopbackHTTP", "ToolkitCLI"],
            resources: [.copy("Fixtures")]),
        .executableTarget(name: "fake-spotify", dependencies: ["FakeSpotify"]),
        // Development only: writes man/ and completions/ from the command specs.
        .executableTarget(name: "toolkit-docs", dependencies: ["Tools", "ToolkitCLI"]),
        // Development only: writes a DocumentStore from another process (concurrency and kill -9 tests).
        .executableTarget(name: "document-store-writer", dependencies: ["ToolkitCore"]),
        // Development only: what the three test targets share (the HTTP client for loopback servers,
        // the result of a tool run, scratch directories, the fake's environment and login, the size
        // tags). A plain target under Tests/, in no product: nothing that ships links it.
        .target(
            name: "TestSupport", dependencies: ["ToolkitCore", "SpotifyClient"], path: "Tests/TestSupport"),
        .testTarget(
            name: "SpotifyToolkitTests",
            dependencies: [
                "ToolkitCore", "LoopbackHTTP", "HTTPClient", "SpotifyClient", "ToolkitCLI", "Tools", "FakeSpotify",
                "TestSupport", .target(name: "CCurl", condition: .when(platforms: [.linux])),
            ]),
        // Spawns the built executables; `make test` builds them first. It links neither Tools nor
        // FakeSpotify, so an edit there does not recompile it (InstalledTools names the tools).
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["ToolkitCore", "LoopbackHTTP", "HTTPClient", "SpotifyClient", "ToolkitCLI", "TestSupport"]),
        .testTarget(
            name: "FakeSpotifyTests",
            dependencies: ["FakeSpotify", "ToolkitCore", "ToolkitCLI", "LoopbackHTTP", "SpotifyClient", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
