import Foundation
import LoopbackHTTP
import Testing
import ToolkitCore

@testable import FakeSpotify

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Playlist writes against faults that do not carry the request out (`carry=no`), carry it out
/// late (`carry=late`), and reads that lag a write (`stale_read`); and what entries keep across
/// moves, removes and replaces. Every request closes its connection, so a client library cannot
/// quietly send a request again on a reused connection that was dropped (counted below).
@Suite(.tags(.medium)) struct WriteFaultTests {
    static let id = "gen0000000000000000010"
    static let itemsPath = "/v1/playlists/\(id)/items"
    static let scope = "playlist-read-private playlist-modify-private playlist-modify-public"

    /// A well-formed track URI fake-spotify knows as a made-up track.
    static func uri(_ index: Int) -> String {
        "spotify:track:" + GeneratedLibrary.objectID(seed: "write faults", index: index)
    }

    @Test(arguments: [
        ("reset", "no"), ("lost_answer", "no"), ("server_error", "no"), ("truncate", "no"), ("garbage", "no"),
        ("reset", "yes"), ("lost_answer", "yes"), ("server_error", "yes"), ("truncate", "yes"), ("garbage", "yes"),
    ])
    func carryNoLeavesThePlaylistAsItWasAndCarryYesChangesIt(kind: String, carry: String) async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.editToken()
        let before = try await fake.playlist(Self.id, token: token)
        try await fake.addFault([("kind", kind), ("at", "1"), ("carry", carry), ("path_prefix", Self.itemsPath)])

        let body: JSONValue = ["uris": [.string(Self.uri(1))]]
        // URLSession on Linux may notice a connection closed without an answer only at its
        // session's time-out (10 s), so a lost answer is sent on a socket of the test's own.
        let answer = kind == "lost_answer" ? nil : try? await fake.send("POST", Self.itemsPath, body, token: token)
        if kind == "lost_answer" {
            #expect(try !fake.sendAndGiveUp("POST", Self.itemsPath, body, token: token, after: 5))
        }
        switch kind {
        case "server_error": #expect(answer?.status == 503)
        case "garbage":
            #expect(answer.map { (try? $0.json()) == nil } == true, "half a JSON body")
            #expect(carry == "yes" ? answer?.status == 201 : answer?.status == 503, "no 2xx for a write not done")
        default: #expect(answer == nil, "the connection breaks")
        }
        let after = try await fake.playlist(Self.id, token: token)
        let counters = try await fake.counters()
        #expect(counters["requests"]?["POST /v1/playlists/{id}/items"] == 1, "sent once, not again by the client")
        if carry == "no" {
            #expect(after["snapshot_id"] == before["snapshot_id"])
            #expect(Self.uris(after) == Self.uris(before))
            #expect(counters["not_carried_out"] == 1)
        } else {
            #expect(after["snapshot_id"] != before["snapshot_id"])
            #expect(Self.uris(after) == Self.uris(before) + [Self.uri(1)])
            #expect(counters["not_carried_out"] == 0)
        }
        #expect(counters["faults_fired_by_kind"]?[kind] == 1)
        // The fault is used up: sending again lands.
        let again = try await fake.send("POST", Self.itemsPath, ["uris": [.string(Self.uri(2))]], token: token)
        #expect(again.status == 201)
        #expect(Self.uris(try await fake.playlist(Self.id, token: token)).last == Self.uri(2))
    }

    @Test func aLateWriteLandsAfterTheClientGaveUpOnThePlaylistAsItIsThen() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.editToken()
        let before = try await fake.playlist(Self.id, token: token)
        try await fake.addFault([
            ("kind", "lost_answer"), ("at", "1"), ("carry", "late"), ("late_ms", "1500"),
            ("path_prefix", Self.itemsPath),
        ])
        let sent = Date()
        let answered = try fake.sendAndGiveUp(
            "POST", Self.itemsPath, ["uris": [.string(Self.uri(1))]], token: token, after: 0.5)
        #expect(!answered, "held: the client times out")
        let counters = try await fake.counters()
        #expect(counters["requests"]?["POST /v1/playlists/{id}/items"] == 1, "counted as it arrived")
        let early = try await fake.playlist(Self.id, token: token)
        // Judged only when both reads surely came before the carry-out (1.5 s): on a loaded
        // machine the read itself can come after it.
        if Date().timeIntervalSince(sent) < 1.4 {
            #expect(counters["late_pending"] == 1)
            #expect(Self.uris(early) == Self.uris(before), "not yet")
        }
        // The client sends again (here another item, to tell them apart): it lands at once.
        let resent = try await fake.send("POST", Self.itemsPath, ["uris": [.string(Self.uri(2))]], token: token)
        #expect(resent.status == 201)
        // On a loaded machine the re-send itself may come after the carry-out: the order is
        // checked only when it surely came first.
        let resentInTime = Date().timeIntervalSince(sent) < 1.3

        #expect(try await fake.waitForLateWrites(1), "carried out within the deadline")
        #expect(Date().timeIntervalSince(sent) >= 1.4, "not before late_ms")
        let after = try await fake.playlist(Self.id, token: token)
        if resentInTime {
            #expect(
                Self.uris(after) == Self.uris(before) + [Self.uri(2), Self.uri(1)],
                "appended to the playlist as it was 1.5 s later, after the re-sent item")
        } else {
            #expect(Set(Self.uris(after).suffix(2)) == [Self.uri(1), Self.uri(2)])
        }
        let final = try await fake.counters()
        #expect(final["late_pending"] == 0)
        #expect(final["carried_out_late"] == 1)
    }

    @Test func aLateReplaceAnsweredWithA5xxWipesAWriteMadeMeanwhile() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.editToken()
        try await fake.addFault([
            ("kind", "server_error"), ("at", "1"), ("carry", "late"), ("late_ms", "800"),
            ("path_prefix", Self.itemsPath),
        ])
        let sent = Date()
        let replaced = try await fake.send(
            "PUT", Self.itemsPath, ["uris": [.string(Self.uri(1)), .string(Self.uri(2))]], token: token)
        #expect(replaced.status == 503, "the breakage comes at once")
        let added = try await fake.send("POST", Self.itemsPath, ["uris": [.string(Self.uri(3))]], token: token)
        #expect(added.status == 201)
        // On a loaded machine the add may itself come after the carry-out: the wipe is checked
        // only when the add surely came first.
        let addedInTime = Date().timeIntervalSince(sent) < 0.6
        if addedInTime {
            #expect(Self.uris(try await fake.playlist(Self.id, token: token)).count == 11, "the add, not the replace")
        }
        #expect(try await fake.waitForLateWrites(1))
        let final = Self.uris(try await fake.playlist(Self.id, token: token))
        if addedInTime {
            #expect(final == [Self.uri(1), Self.uri(2)])
        } else {
            #expect(final == [Self.uri(1), Self.uri(2)] || final == [Self.uri(1), Self.uri(2), Self.uri(3)])
        }
    }

    @Test func aStaleReadServesTheVersionBeforeTheLastWriteThenTheCurrentOne() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.editToken()
        let library = try await fake.playlist(Self.id, token: token)
        // A rule that lags reads of a written playlist: nothing written yet, so nothing lags.
        try await fake.addFault([("kind", "stale_read"), ("every", "1"), ("path_prefix", "/v1/playlists/")])
        #expect(try await fake.playlist(Self.id, token: token)["snapshot_id"] == library["snapshot_id"])
        #expect(try await fake.counters()["stale_reads"] == 0)
        _ = try await fake.post("/_fake/clear-faults")

        for index in 1...2 {
            let added = try await fake.send("POST", Self.itemsPath, ["uris": [.string(Self.uri(index))]], token: token)
            #expect(added.status == 201)
        }
        let current = try await fake.playlist(Self.id, token: token)
        try await fake.addFault([("kind", "stale_read"), ("at", "1+2"), ("path_prefix", "/v1/playlists/")])
        let stale = try await fake.playlist(Self.id, token: token)
        #expect(stale["snapshot_id"] != current["snapshot_id"])
        #expect(stale["items"]?["total"] == 11, "one write back, not two")
        #expect(Self.uris(stale) == Self.uris(library) + [Self.uri(1)])
        let staleItems = try await fake.get(Self.itemsPath + "?limit=50", token: token).json()
        #expect(staleItems["total"] == 11, "the items lag too")
        let fresh = try await fake.playlist(Self.id, token: token)
        #expect(fresh["snapshot_id"] == current["snapshot_id"])
        #expect(Self.uris(fresh) == Self.uris(library) + [Self.uri(1), Self.uri(2)])
        #expect(try await fake.counters()["stale_reads"] == 2)

        // The first write's previous version is the library's, under its own snapshot_id.
        let other = "gen0000000000000000020"
        let untouched = try await fake.playlist(other, token: token)
        let write = try await fake.send(
            "POST", "/v1/playlists/\(other)/items", ["uris": [.string(Self.uri(9))]], token: token)
        #expect(write.status == 201)
        try await fake.addFault([("kind", "stale_read"), ("at", "1"), ("path_prefix", "/v1/playlists/\(other)")])
        let lagging = try await fake.playlist(other, token: token)
        #expect(lagging["snapshot_id"] == untouched["snapshot_id"])
        #expect(Self.uris(lagging) == Self.uris(untouched))
        #expect(lagging["items"]?["total"] == 20)
    }

    @Test func entriesKeepAddedAtAndAddedByAcrossMovesAndRemovesButNotAReplace() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.editToken()
        let added = try await fake.send(
            "POST", Self.itemsPath, ["uris": [.string(Self.uri(1)), .string(Self.uri(2))], "position": 0], token: token)
        #expect(added.status == 201)
        let start = try await fake.entries(Self.id, token: token)
        #expect(start.count == 12)
        for entry in start.prefix(2) {
            let addedAt = try #require(entry["added_at"]?.stringValue)
            #expect(!addedAt.contains("."), "whole seconds, as Spotify writes them: \(addedAt)")
            let seconds = try #require(parseISOTimestamp(addedAt))
            #expect(abs(seconds - Date().timeIntervalSince1970) < 30, "added now")
        }
        // The two added now are the user's; the library's own are whoever added them (the 5th a collaborator).
        for (offset, entry) in start.enumerated() {
            let user = entry["added_by"]
            let adder = try #require(offset < 2 ? GeneratedLibrary.userID : GeneratedLibrary.adder(offset - 2))
            #expect(user?["id"] == .string(adder))
            #expect(user?["type"] == "user")
            #expect(user?["uri"] == .string("spotify:user:\(adder)"))
            #expect(user?["href"]?.stringValue != nil && user?["external_urls"]?["spotify"]?.stringValue != nil)
        }
        #expect(start[2]["added_at"] == "2025-01-01T00:00:00Z", "the library's own date")

        let moved = try await fake.send(
            "PUT", Self.itemsPath, ["range_start": 0, "range_length": 2, "insert_before": 7], token: token)
        #expect(moved.status == 200)
        #expect(start[6]["added_by"]?["id"] == .string(GeneratedLibrary.collaboratorID))
        let removed = try await fake.send(
            "DELETE", Self.itemsPath, ["items": [["uri": start[3]["item"]?["uri"] ?? .null]]], token: token)
        #expect(removed.status == 200)
        let after = try await fake.entries(Self.id, token: token)
        #expect(after.count == 11)
        let byURI = Dictionary(start.map { (Self.uri(of: $0), $0) }, uniquingKeysWith: { first, _ in first })
        for entry in after {
            let original = try #require(byURI[Self.uri(of: entry)])
            #expect(entry == original, "moved or left in place, an entry is the same entry")
        }
        // Two moved before item 7 as it was (the library's 5th), then the library's 2nd removed.
        let expected = [start[2], start[4], start[5], start[6], start[0], start[1]] + start[7...]
        #expect(after.map(Self.uri(of:)) == expected.map(Self.uri(of:)))

        // Dated between just before the replace and now (whole seconds), however long a loaded
        // machine took over it (a fixed 30 s window failed under load).
        let sent = Date().timeIntervalSince1970.rounded(.down)
        let replaced = try await fake.send(
            "PUT", Self.itemsPath, ["uris": .array(after.map { .string(Self.uri(of: $0)) })], token: token)
        #expect(replaced.status == 200)
        let renewed = try await fake.entries(Self.id, token: token)
        #expect(renewed.map(Self.uri(of:)) == after.map(Self.uri(of:)))
        let now = Date().timeIntervalSince1970
        #expect(
            renewed.allSatisfy { entry in
                entry["added_at"]?.stringValue.flatMap(parseISOTimestamp).map { (sent...now).contains($0) } == true
            }, "every entry is new")
        #expect(renewed.allSatisfy { $0["added_by"]?["id"] == .string(GeneratedLibrary.userID) })
    }

    /// range_start, range_length, insert_before → the new order of items 0...9 (nil: 400).
    @Test(
        arguments: [
            (0, 1, 10, [1, 2, 3, 4, 5, 6, 7, 8, 9, 0]),  // the reference: the first to the end
            (9, 1, 0, [9, 0, 1, 2, 3, 4, 5, 6, 7, 8]),  // the reference: the last to the start
            (2, 3, 7, [0, 1, 5, 6, 2, 3, 4, 7, 8, 9]),  // forward: before item 7 as it was
            (5, 2, 1, [0, 5, 6, 1, 2, 3, 4, 7, 8, 9]),  // backward: before item 1
            (3, 2, 3, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),  // before itself: no change
            (3, 2, 5, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),  // right after itself: no change
            (0, 2, 10, [2, 3, 4, 5, 6, 7, 8, 9, 0, 1]),  // the reference's range: the first two to the end
            (8, 2, 0, [8, 9, 0, 1, 2, 3, 4, 5, 6, 7]),  // the last two to the start
            (0, 5, 10, [5, 6, 7, 8, 9, 0, 1, 2, 3, 4]),  // a block of half: the halves swap
            (6, 4, 2, [0, 1, 6, 7, 8, 9, 2, 3, 4, 5]),  // a block to the end's range moved back
            (0, 10, 0, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),  // the whole playlist before itself: no change
            (3, 3, 4, nil), (0, 1, 11, nil), (10, 1, 0, nil), (8, 3, 0, nil), (3, 0, 5, nil), (2, -1, 5, nil),
        ] as [(Int, Int, Int, [Int]?)])
    func rangeMovesCountInsertBeforeInThePlaylistBeforeTheMove(
        start: Int, length: Int, insertBefore: Int, expected: [Int]?
    ) async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.editToken()
        let original = try await fake.entries(Self.id, token: token).map(Self.uri(of:))
        #expect(original.count == 10)
        let body: JSONValue = [
            "range_start": .int(start), "range_length": .int(length), "insert_before": .int(insertBefore),
            "snapshot_id": "an older snapshot, which Spotify does not refuse",
        ]
        let reply = try await fake.send("PUT", Self.itemsPath, body, token: token)
        let now = try await fake.entries(Self.id, token: token).map(Self.uri(of:))
        if let expected {
            #expect(reply.status == 200, "\(reply.text)")
            #expect(try reply.json()["snapshot_id"]?.stringValue?.isEmpty == false)
            #expect(now == expected.map { original[$0] })
        } else {
            #expect(reply.status == 400, "\(reply.text)")
            #expect(now == original)
        }
    }

    /// Without range_length a move takes one item, as the reference's default says.
    @Test func aMoveWithoutRangeLengthMovesOneItem() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.editToken()
        let original = try await fake.entries(Self.id, token: token).map(Self.uri(of:))
        let reply = try await fake.send("PUT", Self.itemsPath, ["range_start": 2, "insert_before": 6], token: token)
        #expect(reply.status == 200, "\(reply.text)")
        let now = try await fake.entries(Self.id, token: token).map(Self.uri(of:))
        #expect(now == [0, 1, 3, 4, 5, 2, 6, 7, 8, 9].map { original[$0] })
        let bad = try await fake.send(
            "PUT", Self.itemsPath, ["range_start": 2, "insert_before": 6, "range_length": "2"], token: token)
        #expect(bad.status == 400, "a range_length that is not a number is refused, not taken for 1")
        #expect(try await fake.entries(Self.id, token: token).map(Self.uri(of:)) == now)
    }

    /// position → where the added item lands among items 0...9 (nil: 400, nothing added).
    @Test(arguments: [(0, 0), (3, 3), (10, 10), (nil, 10), (11, nil), (-1, nil)] as [(Int?, Int?)])
    func addingAtAPositionInsertsBeforeTheItemThere(position: Int?, lands: Int?) async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let token = try await fake.editToken()
        let original = try await fake.entries(Self.id, token: token).map(Self.uri(of:))
        var body: JSONObject = ["uris": [.string(Self.uri(1))]]
        if let position { body["position"] = .int(position) }
        let reply = try await fake.send("POST", Self.itemsPath, .object(body), token: token)
        let now = try await fake.entries(Self.id, token: token).map(Self.uri(of:))
        if let lands {
            #expect(reply.status == 201, "\(reply.text)")
            var expected = original
            expected.insert(Self.uri(1), at: lands)
            #expect(now == expected)
        } else {
            #expect(reply.status == 400)
            #expect(now == original)
        }
    }

    @Test(arguments: [
        [("kind", "reset"), ("at", "1"), ("carry", "late")],
        [("kind", "reset"), ("at", "1"), ("late_ms", "100")],
        [("kind", "reset"), ("at", "1"), ("carry", "no"), ("late_ms", "100")],
        [("kind", "reset"), ("at", "1"), ("carry", "maybe")],
        [("kind", "reset"), ("at", "1"), ("carry", "late"), ("late_ms", "600001")],
        [("kind", "rate_limit"), ("at", "1"), ("carry", "yes")],
        [("kind", "quota"), ("at", "1"), ("carry", "late"), ("late_ms", "10")],
        [("kind", "delay"), ("at", "1"), ("carry", "no")],
        [("kind", "stale_read"), ("at", "1"), ("carry", "no")],
    ])
    func carryFieldsThatDoNotFitTheKindAreRefused(fields: [(String, String)]) async throws {
        let fake = try Fake()
        defer { fake.stop() }
        let reply = try await fake.post("/_fake/faults", fields)
        #expect(reply.status == 400, "\(reply.text)")
        #expect(try reply.json()["error"]?.stringValue?.isEmpty == false)
    }

    @Test func rulesListTheirCarry() async throws {
        let fake = try Fake()
        defer { fake.stop() }
        try await fake.addFault([("kind", "lost_answer"), ("every", "2"), ("carry", "late"), ("late_ms", "250")])
        try await fake.addFault([("kind", "rate_limit"), ("every", "3")])
        try await fake.addFault([("kind", "stale_read"), ("rate", "0.5")])
        let listed = try #require(try await fake.get("/_fake/faults").json()["faults"]?.arrayValue)
        #expect(listed.map { $0["carry"] } == ["late", "no", nil])
        #expect(listed.map { $0["late_ms"] } == [250, nil, nil])
        #expect(try FaultRule(launchSpec: "kind=truncate,at=2,carry=no").carry == .no)
        #expect(try FaultRule(launchSpec: "kind=garbage at=2").carry == .yes, "the default, as before")
    }

    // MARK: Helpers

    static func uri(of entry: JSONValue) -> String { entry["item"]?["uri"]?.stringValue ?? "" }

    /// The URIs of the first page embedded in a playlist object.
    static func uris(_ playlist: JSONValue) -> [String] {
        (playlist["items"]?["items"]?.arrayValue ?? []).map(uri(of:))
    }
}

