import ToolkitCore

/// An HTTP/1.1 request as received by `LoopbackHTTPServer`.
package struct HTTPRequest: Sendable {
    /// The method as sent, e.g. "GET" (methods are case-sensitive).
    package var method: String
    /// The raw request target, e.g. "/callback?code=x&state=y".
    package var target: String
    /// The percent-decoded path without the query, e.g. "/callback" ("+" is not a space here).
    package var path: String
    /// The decoded query pairs, in order (empty when there is no query).
    package var query: [(name: String, value: String)]
    /// Header fields in the order received, names as sent.
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]
    /// The minor HTTP version: 1 for HTTP/1.1, 0 for HTTP/1.0.
    var minorVersion = 1

    /// Builds a request from its raw target; `path` and `query` are derived from `target`.
    package init(method: String, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.target = target
        (self.path, self.query) = HTTPRequest.split(target: target)
        self.headers = headers
        self.body = body
    }

    /// The value of the first header called `name`, compared case-insensitively (ASCII).
    package func header(_ name: String) -> String? {
        let wanted = HTTPRequest.lowercasedASCII(name)
        return headers.first { HTTPRequest.lowercasedASCII($0.name) == wanted }?.value
    }

    /// Whether the client lets the connection stay open after the response (RFC 9112 §9.3):
    /// HTTP/1.1 unless it sent `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`.
    var allowsPersistentConnection: Bool {
        let options = headers.filter { HTTPRequest.lowercasedASCII($0.name) == "connection" }
            .flatMap { HTTPRequest.lowercasedASCII($0.value).split(separator: ",") }
            .map { $0.trimmingSpaces() }
        if options.contains("close") { return false }
        return minorVersion >= 1 || options.contains("keep-alive")
    }

    /// The body decoded as `application/x-www-form-urlencoded` (regardless of Content-Type).
    package func formFields() -> [(name: String, value: String)] {
        URLForm.decode(String(decoding: body, as: UTF8.self))
    }

    /// The first query value called `name`, or nil.
    package func queryValue(_ name: String) -> String? {
        URLForm.value(name, in: query)
    }

    /// The body as UTF-8 text (invalid sequences become U+FFFD).
    package var bodyText: String { String(decoding: body, as: UTF8.self) }

    static func split(target: String) -> (path: String, query: [(name: String, value: String)]) {
        var rest = Substring(target)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        // absolute-form ("http://host:port/path?q"): keep only the path and query.
        if !rest.hasPrefix("/"), let scheme = rest.range(of: "://") {
            let afterAuthority = rest[scheme.upperBound...]
            if let slash = afterAuthority.firstIndex(where: { $0 == "/" || $0 == "?" }) {
                rest = afterAuthority[slash...]
            } else {
                rest = ""
            }
            if !rest.hasPrefix("/") { rest = "/" + rest }
        }
        let rawPath: Substring
        var query: [(name: String, value: String)] = []
        if let q = rest.firstIndex(of: "?") {
            rawPath = rest[..<q]
            query = URLForm.decode(String(rest[rest.index(after: q)...]))
        } else {
            rawPath = rest
        }
        return (URLForm.percentDecode(String(rawPath)), query)
    }

    static func lowercasedASCII(_ s: String) -> String {
        String(decoding: s.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}

/// An HTTP response produced by a `LoopbackHTTPServer` handler.
///
/// The server adds `Content-Length` and `Connection` itself (any such headers set here are
/// replaced); 1xx, 204 and 304 responses are sent without a body.
package struct HTTPResponse: Sendable {
    package var status: Int
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]
    /// A broken answer on purpose (fake-spotify's fault injection); nil for every normal response.
    package var transportFault: TransportFault?

    /// How a response can fail on the wire.
    package enum TransportFault: Sendable, Equatable {
        /// Reset the connection (RST) right after the status line, before any header. (Not
        /// before it: on a kept-alive connection a client takes a reset before the first byte
        /// for a connection the server had already dropped, and quietly sends the request again.)
        case reset
        /// Close the connection without sending a byte of the answer: the request was carried
        /// out, and its answer is lost. (On a kept-alive connection a client may send the request
        /// again by itself, as described above: this is how a write can land twice.)
        case dropAnswer
        /// Send the head with the full Content-Length, then only this many body bytes, then close.
        case truncateBody(keeping: Int)
    }

    package init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers.map { (name: $0.0, value: $0.1) }
        self.body = body
    }

    package static func text(_ s: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8")
        -> HTTPResponse
    {
        HTTPResponse(status: status, headers: [("Content-Type", contentType)], body: Array(s.utf8))
    }

    package static func html(_ s: String, status: Int = 200) -> HTTPResponse {
        text(s, status: status, contentType: "text/html; charset=utf-8")
    }

    package static func json(_ bodyText: String, status: Int = 200) -> HTTPResponse {
        text(bodyText, status: status, contentType: "application/json; charset=utf-8")
    }

    package static func redirect(to location: String, status: Int = 302) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Location", location)])
    }

    /// The first header called `name`, compared case-insensitively.
    package func header(_ name: String) -> String? {
        let wanted = HTTPRequest.lowercasedASCII(name)
        return headers.first { HTTPRequest.lowercasedASCII($0.name) == wanted }?.value
    }

    /// The standard reason phrase for `status` ("Unknown" for codes not listed).
    package static func reasonPhrase(for status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Unknown"
        }
    }

    /// Whether responses with this status never carry a body.
    static func forbidsBody(_ status: Int) -> Bool {
        (100..<200).contains(status) || status == 204 || status == 304
    }

    /// `HTTP/1.1 200 OK` and its CRLF: the first line of the answer.
    var statusLine: String { "HTTP/1.1 \(status) \(HTTPResponse.reasonPhrase(for: status))\r\n" }

    /// The bytes on the wire: status line, headers (plus Content-Length and Connection), body.
    /// With `omitBody` (a response to HEAD) Content-Length still reflects the body. `keepAlive`
    /// says the server will read another request on this connection; otherwise it closes.
    package func serialized(omitBody: Bool = false, keepAlive: Bool = false) -> [UInt8] {
        let noBody = HTTPResponse.forbidsBody(status)
        var head = statusLine
        for (name, value) in headers {
            switch HTTPRequest.lowercasedASCII(name) {
            case "content-length", "connection", "transfer-encoding": continue
            default: break
            }
            // Never let a CR or LF in a value split the header block.
            let clean = String(value.unicodeScalars.map { $0 == "\r" || $0 == "\n" ? " " : Character($0) })
            head += "\(name): \(clean)\r\n"
        }
        if !noBody { head += "Content-Length: \(body.count)\r\n" }
        head += keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n"
        var out = Array(head.utf8)
        if !noBody && !omitBody {
            if case .truncateBody(let keeping) = transportFault {
                out += body.prefix(max(0, min(keeping, body.count - 1)))
            } else {
                out += body
            }
        }
        return out
    }
}

