import Foundation
import LoopbackHTTP
import ToolkitCore

extension FakeSpotifyService {
    /// `GET /authorize`: the consent step. The user always agrees (unless `deny`), so this answers
    /// at once with a 302 to the redirect URI, or a 400 error page when the request is unusable.
    func authorize(_ request: RouteRequest) -> HTTPResponse {
        let query = request.http.query
        func value(_ name: String) -> String? { URLForm.value(name, in: query) }
        let settings = self.settings

        guard let clientID = value("client_id"), !clientID.isEmpty,
            settings.clientIDs.isEmpty || settings.clientIDs.contains(clientID)
        else { return Accounts.errorPage("INVALID_CLIENT: Invalid client") }
        guard let redirectURI = value("redirect_uri"), !redirectURI.isEmpty else {
            return Accounts.errorPage("INVALID_REQUEST: Missing required parameter: redirect_uri")
        }
        if RedirectURIRules.isInsecure(redirectURI) {
            return Accounts.errorPage("INVALID_CLIENT: Insecure redirect URI")
        }
        guard RedirectURIRules.isRegistered(redirectURI, in: settings.redirectURIs) else {
            return Accounts.errorPage("INVALID_CLIENT: Invalid redirect URI")
        }
        guard let responseType = value("response_type") else {
            return Accounts.errorPage("INVALID_REQUEST: Missing required parameter: response_type")
        }
        guard responseType == "code" else {
            return Accounts.errorPage("UNSUPPORTED_RESPONSE_TYPE: response_type must be code")
        }
        guard let method = value("code_challenge_method") else {
            return Accounts.errorPage("INVALID_REQUEST: Missing required parameter: code_challenge_method")
        }
        guard method == "S256" else {
            return Accounts.errorPage("INVALID_REQUEST: code_challenge_method must be S256")
        }
        guard let challenge = value("code_challenge") else {
            return Accounts.errorPage("INVALID_REQUEST: Missing required parameter: code_challenge")
        }
        guard challenge.utf8.count == 43, challenge.utf8.allSatisfy(Self.isBase64URLByte) else {
            return Accounts.errorPage(
                "INVALID_REQUEST: Invalid code_challenge: expected 43 base64url characters (S256)")
        }

        var answer: [(String, String)]
        if settings.deny {
            answer = [("error", "access_denied")]
        } else {
            let scope = (value("scope") ?? "").split(whereSeparator: { $0 == " " }).joined(separator: " ")
            let code = state.withLock {
                $0.issueCode(clientID: clientID, redirectURI: redirectURI, challenge: challenge, scope: scope)
            }
            answer = [("code", code)]
        }
        if let stateValue = value("state") { answer.append(("state", stateValue)) }
        let separator = redirectURI.contains("?") ? "&" : "?"
        return .redirect(to: redirectURI + separator + URLForm.encode(answer))
    }

    /// `POST /api/token`: the authorization_code and refresh_token grants.
    func token(_ request: RouteRequest) -> HTTPResponse {
        let form = request.http.formFields()
        func value(_ name: String) -> String? { URLForm.value(name, in: form).flatMap { $0.isEmpty ? nil : $0 } }
        let settings = self.settings

        let result: Result<IssuedTokens, FakeOAuthError>
        func requireClient() -> FakeOAuthError? {
            guard let clientID = value("client_id"),
                settings.clientIDs.isEmpty || settings.clientIDs.contains(clientID)
            else { return .invalidClient }
            return nil
        }
        switch URLForm.value("grant_type", in: form) {
        case nil, "":
            result = .failure(
                FakeOAuthError(error: "unsupported_grant_type", description: "grant_type parameter is missing"))
        case "authorization_code":
            if let error = requireClient() {
                result = .failure(error)
            } else if let missing = ["code", "redirect_uri", "code_verifier"].first(where: { value($0) == nil }) {
                result = .failure(.missing(missing))
            } else {
                result = state.withLock {
                    $0.exchange(
                        code: value("code")!, redirectURI: value("redirect_uri")!, clientID: value("client_id")!,
                        verifier: value("code_verifier")!)
                }
            }
        case "refresh_token":
            if value("refresh_token") == nil {
                result = .failure(.missing("refresh_token"))
            } else if let error = requireClient() {
                result = .failure(error)
            } else {
                result = state.withLock { $0.refresh(token: value("refresh_token")!, clientID: value("client_id")!) }
            }
        default:
            result = .failure(
                FakeOAuthError(
                    error: "unsupported_grant_type",
                    description: "grant_type must be authorization_code or refresh_token"))
        }

        if settings.tokenDelayMs > 0 { Thread.sleep(forTimeInterval: Double(settings.tokenDelayMs) / 1000) }
        switch result {
        case .success(let tokens): return Accounts.json(tokens.json())
        case .failure(let error): return Accounts.error(error)
        }
    }

    static func isBase64URLByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}
