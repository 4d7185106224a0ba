import SpotifyClient
import ToolkitCLI

/// The settings every tool that talks to Spotify takes from the environment for its
/// connections: the CA settings curl and OpenSSL users already have (`CertificateTrust`), and
/// curl's proxy variables.
enum NetworkEnvironment {
    static let all = [
        EnvironmentSpec(
            ConnectionVariables.caFile,
            """
            A CA bundle (PEM) to trust instead of the system's, e.g. a company's TLS-inspecting proxy's CA added to a \
            copy of /etc/ssl/certs/ca-certificates.crt (Linux; on macOS add the CA to the keychain instead).
            """
        ),
        EnvironmentSpec(
            ConnectionVariables.caDirectory,
            "A directory of CA certificates by subject hash (openssl rehash) to trust as well (Linux)."),
        EnvironmentSpec(
            ConnectionVariables.curlCABundle,
            "As SSL_CERT_FILE, as curl reads it; when set, SSL_CERT_FILE and SSL_CERT_DIR are not read (Linux)."),
        EnvironmentSpec(
            "https_proxy",
            """
            A proxy for https requests (also HTTPS_PROXY, ALL_PROXY; NO_PROXY lists hosts to reach directly), by \
            curl's rules; on macOS the system's proxy settings apply.
            """
        ),
    ]
}
