import Foundation

/// A private home for routine-link: data, config, cache and state directories, a `$BROWSER` that
/// records what it was given, and fake `xdg-mime` / `xdg-open` on PATH, so `open` and `start` are
/// tested without a desktop. Each test target adds how it runs routine-link (`rl`, `records`)
/// and a plain `init()` saying what else is on PATH.
package final class RoutineHome: Sendable {
    package static let playlistID = "3cEYpjA9oz9GiPac4AsH4n"
    package static let playlistURI = "spotify:playlist:\(playlistID)"
    package let home: TemporaryDirectory
    /// PATH after the home's own bin: the built tools, for the end-to-end tests.
    let onPath: [String]
    package var bin: String { home.path + "/bin" }
    package var storePath: String { home.path + "/data/spotify-toolkit/routines.json" }
    package var browserLog: String { home.path + "/browser.log" }
    package var recorder: String { bin + "/record-browser" }

    package init(onPath: [String]) throws {
        home = try TemporaryDirectory()
        self.onPath = onPath
        try FileManager.default.createDirectory(atPath: home.path + "/bin", withIntermediateDirectories: true)
        try script("record-browser", "printf '%s\\n' \"$1\" >> '\(home.path)/browser.log'")
        // Says a handler is registered only when the test wrote one into ./handler.
        try script(
            "xdg-mime",
            "[ \"$*\" = 'query default x-scheme-handler/spotify' ] && cat '\(home.path)/handler' 2>/dev/null; exit 0")
        try script("xdg-open", "exit 3")
    }

    package func script(_ name: String, _ body: String) throws {
        let path = bin + "/" + name
        try "#!/bin/sh\n\(body)\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
    }

    /// Offline by default: the Web API is a closed port and there is no login.
    package func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var env = [
            "XDG_DATA_HOME": home.path + "/data", "XDG_CONFIG_HOME": home.path + "/config",
            "XDG_CACHE_HOME": home.path + "/cache", "XDG_STATE_HOME": home.path + "/state",
            "BROWSER": recorder, "PATH": ([bin] + onPath + ["/usr/bin", "/bin"]).joined(separator: ":"),
            "SPOTIFY_API_BASE": "http://127.0.0.1:9/v1",
            "SPOTIFY_ACCESS_TOKEN": "", "SPOTIFY_TOOLKIT_TOKEN_STORE": "file",
        ]
        for (key, value) in extra { env[key] = value }
        return env
    }

    package var browserCalls: [String] {
        ((try? String(contentsOfFile: browserLog, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    package var storeBytes: Data? { FileManager.default.contents(atPath: storePath) }
}