/// Why a request could not be parsed, with the status the server answers.
struct HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 400, 411, 413, 431 or 505.
    var status: Int
    var message: String
    init(status: Int, _ message: String) {
        self.status = status
        self.message = message
    }
    var description: String { "\(status): \(message)" }
}

/// Parses HTTP/1.x requests from bytes. Pure: no I/O.
enum HTTPRequestParser {
    /// A parsed request head (everything before the body).
    struct Head {
        var request: HTTPRequest
        /// Bytes taken by the request line, headers and the blank line.
        var headLength: Int
        var contentLength: Int
    }

    /// Parses one complete request (head and Content-Length body) from the start of `buffer`.
    ///
    /// Returns nil when more bytes are needed; `consumed` counts the bytes of this request.
    /// Throws `HTTPParseError` for a malformed request (400), a head over `maxHeaderBytes` (431),
    /// a `Transfer-Encoding` body (411: only Content-Length bodies are supported), a body over
    /// `maxBodyBytes` (413, thrown as soon as Content-Length is seen) or a version other than 1.x (505).
    static func parse(_ buffer: [UInt8], maxHeaderBytes: Int = 64 << 10, maxBodyBytes: Int = 8 << 20) throws
        -> (request: HTTPRequest, consumed: Int)?
    {
        guard var head = try parseHead(buffer, maxHeaderBytes: maxHeaderBytes, maxBodyBytes: maxBodyBytes) else {
            return nil
        }
        let end = head.headLength + head.contentLength
        guard buffer.count >= end else { return nil }
        head.request.body = Array(buffer[head.headLength..<end])
        return (head.request, end)
    }

    /// Parses the head only; nil when the blank line ending it has not arrived yet.
    static func parseHead(_ buffer: [UInt8], maxHeaderBytes: Int, maxBodyBytes: Int) throws -> Head? {
        guard let (lines, headLength) = try headLines(buffer, maxHeaderBytes: maxHeaderBytes) else { return nil }
        let (method, target, minorVersion) = try requestLine(lines[0])
        let headers = try headerFields(lines.dropFirst())
        var request = HTTPRequest(method: method, target: target, headers: headers)
        request.minorVersion = minorVersion
        if request.header("Transfer-Encoding") != nil {
            throw HTTPParseError(status: 411, "Transfer-Encoding bodies are not supported; send Content-Length")
        }
        let contentLength = try contentLength(headers)
        if contentLength > maxBodyBytes {
            throw HTTPParseError(
                status: 413, "request body of \(contentLength) bytes exceeds the \(maxBodyBytes)-byte limit")
        }
        return Head(request: request, headLength: headLength, contentLength: contentLength)
    }

