import Testing

@testable import SpotifyClient
@testable import ToolkitCore
@testable import Tools

/// The guard that keeps a piped `replace` from writing a read cut short, on entries in
/// memory. Pure.
@Suite(.tags(.small)) struct ReplaceGuardTests {
    static let id = "gen0000000000000000200"

    static func track(_ index: Int) -> JSONValue {
        let id = String(repeating: "0", count: 22 - String(index).count) + String(index)
        return ["is_local": false, "item": ["type": "track", "uri": .string("spotify:track:\(id)")]]
    }
    static let unavailable: JSONValue = ["is_local": false, "item": .null]
    static func local(_ index: Int) -> JSONValue {
        ["is_local": true, "item": ["type": "track", "uri": .string("spotify:local:a:b:\(index):1")]]
    }

    /// What spotify-tracks prints of `entries[range]` that it keeps: records naming the playlist,
    /// with their positions.
    static func input(_ entries: [JSONValue], through last: Int) throws -> ItemInput {
        var items = ItemInput()
        for (position, entry) in entries.enumerated().prefix(last + 1) where PlaylistEntry.kind(of: entry) == .track {
            let uri = try #require(PlaylistContents.writableURI(entry))
            try items.add(record: ["uri": .string(uri), "position": .int(position), "playlist": ["id": .string(id)]])
        }
        return items
    }

    static func contents(_ entries: [JSONValue]) -> PlaylistContents {
        PlaylistContents(id: id, snapshot: nil, entries: entries)
    }

    /// `spotify-tracks` skips unavailable items always, and local files with --no-local;
    /// a whole read of a playlist that ends in 50 or more of them is not a read cut short.
    @Test func entriesTheReaderSkipsOnPurposeCountAsRead() throws {
        let tracks = (0..<100).map(Self.track)
        let endings: [[JSONValue]] = [
            Array(repeating: Self.unavailable, count: 60),
            (100..<160).map(Self.local),
            (100..<160).map { $0 % 2 == 0 ? Self.local($0) : Self.unavailable } + [Self.track(160)],
        ]
        for ending in endings {
            let entries = tracks + ending
            // What a whole read prints: every entry it does not skip, to the end.
            let items = try Self.input(entries, through: entries.count - 1)
            #expect(throws: Never.self) { try ReplaceGuard.check(items, against: Self.contents(entries)) }
        }
    }

    /// The refusal says what --force would do: remove the items after the input's last one that
    /// the playlist could lose, while its local files and unavailable items there stay.
    @Test func aReadCutShortIsRefusedSayingWhatForceWouldRemove() throws {
        let entries =
            (0..<100).map(Self.track) + Array(repeating: Self.unavailable, count: 30) + (130..<190).map(Self.track)
        let items = try Self.input(entries, through: 99)
        let error = #expect(throws: ToolError.self) { try ReplaceGuard.check(items, against: Self.contents(entries)) }
        #expect(error?.exitCode == .dataError)
        let message = error?.message ?? ""
        #expect(message.contains("a read cut short"), "\(message)")
        let said = """
            stop at position 99, and the 60 items after it are not in the input (it holds 190; the 30 local files \
            or unavailable items after it stay either way)
            """
        #expect(message.contains(said), "\(message)")
        #expect(message.contains("with --force, replace removes those 60 items"), "\(message)")
        #expect(!message.contains("drop them all"), "--force drops no local file or unavailable item")

        // A tail shorter than the playlist's last page (229 entries: the last 29) cannot be a read
        // cut short: a filter's choice. One as long as that page could be, whatever precedes it.
        let short =
            (0..<100).map(Self.track) + Array(repeating: Self.unavailable, count: 80) + (180..<229).map(Self.track)
        let shortItems = try Self.input(short, through: 201)
        #expect(throws: Never.self) { try ReplaceGuard.check(shortItems, against: Self.contents(short)) }
        let lastPageLost = try Self.input(short, through: 199)
        #expect(throws: ToolError.self) { try ReplaceGuard.check(lastPageLost, against: Self.contents(short)) }
        let afterTheObject = try Self.input(short, through: 99)
        #expect(throws: ToolError.self) { try ReplaceGuard.check(afterTheObject, against: Self.contents(short)) }
    }
}
