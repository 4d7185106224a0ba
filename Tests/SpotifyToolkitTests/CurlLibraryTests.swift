import Foundation
import Testing

@testable import HTTPClient
@testable import ToolkitCore

#if os(Linux)
import CCurl

extension CurlLibrary {
    /// Whether this build compared CCurl.h's numbers with <curl/curl.h> (CCurlABICheck.c): only
    /// where that header was installed.
    static var abiWasChecked: Bool { tk_curl_abi_checked() != 0 }
}
#endif

/// On Linux the toolkit declares the libcurl it uses (Sources/CCurl/include/CCurl.h) and loads
/// libcurl.so.4 at the first request: its numbers are held to <curl/curl.h>'s wherever that is
/// installed, and a missing or too old libcurl is one clear message, exit 69.
@Suite(.tags(.medium)) struct CurlLibraryTests {
    #if os(Linux)
    /// Where clang finds <curl/curl.h> on Linux, if it is installed (CI installs libcurl4-openssl-dev).
    static var installedCurlHeader: String? {
        let multiarch = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/include")) ?? [])
            .filter { $0.hasSuffix("-linux-gnu") }.map { "/usr/include/\($0)" }
        return (["/usr/local/include", "/usr/include"] + multiarch).map { $0 + "/curl/curl.h" }
            .first { FileManager.default.fileExists(atPath: $0) }
    }

    /// The comparison itself is compile time (CCurlABICheck.c: a differing number stops the
    /// build); this fails if it was skipped where the header is there to compare with.
    @Test func ourCurlNumbersWereComparedWithCurlsHeaderWhereverItIsInstalled() {
        if let header = Self.installedCurlHeader {
            #expect(CurlLibrary.abiWasChecked, "\(header) is installed, but CCurlABICheck.c compared nothing")
        } else {
            #expect(!CurlLibrary.abiWasChecked)
        }
    }

    @Test func theSystemsLibcurlHasEveryFunctionUsed() {
        #expect(CurlLibrary.probe("libcurl.so.4") == nil)
    }

    @Test func aMissingOrTooOldLibcurlSaysWhatToInstall() {
        #expect(
            CurlLibrary.probe("libcurl.so.999")
                == "libcurl.so.999 not found: install libcurl4 (Debian, Ubuntu) or libcurl (Fedora)")
        // A library without curl's functions stands for one too old to have them.
        #expect(
            CurlLibrary.probe("libc.so.6")
                == "libc.so.6 has no curl_global_init (libcurl 7.68 or later is needed): install libcurl4 (Debian, Ubuntu) or libcurl (Fedora)"
        )
    }
    #endif

    @Test func aMissingClientIsExit69AndNothingWasSent() {
        let failure = HTTPFailure.clientMissing(
            reason: "libcurl.so.4 not found: install libcurl4 (Debian, Ubuntu) or libcurl (Fedora)")
        #expect(
            failure.toolError
                == .unavailable("libcurl.so.4 not found: install libcurl4 (Debian, Ubuntu) or libcurl (Fedora)"))
        #expect(failure.toolError.exitCode.rawValue == 69)
        #expect(!failure.isTransient, "not retried: it would fail the same way")
        #expect(failure.requestOutcome == .notCarriedOut)
        #expect(HTTPFailure.unreachable(host: "h", reason: "timed out after 1 s").requestOutcome == .timedOut)
        #expect(HTTPFailure.unreachable(host: "h", reason: "reset").requestOutcome == .unknown)
    }
}
