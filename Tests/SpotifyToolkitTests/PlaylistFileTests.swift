import Foundation
import Testing

@testable import SpotifyClient
@testable import ToolkitCore
@testable import Tools

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The playlist files of `--format` and `--from`: each is what its readers take (Foundation's XML
/// parser, a JSON parser), the CSV is RFC 4180 with Exportify's columns, and what is written reads
/// back as the same tracks. Pure.
@Suite(.tags(.small)) struct PlaylistFileTests {
    /// Two track records with everything that needs escaping: a comma, quotes, <, &, a line break
    /// and a control character in names; an episode; a record of another type (skipped).
    static let records: [JSONObject] = [
        [
            "type": "track", "id": "4iV5W9uYEdYUVa79Axb7Rh", "uri": "spotify:track:4iV5W9uYEdYUVa79Axb7Rh",
            "name": "Say \"Hi\", <now> & then\nagain\u{1}", "duration_ms": 215_499,
            "artists": [
                ["id": "0OdUWJ0sBjDrqHygGUXeCF", "name": "Band, of Horses"],
                ["id": "2CIMQHirSU0MQqyYHq0eOx", "name": "Other"],
            ],
            "album": [
                "id": "6akEvsycLGftJxYudPjmqK", "name": "Everything & All", "release_date": "1999-03",
                "release_date_precision": "month", "images": [["url": "https://i.scdn.co/image/big", "height": 640]],
            ],
            "explicit": true, "external_ids": ["isrc": "USSM19900001"], "is_playable": false, "is_local": false,
            "disc_number": 1, "track_number": 3, "added_at": "2026-01-02T03:04:05Z", "added_by": ["id": "smedjan"],
            "position": 0,
            "playlist": ["id": "P", "uri": "spotify:playlist:P", "name": "Mix & Match", "snapshot_id": "S"],
        ],
        [
            "type": "episode", "id": "512ojhOuo1ktJprKbVcKyQ", "uri": "spotify:episode:512ojhOuo1ktJprKbVcKyQ",
            "name": "Episode 1", "duration_ms": 1_000_000, "artists": [], "album": .null,
            "show": ["id": "S1", "name": "A Show", "images": []], "release_date": "2026-01-15",
            "release_date_precision": "day", "explicit": false, "is_local": false,
        ],
        ["type": "artist", "id": "X", "uri": "spotify:artist:X", "name": "Not a track"],
    ]

    static func render(_ format: PlaylistFileFormat) -> String {
        var text: String
        switch format {
        case .m3u: text = PlaylistFileRenderer.m3uHead(title: "Mix & Match")
        case .xspf: text = PlaylistFileRenderer.xspfHead(title: "Mix & Match")
        case .jspf: text = PlaylistFileRenderer.jspfHead(title: "Mix & Match")
        case .csv: text = PlaylistFileRenderer.csvHead
        }
        var count = 0
        for record in records {
            let track = ExportedTrack(record)
            guard track.isTrackLike else { continue }
            switch format {
            case .m3u: text += PlaylistFileRenderer.m3uEntry(track)
            case .xspf: text += PlaylistFileRenderer.xspfTrack(track)
            case .jspf: text += (count == 0 ? "" : ",\n") + PlaylistFileRenderer.jspfTrack(track)
            case .csv: text += PlaylistFileRenderer.csvRow(track)
            }
            count += 1
        }
        switch format {
        case .xspf: text += PlaylistFileRenderer.xspfTail
        case .jspf: text += PlaylistFileRenderer.jspfTail
        default: break
        }
        return text
    }

    @Test func m3uIsOneInfoLineAndOneURIPerTrack() {
        let lines = Self.render(.m3u).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "#EXTM3U")
        #expect(lines[1] == "#PLAYLIST:Mix & Match")
        #expect(lines[2] == #"#EXTINF:215,Band, of Horses, Other - Say "Hi", <now> & then again "#)
        #expect(lines[3] == "spotify:track:4iV5W9uYEdYUVa79Axb7Rh")
        #expect(lines[4] == "#EXTINF:1000,A Show - Episode 1")
        #expect(lines[5] == "spotify:episode:512ojhOuo1ktJprKbVcKyQ")
        #expect(lines.count == 7 && lines[6].isEmpty)
    }

    /// Collects what an XML parser sees of an XSPF file: its namespace, and each track's texts.
    final class XSPFCollector: NSObject, XMLParserDelegate {
        var namespaces: Set<String> = []
        var tracks: [[String: [String]]] = []
        var text = ""
        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            if let namespaceURI { namespaces.insert(namespaceURI) }
            if name == "track" { tracks.append([:]) }
            text = ""
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if !tracks.isEmpty && name != "track" && name != "trackList" && name != "playlist" {
                tracks[tracks.count - 1][name, default: []].append(text)
            }
        }
    }

    @Test func xspfParsesAsXMLInTheXSPFNamespace() throws {
        let text = Self.render(.xspf)
        let parser = XMLParser(data: Data(text.utf8))
        parser.shouldProcessNamespaces = true
        let collector = XSPFCollector()
        parser.delegate = collector
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")\n\(text)")
        #expect(collector.namespaces == ["http://xspf.org/ns/0/"])
        #expect(collector.tracks.count == 2)
        let first = try #require(collector.tracks.first)
        #expect(first["title"] == ["Say \"Hi\", <now> & then\nagain"])
        #expect(first["creator"] == ["Band, of Horses, Other"])
        #expect(first["album"] == ["Everything & All"])
        #expect(first["duration"] == ["215499"])
        #expect(
            first["identifier"] == [
                "spotify:track:4iV5W9uYEdYUVa79Axb7Rh", "https://open.spotify.com/track/4iV5W9uYEdYUVa79Axb7Rh",
                "isrc:USSM19900001",
            ])
    }

    @Test func jspfParsesAsJSONWithASpotifyIdentifierPerTrack() throws {
        let document = try JSONValue.parse(Self.render(.jspf))
        #expect(document["playlist"]?["title"] == "Mix & Match")
        let tracks = try #require(document["playlist"]?["track"]?.arrayValue)
        #expect(tracks.count == 2)
        #expect(
            tracks.allSatisfy { track in
                track["identifier"]?.arrayValue?.contains {
                    $0.stringValue?.hasPrefix("https://open.spotify.com/") == true
                }
                    == true
            })
        #expect(tracks[0]["duration"] == 215_499)
        #expect(tracks[0]["creator"] == "Band, of Horses, Other")
        let listenBrainz = tracks[0]["extension"]?["https://musicbrainz.org/doc/jspf#track"]
        #expect(listenBrainz?["added_by"] == "smedjan")
        #expect(listenBrainz?["additional_metadata"]?["spotify"]?["isrc"] == "USSM19900001")
    }

    @Test func csvHasExportifysColumnsAndQuotesAsRFC4180Says() {
        let text = Self.render(.csv)
        #expect(
            text.hasPrefix(
                "Track URI,Track Name,Artist URI(s),Artist Name(s),Album URI,Album Name,Album Release Date,Disc Number,"
                    + "Track Number,Track Duration (ms),Explicit,ISRC,Added By,Added At\r\n"))
        #expect(text.contains(#""Say ""Hi"", <now> & then"# + "\nagain\u{1}\""))
        #expect(text.contains(#","Band\, of Horses,Other","#))
        #expect(text.contains(",1999-03,1,3,215499,true,USSM19900001,spotify:user:smedjan,2026-01-02T03:04:05Z\r\n"))
        #expect(text.hasSuffix("\r\n"))
    }

    /// Everything written reads back as the tracks it was: their URIs, names, artists, lengths, ISRCs.
    @Test(arguments: PlaylistFileFormat.allCases)
    func whatIsWrittenReadsBack(_ format: PlaylistFileFormat) throws {
        let rows = PlaylistFileReader.read(Array(Self.render(format).utf8), format: format)
        let tracks = try rows.map { try $0.get() }
        #expect(
            tracks.map(\.reference?.uri) == [
                "spotify:track:4iV5W9uYEdYUVa79Axb7Rh", "spotify:episode:512ojhOuo1ktJprKbVcKyQ",
            ])
        #expect(tracks.allSatisfy { $0.isComplete })
        let first = try #require(tracks.first)
        switch format {
        case .m3u: #expect(first.title == #"Say "Hi", <now> & then again"#)
        case .xspf: #expect(first.title == "Say \"Hi\", <now> & then\nagain")
        case .csv, .jspf: #expect(first.title == "Say \"Hi\", <now> & then\nagain\u{1}")
        }
        #expect(first.durationMs == (format == .m3u ? 215_000 : 215_499))
        if format != .m3u { #expect(first.isrc == "USSM19900001") }
        if format == .csv || format == .jspf {
            #expect(
                first.artists == [
                    .init(id: "0OdUWJ0sBjDrqHygGUXeCF", name: "Band, of Horses"),
                    .init(id: "2CIMQHirSU0MQqyYHq0eOx", name: "Other"),
                ])
            #expect(first.albumID == "6akEvsycLGftJxYudPjmqK")
            #expect(first.releaseDate == "1999-03")
            #expect(first.explicit == true)
            #expect(first.addedBy == "smedjan")
            let record = try #require(TrackRecord(spotify: first.spotifyObject)?.object)
            #expect(record["album"]?["release_date_precision"] == "month")
            #expect(record["external_ids"]?["isrc"] == "USSM19900001")
        }
    }

    @Test func anExportifyCSVReadsAsIsWithBOMCRLFAndQuotedCommas() throws {
        let csv =
            "\u{FEFF}\"Track URI\",\"Track Name\",\"Artist URI(s)\",\"Artist Name(s)\",\"Album URI\",\"Album Name\","
            + "\"Album Artist URI(s)\",\"Album Artist Name(s)\",\"Album Release Date\",\"Album Image URL\",\"Disc Number\","
            + "\"Track Number\",\"Track Duration (ms)\",\"Track Preview URL\",\"Explicit\",\"Popularity\",\"ISRC\","
            + "\"Added By\",\"Added At\"\r\n"
            + "\"spotify:track:4iV5W9uYEdYUVa79Axb7Rh\",\"Hello, Goodbye\",\"spotify:artist:3WrFJ7ztbogyGnTHbHJFl2\","
            + "\"The Beatles\",\"spotify:album:1\",\"Magical, Mystery Tour\",\"\",\"\",\"1967-11-27\",\"\",\"1\",\"7\","
            + "\"210506\",\"\",\"false\",\"70\",\"GBAYE0601643\",\"spotify:user:me\",\"2020-01-01T00:00:00Z\"\r\n"
            + "\r\n"
            + "\"\",\"No URI, only a name\",\"\",\"Someone\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"1000\",\"\",\"\",\"\",\"\",\"\",\"\"\r\n"
            + "\"not-a-uri\",\"Bad\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"1\",\"\",\"\",\"\",\"\",\"\",\"\"\r\n"
        let rows = PlaylistFileReader.read(Array(csv.utf8), format: .csv)
        #expect(rows.count == 3)
        let first = try rows[0].get()
        #expect(first.place == "line 2")
        #expect(first.reference?.id == "4iV5W9uYEdYUVa79Axb7Rh" && first.title == "Hello, Goodbye" && first.isComplete)
        #expect(first.albumName == "Magical, Mystery Tour" && first.isrc == "GBAYE0601643" && first.addedBy == "me")
        let second = try rows[1].get()
        #expect(
            second.place == "line 4" && second.reference == nil && second.query?.text == "Someone - No URI, only a name"
        )
        #expect(throws: ImportProblem.self) { try rows[2].get() }
        if case .failure(let problem) = rows[2] { #expect(problem.place == "line 5") }
    }

    @Test func aCSVWithoutKnownColumnsOrWithAnOpenQuoteSaysWhere() {
        let none = PlaylistFileReader.read(Array("a,b\n1,2\n".utf8), format: .csv)
        #expect(none.count == 1)
        if case .failure(let problem) = none[0] { #expect(problem.place == "line 1") } else { Issue.record("read") }
        let open = PlaylistFileReader.read(Array("Track Name\nfine\n\"never closed\nstill\n".utf8), format: .csv)
        #expect(open.count == 2)
        if case .failure(let problem) = open.last { #expect(problem.place == "line 3") } else { Issue.record("read") }
    }

    @Test func anM3UFromAMusicServerBecomesSearchesByItsInfoLines() throws {
        let text =
            "#EXTM3U\r\n#EXTINF:354,Queen - Bohemian Rhapsody\r\n/music/Queen/01 Bohemian Rhapsody.flac\r\n"
            + "music/Dolly Parton - Jolene.mp3\r\nhttps://open.spotify.com/track/4iV5W9uYEdYUVa79Axb7Rh?si=x\r\n"
            + "spotify:track:short\r\n"
        let rows = PlaylistFileReader.read(Array(text.utf8), format: .m3u)
        #expect(rows.count == 4)
        let first = try rows[0].get()
        #expect(first.query?.artists == ["Queen"] && first.title == "Bohemian Rhapsody" && first.durationMs == 354_000)
        #expect(try rows[1].get().query?.text == "Dolly Parton - Jolene")
        #expect(try rows[2].get().reference?.id == "4iV5W9uYEdYUVa79Axb7Rh")
        if case .failure(let problem) = rows[3] { #expect(problem.place == "line 6") } else { Issue.record("read") }
    }

    @Test func brokenXMLIsOneProblemNamingItsLine() {
        let text =
            "<?xml version=\"1.0\"?>\n<playlist xmlns=\"http://xspf.org/ns/0/\"><trackList>\n<track><title>A</title>"
            + "</track>\n<track><title>B</titel></track>\n</trackList></playlist>\n"
        let rows = PlaylistFileReader.read(Array(text.utf8), format: .xspf)
        #expect(rows.count == 2)
        if case .failure(let problem) = rows.last {
            #expect(problem.place == "line 4" && problem.reason.contains("</titel>"), "\(problem)")
        } else {
            Issue.record("a problem")
        }
    }

    @Test func theFormatComesFromTheNameOrTheText() {
        #expect(PlaylistFileFormat(fileName: "Backup.CSV") == .csv)
        #expect(PlaylistFileFormat(fileName: "a.m3u8") == .m3u)
        #expect(PlaylistFileFormat(fileName: "dir.jspf/file") == nil)
        #expect(PlaylistFileFormat(sniffing: Array("\u{FEFF}<?xml".utf8)) == .xspf)
        #expect(PlaylistFileFormat(sniffing: Array(" {\"playlist\"".utf8)) == .jspf)
        #expect(PlaylistFileFormat(sniffing: Array("#EXTM3U\n".utf8)) == .m3u)
        #expect(PlaylistFileFormat(sniffing: Array("Track URI,Track Name\n".utf8)) == .csv)
    }
}
