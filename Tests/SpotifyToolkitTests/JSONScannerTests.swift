import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

extension JSONScanner {
    /// The next number as a `Double`; nil for other kinds (the value is consumed either way).
    /// Throws for a number too large for a `Double` (`1e400`). Only tests read numbers so.
    mutating func readDouble() throws -> Double? {
        guard nextKind == .number else {
            try skipValue()
            return nil
        }
        skipWhitespace()
        let start = pos
        _ = try skipNumber()
        return try doubleValue(start, pos)
    }
}

/// The fields songcount-style tools pull from a record: top level, or inside `item`/`track`.
private struct TrackFields: Equatable {
    var durationMs: Int?
    var progressMs: Int?
    var id: String?
    var uri: String?
    var type: String?
    var nested: Nested?

    struct Nested: Equatable {
        var durationMs: Int?
        var id: String?
        var uri: String?
        var type: String?
    }
}

private func extract(_ line: String) throws -> TrackFields {
    var line = line
    return try line.withUTF8 { buffer in
        var fields = TrackFields()
        try JSONScanner.scanObjectLine(UnsafeRawBufferPointer(buffer)) { key, scanner in
            if key.matches("duration_ms") {
                fields.durationMs = try scanner.readInt()
            } else if key.matches("progress_ms") {
                fields.progressMs = try scanner.readInt()
            } else if key.matches("id") {
                fields.id = try scanner.readString()
            } else if key.matches("uri") {
                fields.uri = try scanner.readString()
            } else if key.matches("type") {
                fields.type = try scanner.readString()
            } else if key.matches("item") || key.matches("track") {
                guard scanner.nextKind == .object else { return }  // e.g. "track": true, "item": null
                var nested = TrackFields.Nested()
                try scanner.readObject { key, scanner in
                    if key.matches("duration_ms") {
                        nested.durationMs = try scanner.readInt()
                    } else if key.matches("id") {
                        nested.id = try scanner.readString()
                    } else if key.matches("uri") {
                        nested.uri = try scanner.readString()
                    } else if key.matches("type") {
                        nested.type = try scanner.readString()
                    }
                }
                fields.nested = nested
            }
        }
        return fields
    }
}

private func scanError(_ line: String) -> JSONParseError? {
    do {
        _ = try extract(line)
        return nil
    } catch let error as JSONParseError {
        return error
    } catch {
        return nil
    }
}

private func scanError(bytes: [UInt8]) -> JSONParseError? {
    bytes.withUnsafeBytes { buffer in
        do {
            try JSONScanner.scanObjectLine(buffer) { _, _ in }
            return nil
        } catch let error as JSONParseError {
            return error
        } catch {
            return nil
        }
    }
}

