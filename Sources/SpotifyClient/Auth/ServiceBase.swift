import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where tokens may go. The access token, and at a refresh the refresh token, go to
/// `SPOTIFY_API_BASE` and `SPOTIFY_ACCOUNTS_BASE`: over http they would cross the network in
/// clear, so http is refused except for a loopback literal (127.0.0.0/8, ::1: fake-spotify, a
/// local proxy), as Spotify refuses http redirect URIs. And stored tokens belong to the services
/// they came from: a login made against fake-spotify is never sent to Spotify, nor the reverse.
package enum ServiceBase {
    /// Exit 78 naming `variable` when `url` is http to anything but a loopback literal. No setting
    /// turns this off: `allowsInsecure` is for comparing bases, never for sending to one.
    static func refuseCleartext(_ url: URL, variable: String, allowsInsecure: Bool = false) throws(ToolError) {
        guard url.scheme?.lowercased() == "http", !allowsInsecure, let host = url.host,
            !LoopbackAddress.isLiteral(host)
        else { return }
        throw ToolError.config(
            """
            \(variable) is http://\(host): the login's tokens would cross the network in clear; use https (http is \
            allowed only for a loopback address such as 127.0.0.1 or [::1])
            """
        )
    }

    /// The base as stored with a login and compared at use: no trailing slash.
    package static func normalized(_ base: String) -> String {
        var text = base
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
