import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Your playlists' ids and names as the last online listing saw them, kept beside the snapshot
/// cache (`$XDG_CACHE_HOME/spotify-toolkit/playlist-names.json`, 0600), so that `--offline`
/// resolves a playlist's name without a request. Like the cache's copies it belongs to the
/// account that fetched it, is written only while the cache is on, and goes with `logout`.
package struct PlaylistNameIndex: Sendable {
    package struct Entry: Sendable, Equatable {
        package var id: String
        package var name: String
        package init(id: String, name: String) {
            self.id = id
            self.name = name
        }
    }

    static let fileName = "playlist-names.json"
    let directory: PrivateDirectory
    let account: String

    package init(environment: ToolEnvironment, account: String) {
        directory = PrivateDirectory(environment.cacheDirectory)
        self.account = account
    }

    /// The names, or nil when none were kept for this account (or the file cannot be used).
    package func load() throws -> [Entry]? {
        guard try directory.verifyIfPresent(), let data = try directory.read(Self.fileName, trust: .file),
            let json = try? JSONValue.parse(String(decoding: data, as: UTF8.self)),
            json["account"]?.stringValue == account, let list = json["playlists"]?.arrayValue
        else { return nil }
        return list.compactMap { item in
            guard let id = item["id"]?.stringValue, let name = item["name"]?.stringValue else { return nil }
            return Entry(id: id, name: name)
        }
    }

    /// Keeps `entries` for this account, replacing what was kept.
    package func store(_ entries: [Entry]) throws {
        try directory.create()
        let json: JSONValue = [
            "account": .string(account),
            "playlists": .array(entries.map { ["id": .string($0.id), "name": .string($0.name)] }),
        ]
        try directory.write(Data((json.serialized() + "\n").utf8), to: Self.fileName)
    }
}