@Suite(.tags(.small)) struct JSONScannerTests {
    @Test func extractsFieldsFromATrack() throws {
        let fields = try extract(JSONLinesFixtures.track)
        #expect(fields.durationMs == 322506)
        #expect(fields.id == "4iV5W9uYEdYUVa79Axb7Rh")
        #expect(fields.uri == "spotify:track:4iV5W9uYEdYUVa79Axb7Rh")
        #expect(fields.type == "track")
        #expect(fields.progressMs == nil)
        // The track's own `"track":true` is a boolean, not a nested record.
        #expect(fields.nested == nil)
    }

    @Test func extractsNestedItem() throws {
        let fields = try extract(JSONLinesFixtures.playlistItem)
        #expect(fields.durationMs == nil)
        #expect(fields.id == nil)  // added_by.id is deeper and skipped
        #expect(
            fields.nested
                == .init(
                    durationMs: 322506, id: "4iV5W9uYEdYUVa79Axb7Rh",
                    uri: "spotify:track:4iV5W9uYEdYUVa79Axb7Rh", type: "track"))
    }

    @Test func extractsNestedLegacyTrack() throws {
        let fields = try extract(JSONLinesFixtures.legacyPlaylistItem)
        #expect(fields.nested?.durationMs == 322506)
        #expect(fields.nested?.type == "track")
    }

    @Test func extractsProgressAndItem() throws {
        let fields = try extract(JSONLinesFixtures.currentlyPlaying)
        #expect(fields.progressMs == 73512)
        #expect(fields.nested?.durationMs == 322506)
    }

    @Test func nullAndOtherKindsReadAsNil() throws {
        let fields = try extract(
            #"{"duration_ms":null,"id":null,"uri":7,"type":["track"],"item":null,"progress_ms":"12"}"#)
        #expect(fields == TrackFields())
        let more = try extract(#"{"duration_ms":1.5,"progress_ms":2e3,"id":{"a":"b"}}"#)
        #expect(more.durationMs == nil)
        #expect(more.progressMs == 2000)
        #expect(more.id == nil)
    }

    @Test func integers() throws {
        #expect(try extract(#"{"duration_ms":-0}"#).durationMs == 0)
        #expect(try extract(#"{"duration_ms":-17}"#).durationMs == -17)
        #expect(try extract(#"{"duration_ms":9223372036854775807}"#).durationMs == .max)
        #expect(try extract(#"{"duration_ms":-9223372036854775808}"#).durationMs == .min)
        #expect(try extract(#"{"duration_ms":9223372036854775808}"#).durationMs == nil)
        #expect(try extract(#"{"duration_ms":322506.0}"#).durationMs == 322506)
    }

    @Test func skipsEverythingElse() throws {
        let line =
            #"{"a":[1,[2,{"x":"}"}],{}],"b":{"c":{"d":[]}},"s":"esc \" \\ \u00e9 \/ ] } ,","id":"X","n":-1.5e-3,"#
            + #""t":true,"f":false,"z":null,"duration_ms":5}"#
        let fields = try extract(line)
        #expect(fields.id == "X")
        #expect(fields.durationMs == 5)
    }

    @Test func decodesStringsAndEscapedKeys() throws {
        let fields = try extract(#"{"dur\u0061tion_ms":9,"\u0069d":"a\"b\u00e9\ud83c\udfb5","uri":"Sigur Rós"}"#)
        #expect(fields.durationMs == 9)
        #expect(fields.id == "a\"bé🎵")
        #expect(fields.uri == "Sigur Rós")
    }

    @Test func toleratesWhitespace() throws {
        let fields = try extract(" \t{ \"duration_ms\" : 7 , \"item\" : { \"id\" : \"x\" } } \t\r")
        #expect(fields.durationMs == 7)
        #expect(fields.nested?.id == "x")
    }

    @Test func rejectsInvalidLines() {
        let track = JSONLinesFixtures.track
        let invalid: [String] = [
            String(track.dropLast()),  // truncated
            String(track.prefix(500)),  // truncated mid-way
            #"{"a":1,}"#,  // trailing comma
            #"{"a":[1,2,]}"#,  // trailing comma in a skipped array
            "hello",  // bare word
            "{hello}",
            "{} {}",  // two objects
            track + track,
            #"{"a":"unterminated}"#,  // unterminated string
            "{\"a\":\"tab\tinside\"}",  // control character in a string
            "{\"a\u{1}\":1}",  // control character in a key
            #"{"a":01}"#, #"{"a":1.}"#, #"{"a":-}"#, #"{"a":.5}"#, #"{"a":+1}"#,
            #"{"a":tru}"#, #"{"a":nul}"#, #"{"a":True}"#, #"{"a":NaN}"#,
            #"{"a" 1}"#, #"{"a":1 "b":2}"#, #"{"a":1,,"b":2}"#, #"{,}"#, #"{"a"}"#, #"{'a':1}"#,
            #"{"a":"\x"}"#, #"{"a":"\u12"}"#, #"{"a":{"b":[}}"#, #"{"a":[1}"#,
            "{", "}", "", "   ",
            #"{"duration_ms":5} // comment"#,
        ]
        for line in invalid {
            let error = scanError(line)
            #expect(error != nil, "accepted \(line.debugDescription)")
            #expect(error?.message.hasPrefix("not JSON: ") == true, "\(String(describing: error))")
        }
    }

    @Test func rejectsOtherTopLevelValues() {
        #expect(scanError("[1,2]") == JSONParseError(message: "not a JSON object (found an array)", offset: 0))
        #expect(scanError(#""s""#)?.message == "not a JSON object (found a string)")
        #expect(scanError(" 42 ")?.message == "not a JSON object (found a number)")
        #expect(scanError("null")?.message == "not a JSON object (found null)")
        #expect(scanError("true")?.message == "not a JSON object (found a boolean)")
        // Invalid JSON that starts like an array is "not JSON".
        #expect(scanError("[1,]")?.message == "not JSON: unexpected character ']' at byte 3")
    }

    @Test func errorMessagesHaveOffsets() {
        #expect(
            scanError(#"{"a":1,}"#)
                == JSONParseError(message: "not JSON: unexpected character '}' at byte 7", offset: 7))
        #expect(scanError(#"{"a":1}x"#)?.message == "not JSON: unexpected character 'x' after the JSON value at byte 7")
        #expect(scanError(#"{"a":1"#)?.message == "not JSON: unexpected end of input")
        #expect(scanError(#"{"a":"b"#)?.message == "not JSON: unterminated string starting at byte 5")
    }

    @Test func rejectsInvalidUTF8EvenInSkippedValues() {
        var bytes = Array(#"{"name":"Caf"#.utf8)
        bytes += [0xE9]  // Latin-1 é
        bytes += Array(#"","duration_ms":1}"#.utf8)
        #expect(scanError(bytes: bytes)?.message == "not JSON: invalid UTF-8 at byte 12")
        // Long enough for the 8-byte fast path.
        var long = Array(#"{"name":"abcdefghijklmnopqrstuvwxyz"#.utf8)
        long += [0xC3, 0xA9, 0xFF]
        long += Array(#"abcdefgh"}"#.utf8)
        #expect(scanError(bytes: long)?.message == "not JSON: invalid UTF-8 at byte 37")
    }

    @Test func bodyErrorsPassThrough() {
        struct Missing: Error {}
        #expect(throws: Missing.self) {
            try Array(#"{"a":1}"#.utf8).withUnsafeBytes { buffer in
                try JSONScanner.scanObjectLine(buffer) { _, _ in throw Missing() }
            }
        }
    }

    @Test func depthLimitAppliesToSkippedValues() {
        let deep = #"{"a":"# + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}"
        #expect(scanError(deep)?.message.hasPrefix("not JSON: nesting deeper than 512 levels") == true)
        let ok = #"{"a":"# + String(repeating: "[", count: 511) + String(repeating: "]", count: 511) + "}"
        #expect(scanError(ok) == nil)
    }

    @Test func lowLevelAPI() throws {
        let text = #"[ {"k":[1,2]}, "two", 3.5, true, null, -4 ]"#
        var kinds: [JSONKind] = []
        var raw: [String] = []
        try Array(text.utf8).withUnsafeBytes { buffer in
            var scanner = JSONScanner(buffer)
            #expect(scanner.nextKind == .array)
            var index = 0
            try scanner.readArray { scanner in
                kinds.append(scanner.nextKind)
                switch index {
                case 0:
                    let bytes = try scanner.readRawValue()
                    raw.append(String(decoding: bytes, as: UTF8.self))
                case 1: #expect(try scanner.readString() == "two")
                case 2: #expect(try scanner.readDouble() == 3.5)
                case 3: #expect(try scanner.readBool() == true)
                case 4: break  // left to be skipped
                default: #expect(try scanner.readInt() == -4)
                }
                index += 1
            }
            try scanner.expectEnd()
        }
        #expect(kinds == [.object, .string, .number, .bool, .null, .number])
        #expect(raw == [#"{"k":[1,2]}"#])
    }

    @Test func readObjectOnOtherKindsThrows() {
        #expect(throws: JSONParseError(message: "expected an object at byte 0, found an array", offset: 0)) {
            try Array("[]".utf8).withUnsafeBytes { buffer in
                var scanner = JSONScanner(buffer)
                try scanner.readObject { _, _ in }
            }
        }
    }

    @Test func keyMatching() throws {
        var keys: [String] = []
        try Array(#"{"":1,"id":2,"idx":3,"duration_ms_long_key_over_8":4,"\u0069d":5}"#.utf8).withUnsafeBytes {
            buffer in
            try JSONScanner.scanObjectLine(buffer) { key, _ in
                if key.matches("") { keys.append("empty") }
                if key.matches("id") { keys.append(key.hasEscapes ? "id (escaped)" : "id") }
                if key.matches("duration_ms_long_key_over_8") { keys.append("long") }
                if key.matches("duration_ms_long_key_over_9") { keys.append("wrong") }
                if key.matches("i") { keys.append("prefix") }
            }
        }
        #expect(keys == ["empty", "id", "long", "id (escaped)"])
    }
}
/// Records copied from the Spotify Web API fixtures (`playlist-items-page1.json`, first entry,
/// compacted with `jq -c`): a full track object and the 2026 playlist item wrapping it.
enum JSONLinesFixtures {
    /// The track object (`items[0].item`), key order as in the fixture. Note its `"track":true`.
    static let track = #"""
        {"album":{"album_type":"album","artists":[{"external_urls":{"spotify":"https://open.spotify.com/arti\#
        st/0OdUWJ0sBjDrqHygGUXeCF"},"href":"https://api.spotify.com/v1/artists/0OdUWJ0sBjDrqHygGUXeCF","id":\#
        "0OdUWJ0sBjDrqHygGUXeCF","name":"Band of Horses","type":"artist","uri":"spotify:artist:0OdUWJ0sBjDrq\#
        HygGUXeCF"}],"external_urls":{"spotify":"https://open.spotify.com/album/4aawyAB9vmqN3uQ7FjRGTy"},"hr\#
        ef":"https://api.spotify.com/v1/albums/4aawyAB9vmqN3uQ7FjRGTy","id":"4aawyAB9vmqN3uQ7FjRGTy","images\#
        ":[{"height":640,"url":"https://i.scdn.co/image/ab67616d0000b2735a3a2f4e1f2b1c0d9e8f7a6b","width":64\#
        0},{"height":300,"url":"https://i.scdn.co/image/ab67616d00001e025a3a2f4e1f2b1c0d9e8f7a6b","width":30\#
        0},{"height":64,"url":"https://i.scdn.co/image/ab67616d000048515a3a2f4e1f2b1c0d9e8f7a6b","width":64}\#
        ],"is_playable":true,"name":"Everything All the Time","release_date":"2006-03-21","release_date_prec\#
        ision":"day","total_tracks":10,"type":"album","uri":"spotify:album:4aawyAB9vmqN3uQ7FjRGTy"},"artists\#
        ":[{"external_urls":{"spotify":"https://open.spotify.com/artist/0OdUWJ0sBjDrqHygGUXeCF"},"href":"htt\#
        ps://api.spotify.com/v1/artists/0OdUWJ0sBjDrqHygGUXeCF","id":"0OdUWJ0sBjDrqHygGUXeCF","name":"Band o\#
        f Horses","type":"artist","uri":"spotify:artist:0OdUWJ0sBjDrqHygGUXeCF"}],"disc_number":1,"duration_\#
        ms":322506,"episode":false,"explicit":false,"external_ids":{"isrc":"USSUB0634105"},"external_urls":{\#
        "spotify":"https://open.spotify.com/track/4iV5W9uYEdYUVa79Axb7Rh"},"href":"https://api.spotify.com/v\#
        1/tracks/4iV5W9uYEdYUVa79Axb7Rh","id":"4iV5W9uYEdYUVa79Axb7Rh","is_local":false,"is_playable":true,"\#
        name":"The Funeral","preview_url":null,"track":true,"track_number":5,"type":"track","uri":"spotify:t\#
        rack:4iV5W9uYEdYUVa79Axb7Rh"}
        """#

    /// The playlist entry's members before and after its `"item"`.
    static let entryHead = #"""
        {"added_at":"2025-11-02T18:21:07Z","added_by":{"external_urls":{"spotify":"https://open.spotify.com/\#
        user/31kx7ufdeznvfbgxsw2ocqc2ql4e"},"href":"https://api.spotify.com/v1/users/31kx7ufdeznvfbgxsw2ocqc\#
        2ql4e","id":"31kx7ufdeznvfbgxsw2ocqc2ql4e","type":"user","uri":"spotify:user:31kx7ufdeznvfbgxsw2ocqc\#
        2ql4e"},"is_local":false,"primary_color":null,
        """#
    static let entryTail = #"""
        ,"video_thumbnail":{"url":null}}
        """#

    /// The playlist item (`items[0]`), with the track under `"item"`.
    static let playlistItem = entryHead + #""item":"# + track + entryTail

    /// The legacy shape: the same entry with the track under `"track"`.
    static let legacyPlaylistItem = entryHead + #""track":"# + track + entryTail

    /// A currently-playing response: `progress_ms` at the top, the track under `"item"`.
    static let currentlyPlaying =
        #"{"timestamp":1771571234567,"progress_ms":73512,"item":"# + track
        + #","currently_playing_type":"track","is_playing":true}"#
}

@Suite(.tags(.small)) struct SongRecordFieldsTests {
    func fields(_ line: String) throws -> SongRecordFields {
        var line = line
        return try line.withUTF8 { try SongRecordFields.extract(from: UnsafeRawBufferPointer($0)) }
    }

    @Test func identityFallsBackToNameArtistsAndDuration() throws {
        let a = try fields(#"{"name":"Song","artists":[{"name":"X"},{"name":"Y"}],"duration_ms":1000}"#)
        let b = try fields(#"{"name":"Song","artists":[{"name":"X"},{"name":"Y"}],"duration_ms":1000,"progress_ms":5}"#)
        let c = try fields(#"{"name":"Song","artists":[{"name":"X"}],"duration_ms":1000}"#)
        #expect(a.songKey != nil)
        #expect(a.songKey == b.songKey)
        #expect(a.songKey != c.songKey)
        let nested = try fields(
            #"{"progress_ms":5,"item":{"name":"Song","artists":[{"name":"X"},{"name":"Y"}],"duration_ms":1000}}"#)
        #expect(nested.songKey == a.songKey)
        #expect(try fields(#"{"duration_ms":1000}"#).songKey == nil)
        #expect(try fields(#"{"id":"i","uri":"u","name":"n","duration_ms":1}"#).songKey == "i")
    }

    @Test(arguments: [
        (#"{"type":"track","duration_ms":1}"#, true),
        (#"{"duration_ms":1}"#, true),
        (#"{"type":"now_playing","currently_playing_type":"track","duration_ms":1}"#, true),
        (#"{"type":"played","duration_ms":1}"#, true),
        (#"{"added_at":null,"item":{"type":"track","duration_ms":1}}"#, true),
        (#"{"type":"episode","duration_ms":1}"#, false),
        (#"{"type":"now_playing","currently_playing_type":"episode","duration_ms":1}"#, false),
        (#"{"type":"now_playing","currently_playing_type":"ad"}"#, false),
        (#"{"added_at":null,"item":{"type":"episode","duration_ms":1}}"#, false),
        (#"{"is_playing":true,"currently_playing_type":"ad","item":null}"#, false),
        (#"{"type":"playlist","id":"p"}"#, false),
        (#"{"track":{"type":"episode","duration_ms":1,"track":true,"episode":false}}"#, false),
    ])
    func songsAreTracks(line: String, isSong: Bool) throws {
        #expect(try fields(line).isSong == isSong)
    }

    @Test func isPlayingIsRead() throws {
        #expect(try fields(#"{"is_playing":false,"item":{"duration_ms":1}}"#).isPlaying == false)
        #expect(try fields(#"{"is_playing":true,"duration_ms":1}"#).isPlaying == true)
        #expect(try fields(#"{"duration_ms":1}"#).isPlaying == nil)
    }
}
