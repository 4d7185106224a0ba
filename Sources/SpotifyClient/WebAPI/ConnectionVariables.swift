import HTTPClient

/// The environment variables the connections to Spotify read, by curl's and OpenSSL's names
/// (HTTPClient's `CertificateTrust`), for the tools' help: the tools reach the HTTP layer only
/// through this client.
package enum ConnectionVariables {
    /// A CA bundle to trust instead of the system's.
    package static let caFile = CertificateTrust.fileVariable
    /// A directory of CA certificates by subject hash.
    package static let caDirectory = CertificateTrust.directoryVariable
    /// curl's name for the CA bundle; when set, the other two are not read.
    package static let curlCABundle = CertificateTrust.bundleVariable
}
