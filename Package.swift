// swift-tools-version: 6.0
// No package dependencies, by design: only the toolchain (Foundation, FoundationNetworking,
// Dispatch, Glibc/Darwin, Swift Testing) and, on macOS, system frameworks.
import PackageDescription

let package = Package(
    name: "spotify-toolkit",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "songcount", targets: ["songcount"]),
        .executable(name: "spotify-auth", targets: ["spotify-auth"]),
        .executable(name: "spotify-playlists", targets: ["spotify-playlists"]),
        .executable(name: "spotify-tracks", targets: ["spotify-tracks"]),
        .executable(name: "spotify-nowplaying", targets: ["spotify-nowplaying"]),
        .executable(name: "routine-link", targets: ["routine-link"]),
    ],
    targets: [
        .target(name: "SpotifyToolkit"),
        .executableTarget(name: "songcount", dependencies: ["SpotifyToolkit"]),
        .executableTarget(name: "spotify-auth", dependencies: ["SpotifyToolkit"]),
        .executableTarget(name: "spotify-playlists", dependencies: ["SpotifyToolkit"]),
        .executableTarget(name: "spotify-tracks", dependencies: ["SpotifyToolkit"]),
        .executableTarget(name: "spotify-nowplaying", dependencies: ["SpotifyToolkit"]),
        .executableTarget(name: "routine-link", dependencies: ["SpotifyToolkit"]),
        // Development only: a local stand-in for Spotify (tests, benchmarks, offline demo); never installed.
        .target(name: "FakeSpotify", dependencies: ["SpotifyToolkit"], resources: [.copy("Fixtures")]),
        .executableTarget(name: "fake-spotify", dependencies: ["FakeSpotify"]),
        // Development only: writes man/ and completions/ from the command specs.
        .executableTarget(name: "toolkit-docs", dependencies: ["SpotifyToolkit"]),
        // Development only: writes a DocumentStore from another process (concurrency and kill -9 tests).
        .executableTarget(name: "document-store-writer", dependencies: ["SpotifyToolkit"]),
        .testTarget(name: "SpotifyToolkitTests", dependencies: ["SpotifyToolkit"]),
        // Spawns the built executables; `make test` builds them first.
        .testTarget(name: "EndToEndTests", dependencies: ["SpotifyToolkit"]),
        .testTarget(name: "FakeSpotifyTests", dependencies: ["FakeSpotify"]),
    ],
    swiftLanguageModes: [.v6]
)
