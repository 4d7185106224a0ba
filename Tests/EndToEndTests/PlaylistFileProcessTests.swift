import Foundation
import Testing

@testable import ToolkitCore

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Playlist files between processes: the four `--format` exports of a 20-item playlist, parsed by
/// the readers that matter (an XML parser, a JSON parser, Python's csv module, M3U's structure),
/// and an Exportify CSV and a JSPF export piped through `spotify-tracks --from` into
/// `spotify-playlists create`.
@Suite(.tags(.large)) struct PlaylistFileProcessTests {
    static let writeScopes =
        "playlist-read-private playlist-read-collaborative user-read-currently-playing user-read-playback-state user-library-read playlist-modify-private playlist-modify-public user-library-modify"

    final class Desk {
        let fake: FakeSpotifyProcess
        let work: TemporaryDirectory
        let environment: [String: String]

        init() throws {
            fake = try FakeSpotifyProcess()
            work = try TemporaryDirectory()
            _ = try fake.seedLogin(expiresIn: 3600, scope: PlaylistFileProcessTests.writeScopes)
            let home = fake.home.url
            environment = fake.environment([
                "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
                "XDG_STATE_HOME": home.appendingPathComponent("state").path,
            ])
        }

        func shell(_ script: String) throws -> ToolResult {
            try ToolProcess.shell("cd '\(work.path)' && \(script)", environment: environment, timeout: 120)
        }

        func uris(of playlist: String) throws -> [String] {
            let result = try ToolProcess.run("spotify-tracks", ["--no-cache", playlist], environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            return try result.stdoutLines.compactMap { try JSONValue.parse($0)["uri"]?.stringValue }
        }

        func file(_ name: String) throws -> String {
            try String(contentsOfFile: work.path + "/" + name, encoding: .utf8)
        }
    }

    static let twenty = "gen" + String(repeating: "0", count: 17) + "20"

    final class XSPFCounter: NSObject, XMLParserDelegate {
        var tracks = 0
        var namespaces: Set<String> = []
        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            if let namespaceURI { namespaces.insert(namespaceURI) }
            if name == "track" && namespaceURI == "http://xspf.org/ns/0/" { tracks += 1 }
        }
    }

    @Test func theFourExportsOfATwentyItemPlaylistParse() throws {
        let desk = try Desk()
        let uris = try desk.uris(of: Self.twenty)
        #expect(uris.count == 20)
        let result = try desk.shell(
            """
            for f in m3u xspf jspf csv; do spotify-tracks --format $f \(Self.twenty) > playlist.$f || exit 1; done
            """)
        #expect(result.status == 0, "\(result.stderr)")

        let m3u = try desk.file("playlist.m3u").split(separator: "\n").map(String.init)
        #expect(m3u.first == "#EXTM3U")
        #expect(m3u.filter { $0.hasPrefix("#EXTINF:") }.count == 20)
        #expect(m3u.filter { !$0.hasPrefix("#") } == uris, "each #EXTINF followed by its URI, in order")
        for (index, line) in m3u.enumerated() where line.hasPrefix("#EXTINF:") {
            #expect(index + 1 < m3u.count && m3u[index + 1].hasPrefix("spotify:track:"))
        }

        let parser = XMLParser(data: Data(try desk.file("playlist.xspf").utf8))
        parser.shouldProcessNamespaces = true
        let counter = XSPFCounter()
        parser.delegate = counter
        #expect(parser.parse(), "\(String(describing: parser.parserError))")
        #expect(counter.tracks == 20 && counter.namespaces == ["http://xspf.org/ns/0/"])

        let jspf = try JSONSerialization.jsonObject(with: Data(try desk.file("playlist.jspf").utf8)) as? [String: Any]
        let tracks = (jspf?["playlist"] as? [String: Any])?["track"] as? [[String: Any]] ?? []
        #expect(tracks.count == 20)
        for (track, uri) in zip(tracks, uris) {
            #expect((track["identifier"] as? [String])?.contains(uri) == true)
        }

        let python = try ToolProcess.shell("command -v python3", environment: desk.environment)
        guard python.status == 0 else { return }  // no python3 here: the csv module cannot be asked
        let check = try desk.shell(
            """
            python3 -c 'import csv, json, sys
            rows = list(csv.DictReader(open("playlist.csv", newline="", encoding="utf-8")))
            print(json.dumps([[r["Track URI"], r["Track Name"], r["ISRC"]] for r in rows]))'
            """)
        #expect(check.status == 0, "\(check.stderr)")
        let rows = try JSONValue.parse(check.stdout).arrayValue ?? []
        #expect(rows.count == 20)
        #expect(rows.map { $0.arrayValue?[0].stringValue } == uris.map(Optional.some))
        #expect(rows.allSatisfy { row in row.arrayValue?.allSatisfy { !($0.stringValue ?? "").isEmpty } == true })
    }

    /// Exportify's CSV (quoted commas, CRLF, a BOM) into a new playlist: its six URIs in order,
    /// and not one search or track request, since every row says its URI, name and length.
    @Test func anExportifyCSVBecomesAPlaylistWithoutASearch() throws {
        let desk = try Desk()
        let uris = Array(try desk.uris(of: Self.twenty).prefix(6))
        var csv =
            "\u{FEFF}\"Track URI\",\"Track Name\",\"Artist URI(s)\",\"Artist Name(s)\",\"Album Name\","
            + "\"Track Duration (ms)\",\"Added By\",\"Added At\"\r\n"
        for (index, uri) in uris.enumerated() {
            csv +=
                "\"\(uri)\",\"Song \(index), with a comma\",\"\",\"Artist\\, One,Artist Two\",\"Album, \"\"Deluxe\"\"\","
                + "\"\(200_000 + index)\",\"\",\"2020-01-0\(index + 1)T00:00:00Z\"\r\n"
        }
        _ = try desk.work.file("exportify.csv", contents: csv)
        _ = try desk.fake.call("POST", "/_fake/reset-counters")
        let result = try desk.shell(
            "set -o pipefail; spotify-tracks --from csv exportify.csv | spotify-playlists create 'From Exportify'")
        #expect(result.status == 0, "\(result.stderr)")
        let playlist = try JSONValue.parse(try #require(result.stdoutLines.last))
        let counters = try desk.fake.counters()["requests"]?.objectValue ?? [:]
        #expect(counters["GET /v1/search"] == nil, "\(counters)")
        #expect(counters["GET /v1/tracks/{id}"] == nil, "\(counters)")
        let id = try #require(playlist["id"]?.stringValue)
        #expect(try desk.uris(of: id) == uris)
    }

    /// A JSPF export imported the same way makes the same playlist: every URI, in order.
    @Test func aJSPFExportRoundTripsThePlaylist() throws {
        let desk = try Desk()
        let uris = try desk.uris(of: Self.twenty)
        let result = try desk.shell(
            """
            set -o pipefail
            spotify-tracks --format jspf \(Self.twenty) > backup.jspf
            spotify-tracks --from backup.jspf | spotify-playlists create 'Round trip'
            """)
        #expect(result.status == 0, "\(result.stderr)")
        let playlist = try JSONValue.parse(try #require(result.stdoutLines.last))
        let id = try #require(playlist["id"]?.stringValue)
        #expect(try desk.uris(of: id) == uris)
    }
}
