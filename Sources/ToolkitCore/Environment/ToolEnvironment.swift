#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process environment as a value, so code that reads it can be tested with any values.
package struct ToolEnvironment: Sendable {
    package var variables: [String: String]

    package init(_ variables: [String: String]) {
        self.variables = variables
    }

    package static var current: ToolEnvironment { ToolEnvironment(ProcessInfo.processInfo.environment) }

    /// This process's executable file, links resolved by the kernel on Linux (`/proc/self/exe`;
    /// FoundationEssentials has no `Bundle`).
    package static var executableURL: URL? {
        #if canImport(FoundationEssentials) && os(Linux)
        var buffer = [UInt8](repeating: 0, count: 4097)
        let count = buffer.withUnsafeMutableBufferPointer {
            $0.withMemoryRebound(to: CChar.self) { readlink("/proc/self/exe", $0.baseAddress!, $0.count - 1) }
        }
        guard count > 0 else { return nil }
        return URL(fileURLWithPath: String(decoding: buffer[0..<count], as: UTF8.self))
        #else
        return Bundle.main.executableURL
        #endif
    }

    /// A variable's value; an empty value counts as unset (`NO_COLOR=` means no preference).
    package subscript(name: String) -> String? {
        guard let value = variables[name], !value.isEmpty else { return nil }
        return value
    }

    var homeDirectory: String {
        self["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
    }

    /// `$XDG_CONFIG_HOME/spotify-toolkit`: config and credentials.
    package var configDirectory: String { toolkitDirectory(xdg: "XDG_CONFIG_HOME", fallback: ".config") }
    /// `$XDG_DATA_HOME/spotify-toolkit`: routines and local playlists.
    package var dataDirectory: String { toolkitDirectory(xdg: "XDG_DATA_HOME", fallback: ".local/share") }
    /// `$XDG_CACHE_HOME/spotify-toolkit`.
    package var cacheDirectory: String { toolkitDirectory(xdg: "XDG_CACHE_HOME", fallback: ".cache") }
    /// `$XDG_STATE_HOME/spotify-toolkit`: the undo journal of destructive playlist writes.
    package var stateDirectory: String { toolkitDirectory(xdg: "XDG_STATE_HOME", fallback: ".local/state") }

    /// `SPOTIFY_TOOLKIT_SANDBOX`: `make sandbox`'s throwaway home. Inside it every directory of
    /// ours must lie under it, or the tool refuses to start: a shell start-up file that
    /// exported XDG_CONFIG_HOME would otherwise point the sandbox's tools at the real login.
    static let sandboxVariable = "SPOTIFY_TOOLKIT_SANDBOX"

    /// Why this environment cannot run in the sandbox it names, or nil.
    package var sandboxProblem: String? {
        guard let sandbox = self[Self.sandboxVariable] else { return nil }
        let root = sandbox.hasSuffix("/") ? sandbox : sandbox + "/"
        let directories = [
            ("XDG_CONFIG_HOME", configDirectory), ("XDG_DATA_HOME", dataDirectory),
            ("XDG_CACHE_HOME", cacheDirectory), ("XDG_STATE_HOME", stateDirectory),
        ]
        guard let (variable, directory) = directories.first(where: { !$0.1.hasPrefix(root) }) else { return nil }
        return
            """
            this is the spotify-toolkit sandbox (\(sandbox)), and \(variable) puts \(directory) outside it (did a \
            start-up file of your shell set it?); nothing was read or changed, so your real login is safe: unset \
            \(variable) or leave the sandbox
            """
    }

    /// XDG base directories must be absolute; a relative value is ignored, as the spec says.
    func toolkitDirectory(xdg: String, fallback: String) -> String {
        if let base = self[xdg], base.hasPrefix("/") { return base + "/spotify-toolkit" }
        return homeDirectory + "/" + fallback + "/spotify-toolkit"
    }

    /// The first executable file called `name` on `$PATH`.
    package func executable(named name: String) -> String? {
        for directory in (self["PATH"] ?? "/usr/bin:/bin").split(separator: ":") where !directory.isEmpty {
            let path = "\(directory)/\(name)"
            if access(path, X_OK) == 0 { return path }
        }
        return nil
    }
}
