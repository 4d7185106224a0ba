import Foundation

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

    /// A variable's value; an empty value counts as unset (`NO_COLOR=` means no preference).
    package subscript(name: String) -> String? {
        guard let value = variables[name], !value.isEmpty else { return nil }
        return value
    }

    package var homeDirectory: String {
        self["HOME"] ?? NSHomeDirectory()
    }

    /// `$XDG_CONFIG_HOME/spotify-toolkit`: config and credentials.
    package var configDirectory: String { toolkitDirectory(xdg: "XDG_CONFIG_HOME", fallback: ".config") }
    /// `$XDG_DATA_HOME/spotify-toolkit`: routines and local playlists.
    package var dataDirectory: String { toolkitDirectory(xdg: "XDG_DATA_HOME", fallback: ".local/share") }
    /// `$XDG_CACHE_HOME/spotify-toolkit`.
    package var cacheDirectory: String { toolkitDirectory(xdg: "XDG_CACHE_HOME", fallback: ".cache") }
    /// `$XDG_STATE_HOME/spotify-toolkit`: the undo journal of destructive playlist writes.
    package var stateDirectory: String { toolkitDirectory(xdg: "XDG_STATE_HOME", fallback: ".local/state") }

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
