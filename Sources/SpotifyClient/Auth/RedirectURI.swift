import ToolkitCore

/// A loopback redirect URI, the only kind a command-line app can listen on and Spotify accepts
/// over http: `http://127.0.0.1:PORT/path` or `http://[::1]:PORT/path`.
package struct LoopbackRedirect: Sendable, Equatable {
    /// "127.0.0.1" or "::1".
    package var host: String
    /// nil when the URI has none: Spotify accepts any port for a loopback URI registered without
    /// one, so login picks a free port.
    package var port: UInt16?
    package var path: String

    package static let defaultURI = "http://127.0.0.1:8888/callback"

    package init(host: String, port: UInt16?, path: String) {
        self.host = host
        self.port = port
        self.path = path
    }

    package func uri(port: UInt16) -> String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "http://\(hostPart):\(port)\(path)"
    }

    package static func parse(_ text: String) throws -> LoopbackRedirect {
        guard text.hasPrefix("http://") else {
            throw ToolError.config(
                """
                redirect URI \(text) cannot be used: a command-line login listens on http://127.0.0.1:PORT/... (or \
                http://[::1]:PORT/...); register such a URI in your app's settings
                """
            )
        }
        let rest = text.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var path = String(rest.dropFirst(authority.count))
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = String(path[..<cut]) }
        if path.isEmpty { path = "/" }

        let host: String
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw invalid(text) }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { throw invalid(text) }
        } else {
            let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = String(parts[0])
            if parts.count == 2 { portText = parts[1] }
        }
        if host.lowercased() == "localhost" {
            throw ToolError.config(
                """
                Spotify refuses redirect URIs with 'localhost' (since November 2025 only loopback IP literals may use \
                http); use \(text.replacingOccurrences(of: "localhost", with: "127.0.0.1")) and register that exact \
                URI in your app's settings
                """
            )
        }
        guard host == "127.0.0.1" || host == "::1" else {
            throw ToolError.config(
                """
                redirect URI \(text) is not a loopback address: Spotify accepts http only for http://127.0.0.1 and \
                http://[::1], and login listens there
                """
            )
        }
        var port: UInt16?
        if let portText {
            guard let value = UInt16(portText), value > 0 else { throw invalid(text) }
            port = value
        }
        return LoopbackRedirect(host: host, port: port, path: path)
    }

    static func invalid(_ text: String) -> ToolError {
        ToolError.config("redirect URI \(text) is not a valid URL like \(defaultURI)")
    }
}

/// What a request to the redirect URI says, for the listener and for paste mode alike.
enum AuthorizationCallback: Sendable, Equatable {
    /// Not the redirect (a favicon, a probe): ignore it and keep waiting.
    case unrelated
    case code(String)
    case denied(String)
    case stateMismatch

    static func interpret(_ query: [(name: String, value: String)], expectedState: String)
        -> AuthorizationCallback
    {
        let code = URLForm.value("code", in: query)
        let error = URLForm.value("error", in: query)
        guard code != nil || error != nil else { return .unrelated }
        guard URLForm.value("state", in: query) == expectedState else { return .stateMismatch }
        if let error { return .denied(error) }
        return .code(code!)
    }
}
