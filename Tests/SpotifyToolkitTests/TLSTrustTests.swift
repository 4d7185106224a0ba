import Foundation
import Testing

@testable import HTTPClient
@testable import ToolkitCore

#if os(Linux)
import CCurl
#endif

/// Issue 27, item 1: the CA settings curl and OpenSSL users already have, and certificate
/// failures that say what failed and what fixes it, never retried. (The real handshakes, against
/// nginx with a CA made for the test, are TLSFrontTests'.)
@Suite(.tags(.medium)) struct TLSTrustTests {
    @Test func theCASettingsFollowCurlsRules() {
        #expect(CertificateTrust(environment: ToolEnvironment([:])) == CertificateTrust())
        #expect(CertificateTrust(environment: ToolEnvironment(["SSL_CERT_FILE": ""])) == CertificateTrust())
        let both = CertificateTrust(
            environment: ToolEnvironment(["SSL_CERT_FILE": "/c/a.pem", "SSL_CERT_DIR": "/c/d"]))
        #expect(both.file == .init(variable: "SSL_CERT_FILE", path: "/c/a.pem"))
        #expect(both.directory == .init(variable: "SSL_CERT_DIR", path: "/c/d"))
        #expect(both.inForce == "SSL_CERT_FILE=/c/a.pem and SSL_CERT_DIR=/c/d")
        // CURL_CA_BUNDLE, when set, is the only one read, as the curl program does.
        let bundle = CertificateTrust(
            environment: ToolEnvironment([
                "CURL_CA_BUNDLE": "/b.pem", "SSL_CERT_FILE": "/c/a.pem", "SSL_CERT_DIR": "/d",
            ]))
        #expect(bundle == CertificateTrust(file: .init(variable: "CURL_CA_BUNDLE", path: "/b.pem")))
    }

    @Test func aTLSFailureIsExit69NotRetriedAndNothingWasSent() {
        let failure = HTTPFailure.tls(
            host: "api.example",
            failure: TLSFailure(
                kind: .untrusted, detail: "unable to get local issuer certificate",
                fix: TLSFailure.untrustedFix(CertificateTrust(), detail: "unable to get local issuer certificate")))
        #expect(!failure.isTransient)
        #expect(failure.requestOutcome == .notCarriedOut)
        #expect(failure.toolError.exitCode == .unavailable)
        #expect(
            failure.toolError.message
                == "api.example: certificate not trusted (unable to get local issuer certificate); set SSL_CERT_FILE to a CA bundle that holds your CA (or SSL_CERT_DIR to a directory of hashed certificates)"
        )
    }

    #if os(Linux)
    @Test func libcurlsCertificateFailuresAreTLSFailuresNamingTheFix() throws {
        let none = CertificateTrust()
        let set = CertificateTrust(file: .init(variable: "SSL_CERT_FILE", path: "/tmp/wrong.pem"))
        let untrusted = try #require(
            CurlTransfer.tlsFailure(
                TK_CURLE_PEER_FAILED_VERIFICATION,
                message: "SSL certificate problem: self-signed certificate in certificate chain",
                trust: set))
        #expect(untrusted.kind == .untrusted)
        #expect(untrusted.detail == "self-signed certificate in certificate chain")
        #expect(
            untrusted.fix == "SSL_CERT_FILE=/tmp/wrong.pem holds no CA that signed it; point it at a bundle that does")
        let expired = try #require(
            CurlTransfer.tlsFailure(
                TK_CURLE_PEER_FAILED_VERIFICATION, message: "SSL certificate problem: certificate has expired",
                trust: none))
        #expect(expired.fix.hasPrefix("check this machine's date and time"))
        let wrongHost = try #require(
            CurlTransfer.tlsFailure(
                TK_CURLE_PEER_FAILED_VERIFICATION,
                message: "SSL: no alternative certificate subject name matches target host name 'api.test'", trust: none
            ))
        #expect(wrongHost.kind == .wrongHost)
        #expect(wrongHost.detail == "no alternative certificate subject name matches target host name 'api.test'")
        let unreadable = try #require(
            CurlTransfer.tlsFailure(
                TK_CURLE_SSL_CACERT_BADFILE, message: "error setting certificate file: /tmp/wrong.pem", trust: set))
        #expect(unreadable.kind == .unreadableCA)
        #expect(
            unreadable.fix == "SSL_CERT_FILE=/tmp/wrong.pem names no readable PEM certificates; point it at a CA bundle"
        )
        let notTLS = try #require(
            CurlTransfer.tlsFailure(
                TK_CURLE_SSL_CONNECT_ERROR, message: "error:0A00010B:SSL routines::wrong version number", trust: none))
        #expect(notTLS.kind == .handshake)
        // The network failing in the middle of a handshake is no TLS failure: tried again.
        #expect(
            CurlTransfer.tlsFailure(
                TK_CURLE_SSL_CONNECT_ERROR,
                message: "OpenSSL SSL_connect: Connection reset by peer in connection to x:443",
                trust: none) == nil)
        #expect(CurlTransfer.tlsFailure(TK_CURLE_GOT_NOTHING, message: "Empty reply from server", trust: none) == nil)
    }
    #endif
}
