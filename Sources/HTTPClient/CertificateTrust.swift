import ToolkitCore

/// Which certificate authorities a TLS connection trusts, as curl and OpenSSL users set them: on
/// Linux `CURL_CA_BUNDLE` (a CA bundle file; when set, the other two are not read, as in curl),
/// else `SSL_CERT_FILE` (a bundle file) and `SSL_CERT_DIR` (a directory of hashed certificates,
/// `openssl rehash`). Unset, libcurl's own defaults apply (Debian: the system bundle). On macOS
/// URLSession trusts the system's store (the keychains) and these are not read.
package struct CertificateTrust: Sendable, Equatable {
    /// A path and the variable that named it, so a failure can say which setting to change.
    package struct Setting: Sendable, Equatable {
        package var variable: String
        package var path: String
    }

    /// A CA bundle file (libcurl's CAINFO).
    package var file: Setting?
    /// A directory of hashed CA certificates (libcurl's CAPATH).
    package var directory: Setting?

    package init(file: Setting? = nil, directory: Setting? = nil) {
        self.file = file
        self.directory = directory
    }

    package static let bundleVariable = "CURL_CA_BUNDLE"
    package static let fileVariable = "SSL_CERT_FILE"
    package static let directoryVariable = "SSL_CERT_DIR"

    /// The settings in `environment`, by curl's rules (an empty value counts as unset).
    package init(environment: ToolEnvironment) {
        if let bundle = environment[Self.bundleVariable] {
            self.init(file: Setting(variable: Self.bundleVariable, path: bundle))
        } else {
            self.init(
                file: environment[Self.fileVariable].map { Setting(variable: Self.fileVariable, path: $0) },
                directory: environment[Self.directoryVariable].map {
                    Setting(variable: Self.directoryVariable, path: $0)
                })
        }
    }

    /// "SSL_CERT_FILE=/etc/corp.pem", or both settings in force, for a message; nil when none is.
    var inForce: String? {
        let named = [file, directory].compactMap { $0.map { "\($0.variable)=\($0.path)" } }
        return named.isEmpty ? nil : named.joined(separator: " and ")
    }
}

/// Why a TLS connection could not be made. Never worth trying again at once: the same
/// certificate fails the same way. `detail` is the TLS library's words; `fix` the setting to change.
package struct TLSFailure: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// The certificate chain does not lead to a trusted CA (or has expired).
        case untrusted
        /// The certificate is not for the host asked for.
        case wrongHost
        /// The CA certificates set to be trusted could not be read.
        case unreadableCA
        /// The handshake itself failed: no TLS in common, or not TLS at all.
        case handshake
    }

    package var kind: Kind
    var detail: String
    package var fix: String

    /// What failed, in a few words.
    var what: String {
        switch kind {
        case .untrusted: "certificate not trusted"
        case .wrongHost: "certificate not for this host"
        case .unreadableCA: "CA certificates could not be read"
        case .handshake: "TLS handshake failed"
        }
    }

    /// The fix for a certificate out of its dates, on every platform.
    static let clockFix =
        "check this machine's date and time; if they are right, the server's certificate is out of date"
    /// The fix for a failed handshake, on every platform.
    static let handshakeFix =
        "check that SPOTIFY_API_BASE and SPOTIFY_ACCOUNTS_BASE name https servers, and the proxy settings"

    /// The fix for a certificate whose chain does not verify, on Linux (libcurl and OpenSSL):
    /// the variable to set, or the one in force that does not hold the CA.
    static func untrustedFix(_ trust: CertificateTrust, detail: String) -> String {
        if detail.contains("expired") || detail.contains("not yet valid") {
            return clockFix
        }
        if let inForce = trust.inForce {
            return "\(inForce) holds no CA that signed it; point it at a bundle that does"
        }
        return
            """
            set \(CertificateTrust.fileVariable) to a CA bundle that holds your CA (or \
            \(CertificateTrust.directoryVariable) to a directory of hashed certificates)
            """
    }
}
