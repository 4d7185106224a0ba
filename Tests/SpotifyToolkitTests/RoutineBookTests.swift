import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

@Suite(.tags(.small)) struct RoutineBookTests {
    static let playlistID = "3cEYpjA9oz9GiPac4AsH4n"
    let t0 = "2026-11-22T08:00:00.000Z"

    @Test func namesAreCaseFoldedTrimmedAndUnique() throws {
        var book = RoutineBook()
        try book.add(name: "  Morning ", durationMs: 900_000, note: nil, now: t0)
        #expect(book.routines[0].name == "Morning")
        #expect(throws: ToolError.self) { try book.add(name: "MORNING", durationMs: nil, note: nil, now: t0) }
        try book.add(name: "Straße", durationMs: nil, note: nil, now: t0)
        #expect(book.index(of: "STRASSE") == 1)
        try book.add(name: "Caf\u{E9}", durationMs: nil, note: nil, now: t0)
        #expect(book.index(of: "CAFE\u{301}") == 2)  // canonical equivalence and case
        try book.add(name: "朝のルーティン 🌅", durationMs: nil, note: nil, now: t0)
        #expect(book.index(of: "朝のルーティン 🌅") == 3)
        for bad in ["", "   ", "a\nb", "tab\there", String(repeating: "x", count: 201)] {
            #expect(throws: ToolError.self) { try book.add(name: bad, durationMs: nil, note: nil, now: t0) }
        }
        let missing = #expect(throws: ToolError.self) { try book.existingIndex(of: "evening") }
        #expect(missing?.exitCode == .notFound)
        #expect(missing?.message.contains("'Morning'") == true)
    }

    @Test func renameKeepsSessionsAndRefusesAnotherRoutinesName() throws {
        var book = RoutineBook()
        try book.add(name: "morning", durationMs: nil, note: nil, now: t0)
        try book.add(name: "evening", durationMs: nil, note: nil, now: t0)
        _ = try book.start("morning", now: t0)
        try book.rename("MORNING", to: "Morning")  // a change of case is fine
        #expect(throws: ToolError.self) { try book.rename("Morning", to: "EVENING") }
        try book.rename("morning", to: "Dawn")
        #expect(book.routines[0].name == "Dawn")
        #expect(book.routines[0].sessions.count == 1)
        try book.remove("dawn")
        #expect(book.routines.map(\.name) == ["evening"])
    }

    @Test func startThenLogEndsTheRunningSession() throws {
        var book = RoutineBook()
        try book.add(name: "m", durationMs: 900_000, note: nil, now: t0)
        try book.link(
            "m", to: PlaylistLink(id: Self.playlistID, uri: "spotify:playlist:\(Self.playlistID)", name: "Mix"))
        let first = try book.start("m", now: t0, id: "one")
        #expect(first.closed.isEmpty)
        #expect(first.session.playlist?.name == "Mix")
        // Relinking later does not rewrite what the session played.
        try book.link("m", to: nil)
        let count = SongCountSummary(songs: 4.5, label: "4.5 songs", trackCount: 5, listenedMs: 900_000)
        let logged = try book.log("m", count: count, now: "2026-11-22T08:15:00.000Z")
        #expect(logged.session.id == "one")
        let record = logged.routine.record(of: logged.session).json
        #expect(record["duration_ms"] == 900_000)
        #expect(record["playlist"]?["name"] == "Mix")
        #expect(record["label"] == "4.5 songs")
        #expect(
            record.objectValue?.keys == [
                "type", "routine", "started_at", "ended_at", "duration_ms", "playlist", "songs", "label", "track_count",
                "listened_ms",
            ])
    }

    @Test func logWithoutARunningSessionRecordsAFinishedOne() throws {
        var book = RoutineBook()
        try book.add(name: "m", durationMs: 600_000, note: nil, now: t0)
        let fromCount = try book.log(
            "m", count: SongCountSummary(songs: 2, label: "2 songs", listenedMs: 300_000),
            now: "2026-11-22T09:00:00.000Z")
        #expect(fromCount.session.startedAt == "2026-11-22T08:55:00.000Z")
        let fromRoutine = try book.log(
            "m", count: SongCountSummary(songs: 1, label: "1 song"), now: "2026-11-22T10:00:00.000Z")
        #expect(fromRoutine.session.startedAt == "2026-11-22T09:50:00.000Z")
    }

    @Test func aSecondStartClosesTheUnloggedSessionOnceAndDiscardRemovesOnlyOne() throws {
        var book = RoutineBook()
        try book.add(name: "m", durationMs: nil, note: nil, now: t0)
        let first = try book.start("m", now: t0, id: "a")
        #expect(first.closed.isEmpty)
        let second = try book.start("m", now: "2026-11-22T09:00:00.000Z", id: "b")
        #expect(second.closed.map(\.id) == ["a"])
        let closed = book.routines[0].sessions[0]
        #expect(closed.endedAt == "2026-11-22T09:00:00.000Z" && closed.songs == nil)
        #expect(closed.label == RoutineSession.notLoggedLabel)
        // Logged, then started again: the session closed before is not reported again.
        _ = try book.log("m", count: SongCountSummary(songs: 1, label: "1 song"), now: "2026-11-22T09:10:00.000Z")
        let third = try book.start("m", now: "2026-11-22T10:00:00.000Z", id: "c")
        #expect(third.closed.isEmpty)
        #expect(book.routines[0].sessions.map(\.id) == ["a", "b", "c"])
        let discarded = book.discardSession("c")
        let again = book.discardSession("c")
        #expect(discarded && !again)
        #expect(book.routines[0].runningSessionIndex == nil)
    }

    @Test func stopClosesEveryRunningSessionWithoutACount() throws {
        // Two running sessions, as files written before start closed the earlier one hold them.
        let running = [
            RoutineSession(id: "a", startedAt: t0), RoutineSession(id: "b", startedAt: "2026-11-22T08:30:00.000Z"),
        ]
        var book = RoutineBook(routines: [Routine(name: "m", createdAt: t0, sessions: running)])
        let stopped = try book.stop("M", now: "2026-11-22T09:00:00.000Z")
        #expect(stopped.closed.map(\.id) == ["a", "b"])
        #expect(stopped.routine.sessions.allSatisfy { !$0.isRunning && $0.songs == nil && $0.label == "not logged" })
        let record = stopped.routine.record(of: stopped.closed[1]).json
        #expect(record["ended_at"] == "2026-11-22T09:00:00.000Z")
        #expect(record["duration_ms"] == 1_800_000)
        #expect(record["songs"] == .null && record["track_count"] == .null && record["listened_ms"] == .null)
        #expect(try book.history().allSatisfy { $0.session.endedAt != nil })
        // Nothing left to stop; an unknown routine is exit 1 with the names there are.
        #expect(try book.stop("m", now: "2026-11-22T09:05:00.000Z").closed.isEmpty)
        let unknown = #expect(throws: ToolError.self) { try book.stop("evening", now: t0) }
        #expect(unknown?.exitCode == .notFound && unknown?.message.contains("'m'") == true)
    }

    @Test func logTakesRunsOwnSessionEvenWhenItWasClosedMeanwhile() throws {
        var book = RoutineBook()
        try book.add(name: "m", durationMs: nil, note: nil, now: t0)
        _ = try book.start("m", now: t0, id: "run")
        _ = try book.start("m", now: "2026-11-22T08:05:00.000Z", id: "other")  // closes "run"
        let count = SongCountSummary(songs: 3, label: "3 songs", listenedMs: 600_000)
        let logged = try book.log("m", count: count, now: "2026-11-22T08:10:00.000Z", sessionID: "run")
        #expect(logged.session.id == "run" && logged.session.label == "3 songs")
        #expect(book.routines[0].sessions[1].isRunning, "the later start's session is left alone")
    }

    @Test func editChangesOnlyWhatIsGiven() throws {
        var book = RoutineBook()
        try book.add(name: "morning", durationMs: 900_000, note: "stretch", now: t0)
        try book.add(name: "evening", durationMs: nil, note: nil, now: t0)
        _ = try book.start("morning", now: t0)
        var edited = try book.edit("MORNING", RoutineEdit(durationMs: .set(1_200_000)))
        #expect(edited.durationMs == 1_200_000 && edited.note == "stretch" && edited.name == "morning")
        edited = try book.edit("morning", RoutineEdit(note: .set("coffee")))
        #expect(edited.durationMs == 1_200_000 && edited.note == "coffee")
        edited = try book.edit("morning", RoutineEdit(durationMs: .clear, note: .clear, name: "Dawn"))
        #expect(edited.durationMs == nil && edited.note == nil && edited.name == "Dawn")
        #expect(edited.sessions.count == 1 && edited.createdAt == t0)
        #expect(book.routines.map(\.name) == ["Dawn", "evening"])
        // Another routine's name is refused, and then nothing else changes either.
        let taken = #expect(throws: ToolError.self) {
            try book.edit("dawn", RoutineEdit(durationMs: .set(60_000), name: "EVENING"))
        }
        #expect(taken?.exitCode == .dataError)
        #expect(book.routines[0].durationMs == nil)
        let unknown = #expect(throws: ToolError.self) { try book.edit("morning", RoutineEdit(note: .set("x"))) }
        #expect(unknown?.exitCode == .notFound && unknown?.message.contains("'Dawn'") == true)
        #expect(RoutineEdit().isEmpty && !RoutineEdit(note: .clear).isEmpty)
    }

    @Test func historyIsNewestFirstAcrossRoutines() throws {
        var book = RoutineBook()
        try book.add(name: "a", durationMs: nil, note: nil, now: t0)
        try book.add(name: "b", durationMs: nil, note: nil, now: t0)
        _ = try book.start("a", now: "2026-11-22T08:00:00.000Z")
        _ = try book.start("b", now: "2026-11-22T09:00:00.000Z")
        _ = try book.start("a", now: "2026-11-22T10:00:00.000Z")
        #expect(
            try book.history().map(\.session.startedAt) == [
                "2026-11-22T10:00:00.000Z", "2026-11-22T09:00:00.000Z", "2026-11-22T08:00:00.000Z",
            ])
        #expect(try book.history(of: "A").count == 2)
        #expect(throws: ToolError.self) { try book.history(of: "c") }
    }

    @Test func forgetLinksClearsPlaylistsAndKeepsEverythingElse() throws {
        var book = RoutineBook()
        let link = PlaylistLink(id: Self.playlistID, uri: "spotify:playlist:\(Self.playlistID)", name: "Mix")
        for name in ["a", "b", "c"] { try book.add(name: name, durationMs: nil, note: "n", now: t0) }
        try book.link("a", to: link)
        try book.link("b", to: link)
        _ = try book.start("a", now: t0)
        let cleared = book.forgetLinks()
        #expect(cleared == 2)
        #expect(book.routines.allSatisfy { $0.playlist == nil && $0.note == "n" })
        #expect(book.routines[0].sessions.count == 1)
        let clearedAgain = book.forgetLinks()
        #expect(clearedAgain == 0)
    }

    @Test func playlistLinksFromRecordsObjectsAndIDs() throws {
        let record = try JSONValue.parse(
            #"{"type":"playlist","id":"3cEYpjA9oz9GiPac4AsH4n","uri":"spotify:playlist:3cEYpjA9oz9GiPac4AsH4n","name":"Morning","images":[{"url":"https://i.scdn.co/small","width":60},{"url":"https://i.scdn.co/large","width":640}]}"#
        )
        let link = try #require(PlaylistLink(playlistObject: record))
        #expect(link.name == "Morning")
        #expect(link.imageURL == "https://i.scdn.co/large")
        let nullImages = try #require(
            PlaylistLink(
                playlistObject: try JSONValue.parse(#"{"id":"3cEYpjA9oz9GiPac4AsH4n","name":"x","images":null}"#)))
        #expect(nullImages.imageURL == nil)
        #expect(nullImages.uri == "spotify:playlist:3cEYpjA9oz9GiPac4AsH4n")
        // A track record links a session of one song, with its album's cover and its duration.
        let track = try #require(
            PlaylistLink(
                playlistObject: try JSONValue.parse(
                    #"{"type":"track","id":"3cEYpjA9oz9GiPac4AsH4n","name":"Jolene","duration_ms":161000,"album":{"images":[{"url":"https://i.scdn.co/a","width":64}]}}"#
                )))
        #expect(track.uri == "spotify:track:3cEYpjA9oz9GiPac4AsH4n")
        #expect(track.kind == .track)
        #expect(track.webURL == "https://open.spotify.com/track/3cEYpjA9oz9GiPac4AsH4n")
        #expect(track.imageURL == "https://i.scdn.co/a")
        #expect(track.durationMs == 161000)
        #expect(
            PlaylistLink(playlistObject: try JSONValue.parse(#"{"type":"artist","id":"3cEYpjA9oz9GiPac4AsH4n"}"#))
                == nil
        )
        #expect(PlaylistLink(playlistObject: "spotify:playlist:3cEYpjA9oz9GiPac4AsH4n") == nil)
        #expect(link.record.objectValue?.keys == ["id", "uri", "name", "image_url", "duration_ms"])
        #expect(link.durationMs == nil && link.kind == .playlist)
    }

    @Test func songCountSummaryReadsOnlySongCountRecords() throws {
        let count = try #require(
            SongCountSummary(
                record: try JSONValue.parse(
                    #"{"type":"song_count","track_count":5,"listened_ms":900000,"songs":4.38,"label":"4.5 songs"}"#)))
        #expect(count == SongCountSummary(songs: 4.38, label: "4.5 songs", trackCount: 5, listenedMs: 900_000))
        #expect(SongCountSummary(record: try JSONValue.parse(#"{"type":"now_playing","songs":1}"#)) == nil)
        #expect(SongCountSummary(record: try JSONValue.parse(#"{"type":"song_count","songs":-1}"#)) == nil)
        #expect(SongCountSummary(record: try JSONValue.parse(#"{"type":"song_count","songs":1}"#))?.label == "1 song")
    }

    @Test func theStoreFormatRoundTripsAndVersion0Migrates() throws {
        let old =
            #"{"schema_version":0,"routines":{"morning":{"duration_seconds":900,"playlist_uri":"spotify:playlist:3cEYpjA9oz9GiPac4AsH4n","note":"n"},"Evening":{"playlist_uri":"garbage"}}}"#
        let book = try RoutineStore.migrate(from: 0, Data(old.utf8), now: t0)
        #expect(book.routines.map(\.name) == ["Evening", "morning"])
        #expect(book.routines[1].durationMs == 900_000)
        #expect(book.routines[1].playlist?.id == Self.playlistID)
        #expect(book.routines[0].playlist == nil)
        #expect(book.routines.allSatisfy { $0.createdAt == t0 && $0.sessions.isEmpty })
        #expect(throws: ToolError.self) { try RoutineStore.migrate(from: -3, Data("{}".utf8), now: t0) }
        let data = try JSONEncoder().encode(book)
        #expect(try JSONDecoder().decode(RoutineBook.self, from: data) == book)
    }

    @Test func openerCommandsAndLinks() {
        #expect(LinkOpener.commands(browser: nil, platformOpener: "xdg-open") == [#"xdg-open "$1""#])
        #expect(
            LinkOpener.commands(browser: "firefox --new-tab %s::w3m", platformOpener: "open")
                == [#"firefox --new-tab "$1""#, #"w3m "$1""#, #"open "$1""#])
        let link = PlaylistLink(id: Self.playlistID, uri: "spotify:playlist:\(Self.playlistID)")
        #expect(LinkOpener.playlistLink(link, schemeHasHandler: true) == "spotify:playlist:\(Self.playlistID)")
        #expect(
            LinkOpener.playlistLink(link, schemeHasHandler: false)
                == "https://open.spotify.com/playlist/\(Self.playlistID)")
    }
}