    /// The head's lines (LF, with an optional preceding CR) up to the first empty line that follows
    /// the request line, and the head's length with that line; empty lines before the request line
    /// are ignored (RFC 9112 §2.2). nil when the empty line has not arrived yet.
    static func headLines(_ buffer: [UInt8], maxHeaderBytes: Int) throws -> ([ArraySlice<UInt8>], Int)? {
        let lf = UInt8(ascii: "\n")
        let cr = UInt8(ascii: "\r")
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = 0
        var headEnd: Int?
        var i = 0
        let limit = min(buffer.count, maxHeaderBytes + 1)
        while i < limit {
            if buffer[i] == lf {
                var lineEnd = i
                if lineEnd > lineStart && buffer[lineEnd - 1] == cr { lineEnd -= 1 }
                let line = buffer[lineStart..<lineEnd]
                lineStart = i + 1
                if line.isEmpty {
                    if !lines.isEmpty {
                        headEnd = i + 1
                        break
                    }
                } else {
                    lines.append(line)
                }
            }
            i += 1
        }
        guard let headLength = headEnd else {
            if buffer.count > maxHeaderBytes {
                throw HTTPParseError(status: 431, "request head larger than \(maxHeaderBytes) bytes")
            }
            return nil
        }
        if headLength > maxHeaderBytes {
            throw HTTPParseError(status: 431, "request head larger than \(maxHeaderBytes) bytes")
        }
        return (lines, headLength)
    }

    /// Request line: method SP request-target SP HTTP-version; the version's minor number.
    static func requestLine(_ line: ArraySlice<UInt8>) throws -> (method: String, target: String, minorVersion: Int) {
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw HTTPParseError(status: 400, "malformed request line") }
        let methodBytes = parts[0]
        let targetBytes = parts[1]
        let versionBytes = parts[2]
        guard !methodBytes.isEmpty, methodBytes.allSatisfy(isTokenByte) else {
            throw HTTPParseError(status: 400, "malformed method")
        }
        guard !targetBytes.isEmpty, targetBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw HTTPParseError(status: 400, "malformed request target")
        }
        let version = String(decoding: versionBytes, as: UTF8.self)
        guard version.utf8.count == 8, version.hasPrefix("HTTP/"),
            let major = version.utf8.dropFirst(5).first, let dot = version.utf8.dropFirst(6).first,
            let minor = version.utf8.dropFirst(7).first,
            (0x30...0x39).contains(major), dot == UInt8(ascii: "."), (0x30...0x39).contains(minor)
        else { throw HTTPParseError(status: 400, "malformed HTTP version") }
        guard major == UInt8(ascii: "1") else {
            throw HTTPParseError(status: 505, "unsupported HTTP version \(version)")
        }
        let target = String(decoding: targetBytes, as: UTF8.self)
        guard target.hasPrefix("/") || target == "*" || target.contains("://") else {
            throw HTTPParseError(status: 400, "malformed request target")
        }
        return (String(decoding: methodBytes, as: UTF8.self), target, Int(minor - UInt8(ascii: "0")))
    }

    /// Header fields: name ":" OWS value OWS.
    static func headerFields(_ lines: ArraySlice<ArraySlice<UInt8>>) throws -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let first = line.first, first != UInt8(ascii: " "), first != UInt8(ascii: "\t") else {
                throw HTTPParseError(status: 400, "obsolete header line folding")
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                throw HTTPParseError(status: 400, "malformed header line")
            }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
                throw HTTPParseError(status: 400, "malformed header name")
            }
            var value = line[line.index(after: colon)...]
            while let f = value.first, f == 0x20 || f == 0x09 { value = value.dropFirst() }
            while let l = value.last, l == 0x20 || l == 0x09 { value = value.dropLast() }
            guard value.allSatisfy({ $0 == 0x09 || $0 >= 0x20 && $0 != 0x7F }) else {
                throw HTTPParseError(status: 400, "control character in header value")
            }
            headers.append((name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self)))
        }
        return headers
    }

    /// The Content-Length the headers give (0 without one). Repeated identical values (also
    /// "5, 5") are allowed; anything else is an error (RFC 9110 §8.6).
    static func contentLength(_ headers: [(name: String, value: String)]) throws -> Int {
        let lengths = headers.filter { HTTPRequest.lowercasedASCII($0.name) == "content-length" }.map(\.value)
        guard let firstLength = lengths.first else { return 0 }
        let values = lengths.flatMap { $0.split(separator: ",").map { $0.trimmingSpaces() } }
        guard values.allSatisfy({ $0 == values[0] }),
            let v = values.first, !v.isEmpty, v.utf8.count <= 18, v.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let n = Int(v)
        else { throw HTTPParseError(status: 400, "malformed Content-Length: \(firstLength)") }
        return n
    }

    /// tchar from RFC 9110 §5.6.2.
    static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(b)
        }
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        var s = self[...]
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return String(s)
    }
}
