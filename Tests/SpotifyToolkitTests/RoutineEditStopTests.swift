import Foundation
import Testing

@testable import FakeSpotify
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// routine-link edit, stop, a start that closes an abandoned session, and start/run --play
/// --device, in process against fake-spotify.
@Suite(.tags(.medium)) struct RoutineEditStopTests {
    /// A browser that opens nothing and succeeds, so no test starts a real one.
    static let quietBrowser = ["BROWSER": "true"]

    static func routineLink(_ library: Library, _ arguments: [String], stdin: String? = nil) async throws -> ToolRun {
        try await library.run("routine-link", arguments, stdin: stdin, environment: quietBrowser)
    }

    static func history(_ library: Library, human: Bool = false) async throws -> ToolRun {
        try await library.run(
            "routine-link", ["history"], environment: human ? ["SPOTIFY_TOOLKIT_FORCE_TTY": "1"] : [:])
    }

    // MARK: edit

    @Test func editChangesOnlyWhatIsGivenAndPrintsTheRoutine() async throws {
        let library = try await Library()
        let added = try await Self.routineLink(
            library, ["add", "morning", "--duration", "15m", "--note", "stretch"])
        #expect(added.status == 0, "\(added.stderr)")
        _ = try await Self.routineLink(library, ["add", "evening"])

        let longer = try await Self.routineLink(library, ["edit", "MORNING", "--duration", "20m"])
        #expect(longer.status == 0, "\(longer.stderr)")
        let routine = try #require(try records(longer).first)
        #expect(routine["type"] == "routine" && routine["name"] == "morning")
        #expect(routine["duration_ms"] == 1_200_000 && routine["note"] == "stretch")
        #expect(routine["created_at"] == (try records(added).first?["created_at"]))

        let noted = try records(try await Self.routineLink(library, ["edit", "morning", "--note", "coffee"]))
        #expect(noted.first?["note"] == "coffee" && noted.first?["duration_ms"] == 1_200_000)
        let cleared = try records(
            try await Self.routineLink(library, ["edit", "morning", "--duration", "none", "--note", ""]))
        #expect(cleared.first?["duration_ms"] == .null && cleared.first?["note"] == .null)
        _ = try await Self.routineLink(library, ["edit", "morning", "--duration", "10m"])
        let noDuration = try records(try await Self.routineLink(library, ["edit", "morning", "--no-duration"]))
        #expect(noDuration.first?["duration_ms"] == .null)

        let renamed = try await Self.routineLink(library, ["edit", "morning", "--rename", "Dawn"])
        #expect(try records(renamed).first?["name"] == "Dawn")
        let names = try records(try await Self.routineLink(library, ["list"])).compactMap { $0["name"]?.stringValue }
        #expect(names == ["Dawn", "evening"])

        // rename's rule: another routine's name is taken, whatever its case; nothing changes.
        let taken = try await Self.routineLink(library, ["edit", "dawn", "--rename", "EVENING", "--note", "x"])
        #expect(taken.status == 65)
        #expect(taken.stderr.contains("a routine named 'evening' already exists"), "\(taken.stderr)")
        let show = try records(try await Self.routineLink(library, ["show", "dawn"]))
        #expect(show.first?["note"] == .null)
    }

    @Test func editRefusesNothingToChangeBadValuesAndUnknownRoutines() async throws {
        let library = try await Library()
        _ = try await Self.routineLink(library, ["add", "morning", "--duration", "15m"])
        let nothing = try await Self.routineLink(library, ["edit", "morning"])
        #expect(nothing.status == 64)
        #expect(nothing.stderr.contains("nothing to change"), "\(nothing.stderr)")
        for bad in [
            ["edit", "morning", "--duration", "0"], ["edit", "morning", "--duration", "soon"],
            ["edit", "morning", "--duration", "20m", "--no-duration"], ["edit", "morning", "--rename", " "],
            ["edit", "nowhere"],
        ] {
            let result = try await Self.routineLink(library, bad)
            #expect(result.status == 64, "\(bad): \(result.stderr)")
        }
        let unknown = try await Self.routineLink(library, ["edit", "mornin", "--note", "x"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no routine named 'mornin' (known: 'morning')"), "\(unknown.stderr)")
        let routine = try records(try await Self.routineLink(library, ["show", "morning"])).first
        #expect(routine?["duration_ms"] == 900_000 && routine?["note"] == .null)
    }

    // MARK: stop and abandoned sessions

    @Test func stopEndsTheRunningSessionWithoutACount() async throws {
        let library = try await Library()
        _ = try await Self.routineLink(library, ["add", "morning", "--duration", "15m"])
        let idle = try await Self.routineLink(library, ["stop", "morning"])
        #expect(idle.status == 1)
        #expect(idle.stderr.contains("'morning' has no running session; nothing to stop"), "\(idle.stderr)")
        #expect(try await Self.routineLink(library, ["stop", "evening"]).status == 1)

        let started = try records(try await Self.routineLink(library, ["start", "morning"]))
        let stopped = try await Self.routineLink(library, ["stop", "Morning"])
        #expect(stopped.status == 0, "\(stopped.stderr)")
        let session = try #require(try records(stopped).first)
        #expect(session["type"] == "session" && session["routine"] == "morning")
        #expect(session["started_at"] == started.first?["started_at"])
        #expect(session["ended_at"] != .null && session["duration_ms"] != .null)
        #expect(session["songs"] == .null && session["label"] == "not logged")

        let history = try records(try await Self.history(library))
        #expect(history.count == 1 && history.allSatisfy { $0["ended_at"] != .null })
        let table = try await Self.history(library, human: true)
        #expect(!table.stdout.contains("running") && table.stdout.contains("not logged"), "\(table.stdout)")
        #expect(try await Self.routineLink(library, ["stop", "morning"]).status == 1, "stopped once")
        // A log now records a finished session of its own; the stopped one keeps no count.
        let count = #"{"type":"song_count","listened_ms":600000,"songs":2,"label":"2 songs"}"#
        #expect(try await Self.routineLink(library, ["log", "morning"], stdin: count + "\n").status == 0)
        // (It began ten minutes before now, so it sorts before the stopped one.)
        #expect(try records(try await Self.history(library)).map { $0["label"] } == ["not logged", "2 songs"])
    }

    @Test func aNewStartClosesTheAbandonedSessionAndSaysSoOnce() async throws {
        let library = try await Library()
        _ = try await Self.routineLink(library, ["add", "morning", "--duration", "15m"])
        let first = try await Self.routineLink(library, ["start", "morning"])
        #expect(first.status == 0 && !first.stderr.contains("closed"), "\(first.stderr)")
        let second = try await Self.routineLink(library, ["start", "morning"])
        #expect(second.status == 0, "\(second.stderr)")
        let said = second.stderr.split(separator: "\n").filter { $0.contains("closed the earlier session") }
        #expect(said.count == 1, "\(second.stderr)")
        #expect(said.first?.contains("never logged; history shows it as not logged") == true)

        // The second session is logged; the first, closed already, is never reported again.
        let count = #"{"type":"song_count","listened_ms":900000,"songs":4.5,"label":"4.5 songs"}"#
        #expect(try await Self.routineLink(library, ["log", "morning"], stdin: count + "\n").status == 0)
        let third = try await Self.routineLink(library, ["start", "morning"])
        #expect(third.status == 0, "\(third.stderr)")
        #expect(!third.stderr.contains("closed") && !third.stderr.contains("never logged"), "\(third.stderr)")

        let history = try records(try await Self.history(library))
        #expect(history.map { $0["label"] } == [.null, "4.5 songs", "not logged"])
        #expect(history.filter { $0["ended_at"] == .null }.count == 1, "only the session just started runs")
        let table = try await Self.history(library, human: true)
        #expect(table.stdout.components(separatedBy: "running").count == 2, "\(table.stdout)")
    }

    // MARK: --play --device

    /// A library whose login may control playback, with a playlist linked to "morning".
    static func playable() async throws -> Library {
        let library = try await Library(scope: PlayerControlTests.allScopes)
        try await library.fake.call("POST", "/_fake/playback")
        _ = try await routineLink(library, ["add", "morning", "--duration", "15m"])
        let linked = try await routineLink(library, ["link", "morning", generated(3)])
        #expect(linked.status == 0, "\(linked.stderr)")
        return library
    }

    static func playCommands(_ library: Library) async throws -> [JSONValue] {
        let commands = try await library.fake.call("GET", "/_fake/playback")["commands"]?.arrayValue ?? []
        return commands.filter { $0["path"] == "/v1/me/player/play" }
    }

    @Test func startPlayPlaysOnTheNamedDevice() async throws {
        let library = try await Self.playable()
        let started = try await Self.routineLink(library, ["start", "morning", "--play", "--device", "Kitchen"])
        #expect(started.status == 0, "\(started.stderr)")
        #expect(started.stderr.contains("on 'Kitchen'"), "\(started.stderr)")
        let play = try #require(try await Self.playCommands(library).last)
        #expect(play["device_id"]?.stringValue == PlayerControlTests.kitchen)
        #expect(play["body"]?["context_uri"]?.stringValue == "spotify:playlist:\(generated(3))")
        // A unique prefix, case-insensitively, as spotify-nowplaying play --device takes it.
        let prefix = try await Self.routineLink(library, ["start", "morning", "--play", "--device", "kit"])
        #expect(prefix.status == 0, "\(prefix.stderr)")
        #expect(try await Self.playCommands(library).count == 2)
        // Without --device: the active device, as before.
        _ = try await Self.routineLink(library, ["start", "morning", "--play"])
        #expect(try await Self.playCommands(library).last?["device_id"] == .null)
    }

    @Test func anUnknownDeviceOpensThePlaylistAndSaysWhy() async throws {
        let library = try await Self.playable()
        let started = try await Self.routineLink(library, ["start", "morning", "--play", "--device", "Garage"])
        #expect(started.status == 0, "\(started.stderr)")
        #expect(
            started.stderr.contains("could not start playback, opening the playlist instead: no device named 'Garage'"),
            "\(started.stderr)")
        #expect(try await Self.playCommands(library).isEmpty)
        #expect(try records(started).first?["type"] == "session")
    }

    @Test func deviceWithoutPlayIsAUsageError() async throws {
        let library = try await Self.playable()
        for arguments in [
            ["start", "morning", "--device", "Kitchen"], ["run", "morning", "--device", "Kitchen", "--for", "1s"],
        ] {
            let result = try await Self.routineLink(library, arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("--device goes with --play"), "\(result.stderr)")
        }
        #expect(try await Self.routineLink(library, ["start", "morning", "--play", "--device"]).status == 64)
        #expect(try records(try await Self.history(library)).isEmpty, "nothing started")
    }
}
