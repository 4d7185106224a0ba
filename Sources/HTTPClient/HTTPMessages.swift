#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A request as `HTTPTransport` sends it: on Linux it becomes libcurl's options (`CurlTransfer`),
/// on macOS a `URLRequest`. The toolkit's own type, so that nothing shipped on Linux needs
/// FoundationNetworking (and the libcurl it links at every start) for four value types.
package struct HTTPClientRequest: Sendable {
    package var method: String
    package var url: URL
    /// One value per name; `setHeader` keeps names unique whatever their case.
    package private(set) var headers: [String: String] = [:]
    package var body: Data?

    package init(url: URL, method: String = "GET", headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.body = body
        for (name, value) in headers { setHeader(name, value) }
    }

    package func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Sets `name` to `value`, replacing any header of that name in any case; nil removes it.
    package mutating func setHeader(_ name: String, _ value: String?) {
        for key in headers.keys where key.caseInsensitiveCompare(name) == .orderedSame { headers[key] = nil }
        if let value { headers[name] = value }
    }
}

/// The status and headers of an answer, handed on before its body arrives (so a length over the
/// cap is refused before any of it is read).
struct HTTPResponseHead: Sendable, Equatable {
    var status: Int
    var headers: [String: String]

    /// The length of the body as it will be read, when the answer announced it (Content-Length)
    /// and is not compressed: a compressed one's Content-Length counts the bytes on the wire, and
    /// the size cap applies to the decoded body, as it arrives.
    var expectedLength: Int64? {
        let encoding = header("Content-Encoding")?.trimmingCharacters(in: .whitespaces).lowercased()
        guard encoding == nil || encoding == "identity" || encoding == "" else { return nil }
        return header("Content-Length").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }

    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// One HTTP exchange's outcome. Any 2xx is success; an empty body is never decoded.
package struct HTTPResult: Sendable {
    package var status: Int
    package var headers: [String: String]
    package var body: Data

    package var isSuccess: Bool { (200..<300).contains(status) }

    package func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}
