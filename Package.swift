// swift-tools-version: 6.0
// No package dependencies, by design: only the toolchain (Foundation, FoundationNetworking,
// Dispatch, Glibc/Darwin, Swift Testing) and, on macOS, system frameworks.
import PackageDescription

let package = Package(
    name: "spotify-toolkit",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "SpotifyToolkit", targets: ["SpotifyToolkit"]),
    ],
    targets: [
        .target(name: "SpotifyToolkit"),
        .testTarget(name: "SpotifyToolkitTests", dependencies: ["SpotifyToolkit"]),
    ],
    swiftLanguageModes: [.v6]
)
