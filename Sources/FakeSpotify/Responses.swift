import Foundation
import LoopbackHTTP
import ToolkitCore

/// The response bodies fake-spotify serves verbatim, from `Fixtures/` in the module's bundle
/// (copies of the team's fixture files). Loaded once, on first use.
enum Fixtures {
    static let files: [String: [UInt8]] = {
        guard let folder = Bundle.module.url(forResource: "Fixtures", withExtension: nil),
            let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
        else { return [:] }
        var files: [String: [UInt8]] = [:]
        for name in names where name.hasSuffix(".json") {
            if let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) {
                files[name] = Array(data)
            }
        }
        return files
    }()

    /// The fixture `name` (e.g. "me.json") as a Web API JSON response.
    static func response(_ name: String, status: Int = 200, headers: [(String, String)] = []) -> HTTPResponse {
        guard let body = files[name] else {
            return WebAPI.error(500, "fake-spotify: fixture \(name) is missing from its resource bundle")
        }
        return HTTPResponse(status: status, headers: [("Content-Type", WebAPI.contentType)] + headers, body: body)
    }
}

/// Answers in the Web API's style.
enum WebAPI {
    static let contentType = "application/json; charset=utf-8"

    /// `{"error":{"status":N,"message":"..."}}`.
    static func error(_ status: Int, _ message: String, headers: [(String, String)] = []) -> HTTPResponse {
        let body: JSONValue = ["error": ["status": .int(status), "message": .string(message)]]
        return HTTPResponse(
            status: status, headers: [("Content-Type", contentType)] + headers, body: Array(body.serialized().utf8))
    }

    static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", contentType)], body: Array(value.serialized().utf8))
    }

    static let notFound = error(404, "Service not found")
    static let methodNotAllowed = error(405, "Method not allowed")

    /// The 401 for a failed bearer check, with Spotify's body and `WWW-Authenticate` header.
    static func unauthorized(_ check: BearerCheck) -> HTTPResponse {
        let realm = #"Bearer realm="spotify""#
        func challenge(_ description: String) -> String {
            realm + #", error="invalid_token", error_description="\#(description)""#
        }
        switch check {
        case .missing, .valid:
            return Fixtures.response("error-401-no-token.json", status: 401, headers: [("WWW-Authenticate", realm)])
        case .invalid:
            return Fixtures.response(
                "error-401-invalid-token.json", status: 401,
                headers: [("WWW-Authenticate", challenge("Invalid access token"))])
        case .expired:
            return Fixtures.response(
                "error-401.json", status: 401,
                headers: [("WWW-Authenticate", challenge("The access token expired"))])
        }
    }
}

/// Answers in the accounts service's style: compact JSON, `Content-Type: application/json`.
enum Accounts {
    static let contentType = "application/json"

    static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", contentType)], body: Array(value.serialized().utf8))
    }

    static func error(_ error: FakeOAuthError, status: Int = 400) -> HTTPResponse {
        json(["error": .string(error.error), "error_description": .string(error.description)], status: status)
    }

    /// The authorize step's error page: 400, HTML, no redirect.
    static func errorPage(_ message: String) -> HTTPResponse {
        let text = htmlEscaped(message)
        return .html(
            """
            <!DOCTYPE html>
            <html><head><meta charset="utf-8"><title>Error</title></head>
            <body><h1>Oops! Something went wrong</h1><p>\(text)</p></body></html>

            """, status: 400)
    }

    static func htmlEscaped(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}

/// Answers of the `/_fake/` controls.
enum Control {
    static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        .json(value.serialized(), status: status)
    }

    static func error(_ error: any Error) -> HTTPResponse {
        json(["error": .string((error as? ControlError)?.message ?? "\(error)")], status: 400)
    }
}
