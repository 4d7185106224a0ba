/// Loopback addresses, written as IP literals: the one place a token may go over plain http
/// (`ServiceBase`), and the one kind of proxy a plain http request may go through
/// (`HTTPTransport.ProxyUse`). A name such as `localhost` is not one: what it resolves to is not
/// ours to vouch for.
package enum LoopbackAddress {
    /// Whether `host` is a loopback IP literal: 127.0.0.0/8, or ::1 (bracketed or not).
    package static func isLiteral(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare == "::1" { return true }
        let parts = bare.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127"
            && parts.allSatisfy { part in
                !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && UInt8(part) != nil
            }
    }
}
