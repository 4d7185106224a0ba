import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `$XDG_CONFIG_HOME/spotify-toolkit/config.json`: settings saved between runs (the client id
/// after the first login, the scopes of the last one). Flags beat environment variables, which
/// beat this file.
package struct ConfigFile: Sendable {
    package struct Settings: Codable, Sendable, Equatable {
        package var clientID: String?
        package var redirectURI: String?
        /// What the last login was granted. Kept here as well as with the tokens, because a
        /// session Spotify ends (invalid_grant) takes the tokens with it, and the next login
        /// must still ask for the same scopes. Logout forgets them.
        package var scopes: [String]?

        enum CodingKeys: String, CodingKey {
            case clientID = "client_id"
            case redirectURI = "redirect_uri"
            case scopes
        }

        package init(clientID: String? = nil, redirectURI: String? = nil, scopes: [String]? = nil) {
            self.clientID = clientID
            self.redirectURI = redirectURI
            self.scopes = scopes
        }
    }

    package let directory: String
    package var path: String { directory + "/" + Self.fileName }
    static let fileName = "config.json"

    package init(environment: ToolEnvironment) {
        directory = environment.configDirectory
    }

    /// Empty settings when there is no file; an error naming the file when it cannot be used.
    package func load() throws -> Settings {
        guard let data = try PrivateDirectory(directory).read(Self.fileName, trust: .file) else { return Settings() }
        do {
            return try JSONDecoder().decode(Settings.self, from: data)
        } catch {
            throw ToolError.config("\(path) is not valid: expected a JSON object like {\"client_id\":\"...\"}")
        }
    }

    package func save(_ settings: Settings) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        let data = try encoder.encode(settings)
        try PrivateDirectory(directory).write(data + Data("\n".utf8), to: Self.fileName)
    }
}
