/// Spotify's rules for redirect URIs at the authorize step.
enum RedirectURIRules {
    /// A URI split into the parts the rules look at. `rest` is everything from the path on.
    struct Parts: Equatable {
        var scheme: String
        /// Without brackets for IPv6 ("::1").
        var host: String
        var port: String?
        var rest: String
    }

    static func parse(_ uri: String) -> Parts? {
        guard let schemeEnd = uri.range(of: "://") else { return nil }
        let scheme = String(uri[..<schemeEnd.lowerBound])
        guard !scheme.isEmpty else { return nil }
        let afterScheme = uri[schemeEnd.upperBound...]
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let rest = String(afterScheme.dropFirst(authority.count))
        var host: Substring
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { port = after.dropFirst() } else if !after.isEmpty { return nil }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        return Parts(scheme: scheme, host: String(host), port: port.map(String.init), rest: rest)
    }

    /// 127.x.y.z (dotted quad) or ::1. Not "localhost".
    static func isLoopbackLiteral(_ host: String) -> Bool {
        if host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4,
            octets.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCIIDigit) && Int($0)! <= 255 })
        else { return false }
        return octets[0] == "127"
    }

    /// http to anything but a loopback IP literal (localhost included): refused since 2025-11-27.
    static func isInsecure(_ uri: String) -> Bool {
        guard let parts = parse(uri), parts.scheme.lowercased() == "http" else { return false }
        return !isLoopbackLiteral(parts.host)
    }

    /// Whether `uri` matches one of `registered`: exactly, or, for a loopback http URI registered
    /// without a port, with any port (RFC 8252 §7.3).
    static func isRegistered(_ uri: String, in registered: [String]) -> Bool {
        registered.contains { candidate in
            if candidate == uri { return true }
            guard let want = parse(candidate), want.port == nil, want.scheme == "http", isLoopbackLiteral(want.host),
                let got = parse(uri), got.scheme == want.scheme, got.host == want.host, got.rest == want.rest
            else { return false }
            if let port = got.port { return !port.isEmpty && port.allSatisfy(\.isASCIIDigit) }
            return true
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
