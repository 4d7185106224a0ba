import Foundation
import Testing

@testable import ToolkitCore

/// A networked tool leaves nothing outside spotify-toolkit/ under the XDG directories, in
/// particular not the empty directories Foundation's shared URL cache and cookie storage create
/// (`$XDG_CACHE_HOME/org.swift.foundation.URLCache/<tool>/`, `$XDG_DATA_HOME/<its directory>/`).
/// A process of its own: Foundation creates them once per process.
@Suite(.tags(.large)) struct StrayDirectoryTests {
    @Test func aNetworkedRunLeavesNoStrayDirectories() throws {
        let fake = try FakeSpotifyProcess()
        try fake.seedLogin(expiresIn: 3600)
        let home = fake.home.url
        let bin = home.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let copy = bin.appendingPathComponent("spotify-tracks")
        try FileManager.default.copyItem(at: ToolProcess.url(of: "spotify-tracks"), to: copy)
        let process = Process()
        process.executableURL = copy
        process.arguments = ["--liked"]
        var env = ProcessInfo.processInfo.environment
        for (key, value) in fake.environment(["XDG_DATA_HOME": home.appendingPathComponent("data").path]) {
            env[key] = value
        }
        process.environment = env
        let result = try ToolProcess.capture(process, stdin: nil, timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        var strays: [String] = []
        for base in ["cache", "data"] {
            let root = home.appendingPathComponent(base).path
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
            strays += names.filter { $0 != "spotify-toolkit" }.map { "\(base)/\($0)" }
        }
        #expect(strays == [], "no directories outside spotify-toolkit/")
    }
}
