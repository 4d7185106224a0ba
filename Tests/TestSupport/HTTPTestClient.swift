import Foundation
import ToolkitCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP answer.
package struct Reply: Sendable {
    package var status: Int
    package var data: Data
    package var headers: [String: String]

    package var text: String { String(decoding: data, as: UTF8.self) }
    package func json() throws -> JSONValue { try JSONValue.parse(text) }
    package func header(_ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }
    /// The query of the `Location` header, decoded.
    package var locationQuery: [(name: String, value: String)] {
        guard let location = header("Location"), let q = location.firstIndex(of: "?") else { return [] }
        return URLForm.decode(String(location[location.index(after: q)...]))
    }
    package func locationValue(_ name: String) -> String? { URLForm.value(name, in: locationQuery) }
}

/// The tests' own HTTP client, for loopback servers (fake-spotify, LoopbackHTTPServer): never a
/// proxy, never a redirect followed (a 302 and its `Location` reach the test), every request timed out.
package enum HTTPTestClient {
    final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }

    static let session: URLSession = {
        let config = URLSessionConfiguration.ephemeral
        config.connectionProxyDictionary = [:]
        config.timeoutIntervalForRequest = 10
        config.timeoutIntervalForResource = 20
        config.httpMaximumConnectionsPerHost = 32
        return URLSession(configuration: config, delegate: NoRedirects(), delegateQueue: nil)
    }()

    package static func fetch(
        _ url: URL, method: String = "GET", body: Data? = nil, headers: [String: String] = [:],
        timeout: TimeInterval = 10
    ) async throws -> Reply {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        request.httpBody = body
        for (k, v) in headers { request.setValue(v, forHTTPHeaderField: k) }
        return try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else if let http = response as? HTTPURLResponse {
                    var headers: [String: String] = [:]
                    for (key, value) in http.allHeaderFields {
                        if let key = key as? String, let value = value as? String { headers[key] = value }
                    }
                    continuation.resume(
                        returning: Reply(status: http.statusCode, data: data ?? Data(), headers: headers))
                } else {
                    continuation.resume(throwing: URLError(.badServerResponse))
                }
            }.resume()
        }
    }

    /// A form POST to a fake's test control (`/_fake/...`), as JSON (or the text, if it is not JSON).
    package static func control(_ method: String, _ url: URL, form: [(String, String)] = []) async throws -> JSONValue {
        let body = form.isEmpty ? nil : Data(URLForm.encode(form).utf8)
        let headers = form.isEmpty ? [:] : ["Content-Type": "application/x-www-form-urlencoded"]
        let reply = try await fetch(url, method: method, body: body, headers: headers)
        return (try? reply.json()) ?? .string(reply.text)
    }
}