extension Fake {
    /// An access token that may change the user's playlists.
    func editToken() async throws -> String {
        try await post("/_fake/tokens", [("scope", WriteFaultTests.scope)]).json().string("access_token")
    }

    func addFault(_ fields: [(String, String)]) async throws {
        let reply = try await post("/_fake/faults", fields)
        #expect(reply.status == 200, "\(reply.text)")
    }

    /// A Web API request with a JSON body, on a connection of its own.
    func send(
        _ method: String, _ path: String, _ body: JSONValue, token: String, timeout: TimeInterval = 10
    ) async throws -> Reply {
        try await HTTPTestClient.fetch(
            url(path), method: method, body: Data(body.serialized().utf8),
            headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json", "Connection": "close"],
            timeout: timeout)
    }

    /// `GET /v1/playlists/{id}` (with its first 100 entries embedded).
    func playlist(_ id: String, token: String) async throws -> JSONValue {
        let reply = try await HTTPTestClient.fetch(
            url("/v1/playlists/\(id)"), headers: ["Authorization": "Bearer \(token)", "Connection": "close"])
        #expect(reply.status == 200, "\(reply.text)")
        return try reply.json()
    }

    /// Every entry of a playlist, read page by page from `/items`.
    func entries(_ id: String, token: String) async throws -> [JSONValue] {
        var entries: [JSONValue] = []
        for _ in 0..<200 {  // 10,000 items at most
            let reply = try await HTTPTestClient.fetch(
                url("/v1/playlists/\(id)/items?offset=\(entries.count)&limit=50"),
                headers: ["Authorization": "Bearer \(token)", "Connection": "close"])
            let page = try #require(try reply.json()["items"]?.arrayValue)
            entries += page
            if page.count < 50 { break }
        }
        return entries
    }

    /// Sends one request on a connection of its own and gives up after `seconds` without a byte
    /// of an answer, closing the connection, as a client with that time-out does (URLSession on
    /// Linux rounds time-outs to seconds). True when an answer began first.
    func sendAndGiveUp(
        _ method: String, _ path: String, _ body: JSONValue, token: String, after seconds: Double
    ) throws -> Bool {
        let payload = Array(body.serialized().utf8)
        let head =
            "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nAuthorization: Bearer \(token)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(payload.count)\r\nConnection: close\r\n\r\n"
        let request = Array(head.utf8) + payload
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = server.port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(connected == 0)
        #if canImport(Glibc)
        let written = request.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
        #else
        let written = request.withUnsafeBytes { Darwin.send(fd, $0.baseAddress, $0.count, 0) }
        #endif
        try #require(written == request.count)
        var waiting = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        guard poll(&waiting, 1, Int32(seconds * 1000)) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) == 1
    }

    /// Polls the counters until `count` late requests were carried out; false after 10 s.
    func waitForLateWrites(_ count: Int) async throws -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if try await counters()["carried_out_late"]?.intValue ?? 0 >= count { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }
}
