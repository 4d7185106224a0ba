import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where tokens live between runs. Every tool reads it; only login, refresh and logout write.
package protocol TokenStore: Sendable {
    /// For people: "file /home/me/.config/spotify-toolkit/tokens.json" or "macOS Keychain ...".
    var location: String { get }
    /// nil when nobody is logged in; throws (exit 78, naming the store) when it cannot be read.
    func load() throws -> StoredTokens?
    func save(_ tokens: StoredTokens) throws
    /// Idempotent.
    func remove() throws
    /// Makes sure the tokens can be saved *before* something irreversible (a refresh that rotates
    /// the refresh token); the reservation then saves them, or is cancelled.
    func reserveSave(like tokens: StoredTokens) throws -> TokenSaveReservation
}

extension TokenStore {
    /// For stores with nothing to reserve: saving is all there is.
    func reserveSave(like tokens: StoredTokens) throws -> TokenSaveReservation {
        TokenSaveReservation(commit: { try save($0) }, cancel: {})
    }
}

/// A save that `TokenStore.reserveSave` has prepared: `commit` once with the new tokens, or `cancel`.
package struct TokenSaveReservation {
    package let commit: (StoredTokens) throws -> Void
    package let cancel: () -> Void
}

package enum TokenStores {
    /// The Keychain on macOS unless SPOTIFY_TOOLKIT_TOKEN_STORE=file; a 0600 file elsewhere.
    package static func make(environment: ToolEnvironment) -> TokenStore {
        #if canImport(Security)
        if environment["SPOTIFY_TOOLKIT_TOKEN_STORE"] != "file" { return KeychainTokenStore() }
        #endif
        return FileTokenStore(directory: environment.configDirectory)
    }

    /// The lock that serialises refreshes across processes; beside the config whatever the store.
    package static func refreshLock(environment: ToolEnvironment) throws -> InterProcessLock {
        try PrivateDirectory(environment.configDirectory).lock("tokens.lock")
    }
}

/// Tokens in `$XDG_CONFIG_HOME/spotify-toolkit/tokens.json`: directory 0700, file 0600 from the
/// moment they exist, written atomically (temporary file, fsync, rename) so a reader never sees
/// half a file. Used only when the directory and the file belong to the user and nobody else can
/// write them (or read the file): otherwise exit 78 with the chmod/chown that fixes it.
package struct FileTokenStore: TokenStore {
    package let directory: String
    package var path: String { directory + "/" + Self.fileName }
    package var location: String { path }
    static let fileName = "tokens.json"

    package init(directory: String) {
        self.directory = directory
    }

    var folder: PrivateDirectory { PrivateDirectory(directory) }

    package func load() throws -> StoredTokens? {
        guard let data = try folder.read(Self.fileName, trust: .secret) else { return nil }
        do {
            return try JSONDecoder().decode(StoredTokens.self, from: data)
        } catch {
            throw ToolError.config(
                """
                the token store \(path) is damaged (not the JSON spotify-auth writes); remove it with 'spotify-auth \
                logout' and log in again
                """
            )
        }
    }

    package func save(_ tokens: StoredTokens) throws {
        try folder.write(try Self.encode(tokens), to: Self.fileName)
    }

    /// Creates the temporary file and writes as many bytes as the tokens take now (plus room to
    /// grow) before anything is sent, so a full disk or a read-only directory fails the refresh
    /// before Spotify rotates the refresh token.
    package func reserveSave(like tokens: StoredTokens) throws -> TokenSaveReservation {
        let pending = try folder.beginWrite(Self.fileName, reserving: (try Self.encode(tokens)).count + 4096)
        return TokenSaveReservation(commit: { try pending.commit(try Self.encode($0)) }, cancel: { pending.cancel() })
    }

    package func remove() throws {
        try folder.remove(Self.fileName)
    }

    static func encode(_ tokens: StoredTokens) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(tokens)
    }
}
