import ToolkitCore

#if canImport(Security)
import Foundation
import Security

/// Tokens as one generic-password item in the login Keychain (macOS), holding the same JSON the
/// file store writes. `SPOTIFY_TOOLKIT_TOKEN_STORE=file` switches to the file store instead.
struct KeychainTokenStore: TokenStore {
    let service = "spotify-toolkit"
    let account = "tokens"
    var location: String { "macOS Keychain (service \(service), account \(account))" }

    init() {}

    var baseQuery: [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
    }

    func load() throws -> StoredTokens? {
        var query = baseQuery
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var item: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &item)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = item as? Data else {
            throw ToolError.config("cannot read the token store (\(location)): \(message(status))")
        }
        do {
            return try JSONDecoder().decode(StoredTokens.self, from: data)
        } catch {
            throw ToolError.config(
                "the token store (\(location)) is damaged; remove it with 'spotify-auth logout' and log in again")
        }
    }

    func save(_ tokens: StoredTokens) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(tokens)
        let update = SecItemUpdate(baseQuery as CFDictionary, [kSecValueData as String: data] as CFDictionary)
        if update == errSecSuccess { return }
        guard update == errSecItemNotFound else {
            throw ToolError.config("cannot write the token store (\(location)): \(message(update))")
        }
        var item = baseQuery
        item[kSecValueData as String] = data
        item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        let added = SecItemAdd(item as CFDictionary, nil)
        guard added == errSecSuccess else {
            throw ToolError.config("cannot write the token store (\(location)): \(message(added))")
        }
    }

    func remove() throws {
        let status = SecItemDelete(baseQuery as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else {
            throw ToolError.config("cannot remove the token store (\(location)): \(message(status))")
        }
    }

    func message(_ status: OSStatus) -> String {
        (SecCopyErrorMessageString(status, nil) as String?) ?? "OSStatus \(status)"
    }
}
#endif
