#if os(Linux)
import CCurl

/// libcurl.so.4, loaded at the first request rather than linked (Sources/CCurl/include/CCurl.h
/// says why, and what it assumes of libcurl's ABI).
enum CurlLibrary {
    /// Loads libcurl, once: nil when it is ready, otherwise why not and what to install.
    static func load() -> String? { tk_curl_load().map { String(cString: $0) } }

    /// What `load` would say of `library` (nil: it has every function used). For tests: the
    /// library stays loaded, and libcurl is not started.
    static func probe(_ library: String) -> String? { tk_curl_probe(library).map { String(cString: $0) } }
}
#endif
