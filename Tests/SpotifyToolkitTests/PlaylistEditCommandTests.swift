import Foundation
import Testing

@testable import FakeSpotify
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Writes that never destroy: least-change replace that keeps every date, dedupe,
/// sort, rewrite and undo in one process, the guard against a read cut short, and lost answers
/// settled by what only the write could have done. In-process against fake-spotify.
@Suite(.tags(.medium)) struct PlaylistEditCommandTests {
    /// Settling reads wait 0.05 s here instead of 1 s.
    static let quick = ["SPOTIFY_TOOLKIT_SETTLE_PAUSE": "0.05"]

    struct Entry: Equatable {
        var uri: String?
        var addedAt: String?
    }

    /// What the playlist holds, entry by entry, with each entry's date added.
    static func entries(_ library: Library, _ id: String) async throws -> [Entry] {
        let run = try await library.tracks(["--no-cache", "--raw", id])
        #expect(run.status == 0 || run.status == 1, "\(run.stderr)")
        return try records(run).map { entry in
            Entry(uri: PlaylistContents.writableURI(entry), addedAt: entry["added_at"]?.stringValue)
        }
    }

    static func lines(_ uris: [String]) -> String { uris.map { $0 + "\n" }.joined() }

    static func requests(_ library: Library, _ route: String) async throws -> Int {
        try await library.counters()["requests"]?[route]?.intValue ?? 0
    }

    @Test func replaceSendsOnlyTheDifferenceAndEveryItemThatStaysKeepsItsDate() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(300)
        let before = try await Self.entries(library, id)
        let extra = try await PlaylistWriteTests.uris(library, generated(20))
        // A 10% scattered filter, one item moved to the end, two new items after the first.
        var wanted = before.enumerated().filter { $0.offset % 10 != 3 }.compactMap(\.element.uri)
        wanted.append(wanted.remove(at: 5))
        wanted.insert(contentsOf: extra.prefix(2), at: 1)
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        let run = try await library.run("spotify-playlists", ["replace", id], stdin: Self.lines(wanted))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stderr.contains("300 → 272 items: 30 removed, 2 added, 1 moved, dates kept for 270; 3 requests"),
            "\(run.stderr)")
        #expect(run.stderr.contains("undo with: spotify-playlists undo \(id)"), "\(run.stderr)")
        #expect(try records(run).first?["items_total"] == 272)
        let after = try await Self.entries(library, id)
        #expect(after.compactMap(\.uri) == wanted)
        let dates = Dictionary(before.map { ($0.uri!, $0.addedAt) }, uniquingKeysWith: { first, _ in first })
        for entry in after where !extra.prefix(2).contains(entry.uri!) {
            #expect(entry.addedAt == dates[entry.uri!]!, "\(entry.uri!) keeps its date")
        }
        #expect(try await Self.requests(library, "DELETE /v1/playlists/{id}/items") == 1)
        #expect(try await Self.requests(library, "PUT /v1/playlists/{id}/items") == 1, "one range move")
        #expect(try await Self.requests(library, "POST /v1/playlists/{id}/items") == 1)
    }

    /// Removing 1 item of a 100-item playlist is at most 4 requests of the daily quota:
    /// the object (its snapshot_id with every entry, one answer), the DELETE, the read-back, the
    /// record (it was 8, with a snapshot and total check before and after each read).
    @Test func removingOneItemOfAHundredCostsFourRequests() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(100)
        let before = try await Self.entries(library, id)
        let gone = try #require(before[40].uri)
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        let run = try await library.run("spotify-playlists", ["remove", id], stdin: gone + "\n")
        #expect(run.status == 0, "\(run.stderr)")
        let counted = try await library.counters()["requests"] ?? .null
        let sent = counted.objectValue?.values.compactMap(\.intValue) ?? []
        #expect(sent.reduce(0, +) <= 4, "\(counted)")
        #expect(try await Self.requests(library, "DELETE /v1/playlists/{id}/items") == 1)
        let after = try await Self.entries(library, id)
        #expect(after.compactMap(\.uri) == before.compactMap(\.uri).filter { $0 != gone })
    }

    @Test func dryRunPrintsThePlanAsChangeRecordsAndWritesNothing() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(30)
        let before = try await PlaylistWriteTests.uris(library, id)
        let wanted = Array(before.dropFirst(2)) + [before[0]]
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        let run = try await library.run("spotify-playlists", ["replace", "--dry-run", id], stdin: Self.lines(wanted))
        #expect(run.status == 0, "\(run.stderr)")
        let changes = try records(run)
        #expect(changes.map { $0["action"]?.stringValue } == ["remove", "move"], "\(changes)")
        #expect(changes[0]["items"] == .array([.string(before[1])]))
        #expect(changes[1]["range_start"] == 0 && changes[1]["insert_before"] == 29 && changes[1]["range_length"] == 1)
        for route in ["DELETE", "PUT", "POST"] {
            #expect(try await Self.requests(library, "\(route) /v1/playlists/{id}/items") == 0)
        }
        #expect(try await PlaylistWriteTests.uris(library, id) == before)
    }

    /// The review's scenario (ux-newcomer-2, finding 1): an outage on the items path cuts
    /// spotify-tracks short; the README's old dedupe pipeline feeds what it printed to replace.
    @Test func aReadCutShortCannotShrinkThePlaylist() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(1000)
        let before = try await Self.entries(library, id)
        try await library.fault([
            ("kind", "server_error"), ("every", "1"), ("count", "400"), ("path_prefix", "/v1/playlists/\(id)/items"),
        ])
        let read = try await library.tracks(["--no-cache", id])
        #expect(read.status == 69, "the read failed: \(read.stderr)")
        let partial = try records(read)
        #expect(partial.count < 1000 && !partial.isEmpty, "\(partial.count)")
        _ = try await library.fake.call("POST", "/_fake/clear-faults")
        // jq -sc 'unique_by(.uri) | sort_by(.position) | .[]'
        var seen = Set<String>()
        let deduped = partial.filter { seen.insert($0["uri"]?.stringValue ?? "").inserted }
        let input = deduped.map { $0.serialized() + "\n" }.joined()
        let refused = try await library.run(
            "spotify-playlists", ["replace", id], stdin: input, environment: Self.quick)
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("a read cut short"), "\(refused.stderr)")
        // The hint says what --force does: it removes what the read never reached.
        let lost = groupedThousands(1000 - partial.count)
        #expect(refused.stderr.contains("with --force, replace removes those \(lost) items"), "\(refused.stderr)")
        #expect(try await Self.entries(library, id) == before, "nothing was written")

        // Asked for in so many words, it is written, and undo puts the whole playlist back.
        let forced = try await library.run(
            "spotify-playlists", ["replace", "--force", id], stdin: input, environment: Self.quick)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try await PlaylistWriteTests.uris(library, id).count == partial.count)
        let undone = try await library.run("spotify-playlists", ["undo", id], environment: Self.quick)
        #expect(undone.status == 0, "\(undone.stderr)")
        let after = try await Self.entries(library, id)
        #expect(after.map(\.uri) == before.map(\.uri))
        #expect(
            Array(after.prefix(partial.count)) == Array(before.prefix(partial.count)),
            "the items never removed keep their dates")
    }

    /// `spotify-tracks` skips unavailable items always and local files with --no-local,
    /// so a whole read of a playlist that ends in 50 or more of them stops as early as a read cut
    /// short would; the guard counts them as read, and the same items are written back unchanged.
    @Test func aPlaylistEndingInEntriesTheReaderSkipsIsNotAReadCutShort() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(400, "mix")
        let mixed = try await Self.entries(library, id)
        // Every track and episode after the first 100 entries goes: 60 local files and unavailable
        // items stay, at the end.
        let tail = mixed.dropFirst(100).compactMap(\.uri)
        let removed = try await library.run(
            "spotify-playlists", ["remove", id], stdin: Self.lines(tail), environment: Self.quick)
        #expect(removed.status == 0, "\(removed.stderr)")
        let before = try await Self.entries(library, id)
        #expect(before.count == 160 && before.dropFirst(100).allSatisfy { $0.uri == nil }, "\(before.count)")

        let read = try await library.tracks(["--no-cache", "--no-local", id])
        #expect(read.status == 0 || read.status == 1, "\(read.stderr)")
        #expect(try records(read).last?["position"] == 99, "the read stops 60 entries before the end")
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        let replaced = try await library.run(
            "spotify-playlists", ["replace", id], stdin: read.stdout, environment: Self.quick)
        #expect(replaced.status == 0, "\(replaced.stderr)")
        for route in ["DELETE", "PUT", "POST"] {
            #expect(try await Self.requests(library, "\(route) /v1/playlists/{id}/items") == 0)
        }
        #expect(try await Self.entries(library, id) == before)
    }

    @Test func dedupeKeepsEachSongsFirstOccurrenceAndOnlyThoseLoseTheirDates() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(50)
        let original = try await Self.entries(library, id)
        let uris = original.compactMap(\.uri)
        let added = try await library.run("spotify-playlists", ["add", id], stdin: Self.lines([uris[3], uris[7]]))
        #expect(added.status == 0, "\(added.stderr)")
        let run = try await library.run("spotify-playlists", ["dedupe", id], environment: Self.quick)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stderr.contains(
                "52 → 50 items: 2 removed, 2 re-added once with today's date, dates kept for 48"),
            "\(run.stderr)")
        let after = try await Self.entries(library, id)
        #expect(after.map(\.uri) == original.map(\.uri))
        for (index, entry) in after.enumerated() {
            if [3, 7].contains(index) {
                #expect(entry.addedAt != original[index].addedAt, "re-added: a new date")
            } else {
                #expect(entry.addedAt == original[index].addedAt)
            }
        }
        let again = try await library.run("spotify-playlists", ["dedupe", id])
        #expect(again.stderr.contains("nothing to change"), "\(again.stderr)")
    }

    @Test func sortIsStableKeepsEveryDateAndMovesTheFewest() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(60)
        let raw = try records(try await library.tracks(["--no-cache", "--raw", id]))
        let before = try await Self.entries(library, id)
        let byDuration = raw.indices.sorted { left, right in
            let (a, b) = (
                raw[left]["item"]?["duration_ms"]?.intValue ?? 0, raw[right]["item"]?["duration_ms"]?.intValue ?? 0
            )
            return a == b ? left < right : a < b
        }
        let plan = PlaylistEditPlan(from: before.map(\.uri), to: byDuration.map { before[$0].uri! })
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        let run = try await library.run("spotify-playlists", ["sort", id, "--by", "duration"], environment: Self.quick)
        #expect(run.status == 0, "\(run.stderr)")
        let after = try await Self.entries(library, id)
        #expect(after == byDuration.map { before[$0] }, "sorted, every date kept")
        #expect(try await Self.requests(library, "PUT /v1/playlists/{id}/items") == plan.moveRequests)
        #expect(plan.movedEntries <= 60 - PlaylistEditPlanTests.lisLength(byDuration))

        // Too many moves for the bound: refused, naming --reset-dates; nothing written.
        let bounded = try await library.run("spotify-playlists", ["sort", id, "--by", "name", "--max-moves", "2"])
        #expect(bounded.status == 64, "\(bounded.stderr)")
        #expect(bounded.stderr.contains("add --reset-dates"), "\(bounded.stderr)")
        #expect(try await Self.entries(library, id) == after)
        // --reset-dates rewrites it afresh: one PUT for 60 items, and new dates.
        let fresh = try await library.run(
            "spotify-playlists", ["sort", id, "--by", "name", "--reverse", "--reset-dates"], environment: Self.quick)
        #expect(fresh.status == 0, "\(fresh.stderr)")
        #expect(fresh.stderr.contains("every item's date added becomes now"), "\(fresh.stderr)")
        let names = try records(try await library.tracks(["--no-cache", id])).compactMap { $0["name"]?.stringValue }
        #expect(names == names.sorted { $0.lowercased() > $1.lowercased() })
        #expect(try await Self.entries(library, id).allSatisfy { !before.map(\.addedAt).contains($0.addedAt) })
    }

    /// A long write is not silent on a terminal: "N/M requests" is redrawn while it is sent, and
    /// cleared before the result is said.
    @Test func aLongWriteCountsItsRequestsOnATerminal() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(60)
        let before = try await Self.entries(library, id)
        // Each write takes 30 ms, so the line is drawn while they are sent, however the run is scheduled.
        try await library.fault([
            ("kind", "delay"), ("delay_ms", "30"), ("rate", "1"), ("path_prefix", "/v1/playlists/"),
        ])
        let run = try await library.fake.run(
            "spotify-playlists", ["sort", id, "--by", "name", "--reverse"], environment: Self.quick,
            terminal: Terminal(stdinIsTerminal: false, stdoutIsTerminal: false, stderrIsTerminal: true))
        #expect(run.status == 0, "\(run.stderr)")
        let planned = try #require(
            run.stderr.firstMatch(of: /; (\d+) requests\n/).flatMap { Int($0.1) }, "\(run.stderr)")
        #expect(planned > 3)
        #expect(run.stderr.contains("/\(planned) requests\u{1B}[K"), "\(run.stderr.debugDescription)")
        let drawn = run.stderr.split(separator: "\r").dropFirst()
        #expect(drawn.last?.hasPrefix("\u{1B}[K") == true, "cleared: \(run.stderr.debugDescription)")
        #expect(drawn.dropLast().allSatisfy { $0.hasSuffix(" requests\u{1B}[K") }, "\(run.stderr.debugDescription)")
        #expect(try await Self.entries(library, id).count == before.count)
        // In a pipe, nothing is drawn.
        let piped = try await library.run(
            "spotify-playlists", ["sort", id, "--by", "name"], environment: Self.quick)
        #expect(piped.status == 0 && !piped.stderr.contains("\r"), "\(piped.stderr.debugDescription)")
    }

    @Test func rewriteAppliesWhatTheCommandPrintsAndAFailingCommandWritesNothing() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(30)
        let before = try await Self.entries(library, id)
        let kept = try await library.run(
            "spotify-playlists", ["rewrite", id, "--", "/bin/sh", "-c", "sed -n '1,10p'"], environment: Self.quick)
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(try await Self.entries(library, id) == Array(before.prefix(10)), "the first ten, dates kept")

        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        let failed = try await library.run("spotify-playlists", ["rewrite", id, "--", "/bin/sh", "-c", "exit 3"])
        #expect(failed.status == 65, "\(failed.stderr)")
        #expect(failed.stderr.contains("exited with status 3; nothing was written"), "\(failed.stderr)")
        let nothing = try await library.run(
            "spotify-playlists", ["rewrite", id, "--", "/bin/sh", "-c", "cat >/dev/null"])
        #expect(nothing.status == 65, "\(nothing.stderr)")
        #expect(nothing.stderr.contains("printed no items"), "\(nothing.stderr)")
        // The records the command reads say which read they came from.
        let seen = try await library.run(
            "spotify-playlists", ["rewrite", "--dry-run", id, "--", "/bin/sh", "-c", "head -n 1 >&2; exit 1"])
        #expect(seen.stderr.contains(#""snapshot_id":""#), "\(seen.stderr)")
        for route in ["DELETE", "PUT", "POST"] {
            #expect(try await Self.requests(library, "\(route) /v1/playlists/{id}/items") == 0)
        }
        let missing = try await library.run("spotify-playlists", ["rewrite", id, "--", "no-such-command-here"])
        #expect(missing.status == 66, "\(missing.stderr)")
    }

    /// Issue 39, H1: jq 1.6 exits 0 after erroring on records that are not the last (episodes have
    /// no artists), so a filter that wrote on standard error has failed as far as rewrite can
    /// know: its complaint is shown, nothing changes, exit 65; --force applies what it printed.
    @Test func aCommandThatComplainedOnStandardErrorWritesNothingUnlessForced() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(30)
        let before = try await Self.entries(library, id)
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        let filter = [
            "/bin/sh", "-c", "sed -n '1,10p'; echo 'jq: error (at <stdin>:11): null (null) cannot be matched' >&2",
        ]
        let refused = try await library.run(
            "spotify-playlists", ["rewrite", id, "--"] + filter, environment: Self.quick)
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("jq: error (at <stdin>:11)"), "its complaint is shown: \(refused.stderr)")
        #expect(refused.stderr.contains("wrote on standard error"), "\(refused.stderr)")
        #expect(refused.stderr.contains("nothing was written to playlist \(id)"), "\(refused.stderr)")
        #expect(try await Self.entries(library, id) == before)
        for route in ["DELETE", "PUT", "POST"] {
            #expect(try await Self.requests(library, "\(route) /v1/playlists/{id}/items") == 0)
        }

        let forced = try await library.run(
            "spotify-playlists", ["rewrite", "--force", id, "--"] + filter, environment: Self.quick)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try await Self.entries(library, id) == Array(before.prefix(10)))
    }

    @Test func undoIsUndoableAndRefusesAPlaylistChangedSinceWithoutForce() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(40)
        let original = try await Self.entries(library, id)
        let nothing = try await library.run("spotify-playlists", ["undo", id])
        #expect(nothing.status == 1 && nothing.stderr.contains("nothing to undo"), "\(nothing.stderr)")

        let sorted = try await library.run("spotify-playlists", ["sort", id, "--by", "name"], environment: Self.quick)
        #expect(sorted.status == 0, "\(sorted.stderr)")
        let sortedEntries = try await Self.entries(library, id)
        let undone = try await library.run("spotify-playlists", ["undo", id], environment: Self.quick)
        #expect(undone.status == 0, "\(undone.stderr)")
        #expect(try await Self.entries(library, id) == original)
        let redone = try await library.run("spotify-playlists", ["undo", id], environment: Self.quick)
        #expect(redone.status == 0, "\(redone.stderr)")
        #expect(try await Self.entries(library, id) == sortedEntries, "undo of the undo")

        // Someone adds an item: undo says what changed and needs --force.
        let extra = try await PlaylistWriteTests.uris(library, generated(10))
        _ = try await library.run("spotify-playlists", ["add", id], stdin: extra[0] + "\n")
        let refused = try await library.run("spotify-playlists", ["undo", id])
        #expect(refused.status == 75, "\(refused.stderr)")
        #expect(refused.stderr.contains("it gained 1 item and lost 0 items"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--force"), "\(refused.stderr)")
        let forced = try await library.run("spotify-playlists", ["undo", "--force", id], environment: Self.quick)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try await Self.entries(library, id) == original)

        // The journal is private and bounded.
        let journal = library.fake.home.url.appendingPathComponent("state/spotify-toolkit/undo/\(id).json").path
        var info = stat()
        #expect(lstat(journal, &info) == 0)
        #expect(info.st_mode & 0o077 == 0, "0600")
        let kept = try JSONValue.parse(String(contentsOfFile: journal, encoding: .utf8))["entries"]?.arrayValue
        #expect((kept?.count ?? 0) <= 10)
    }

    @Test func localAndUnavailableEntriesStayUnlessDroppedInSoManyWords() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(120, "mix")
        let before = try await Self.entries(library, id)
        let pinned = before.count { $0.uri == nil }
        #expect(pinned > 0)
        let reversed = Array(before.compactMap(\.uri).reversed())
        let rewritten = try await library.run(
            "spotify-playlists", ["replace", "--reset-dates", id], stdin: Self.lines(reversed))
        #expect(rewritten.status == 65, "\(rewritten.stderr)")
        #expect(rewritten.stderr.contains("add --drop-unavailable"), "\(rewritten.stderr)")
        let kept = try await library.run(
            "spotify-playlists", ["replace", "--max-moves", "200", id], stdin: Self.lines(reversed),
            environment: Self.quick)
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(kept.stderr.contains("local or unavailable entries stay where they are"), "\(kept.stderr)")
        let after = try await Self.entries(library, id)
        #expect(after.count == before.count)
        #expect(after.compactMap(\.uri) == reversed)
        #expect(after.count { $0.uri == nil } == pinned)
    }

    /// The answer to the second batch is lost and the batch carried out 1.5 s later, after
    /// the client's 1 s time-out. One read would show "not landed" and send it again (100
    /// duplicates); the second read, after a longer pause, sees it land.
    @Test func aBatchCarriedOutLateIsSettledNotSentTwice() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(40)
        let before = try await PlaylistWriteTests.uris(library, id)
        let items = try await PlaylistWriteTests.uris(library, generated(250))
        try await library.fault([
            ("kind", "lost_answer"), ("at", "2"), ("carry", "late"), ("late_ms", "1500"),
            ("path_prefix", "/v1/playlists/\(id)/items"),
        ])
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        let run = try await library.run(
            "spotify-playlists", ["add", id], stdin: Self.lines(items),
            environment: ["SPOTIFY_TOOLKIT_REQUEST_TIMEOUT": "1", "SPOTIFY_TOOLKIT_SETTLE_PAUSE": "0.4"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try await PlaylistWriteTests.uris(library, id) == before + items, "no batch twice")
        #expect(try await Self.requests(library, "POST /v1/playlists/{id}/items") == 3)
    }

    /// A plan's step (a range move of a sort) carried out and its answer lost: settled by reading
    /// the playlist, which holds what the step leaves, so it is not sent again.
    @Test func aMoveWhoseAnswerIsLostIsSettledAsLandedNotSentTwice() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(60)
        let before = try await Self.entries(library, id)
        // Up to 100 items the reads never touch the items path: its 2nd request is the 2nd move.
        try await library.fault([("kind", "lost_answer"), ("at", "2"), ("path_prefix", "/v1/playlists/\(id)/items")])
        let plan = try records(try await library.run("spotify-playlists", ["sort", id, "--by", "name", "--dry-run"]))
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        let run = try await library.run(
            "spotify-playlists", ["sort", id, "--by", "name", "--max-moves", "200"], environment: Self.quick)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try await Self.requests(library, "PUT /v1/playlists/{id}/items") == plan.count, "no move twice")
        #expect(try await library.counters()["faults_fired_by_kind"]?["lost_answer"] == 1, "an answer was lost")
        let names = try records(try await library.tracks(["--no-cache", id])).compactMap { $0["name"]?.stringValue }
        #expect(names == names.sorted { $0.lowercased() < $1.lowercased() })
        #expect(
            Set(try await Self.entries(library, id).map { "\($0.uri!) \($0.addedAt!)" })
                == Set(before.map { "\($0.uri!) \($0.addedAt!)" }))
    }

    /// A plan's insert held past the client's 1 s time-out and carried out 2.5 s after it came:
    /// a settling read that shows it not landed is not trusted alone; the second, after a longer
    /// pause, sees it land, so it is not sent twice.
    @Test func anInsertCarriedOutLateIsSettledNotSentTwice() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(60)
        let before = try await PlaylistWriteTests.uris(library, id)
        let extra = try await PlaylistWriteTests.uris(library, generated(20))
        let wanted = before + extra.prefix(2)
        try await library.fault([
            ("kind", "lost_answer"), ("at", "1"), ("carry", "late"), ("late_ms", "2500"),
            ("path_prefix", "/v1/playlists/\(id)/items"),
        ])
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        let run = try await library.run(
            "spotify-playlists", ["replace", id], stdin: Self.lines(wanted),
            environment: ["SPOTIFY_TOOLKIT_REQUEST_TIMEOUT": "1", "SPOTIFY_TOOLKIT_SETTLE_PAUSE": "0.3"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try await PlaylistWriteTests.uris(library, id) == wanted, "the two new items once each")
        #expect(try await Self.requests(library, "POST /v1/playlists/{id}/items") == 1)
        #expect(try await library.counters()["carried_out_late"] == 1, "the insert was held and carried out late")
    }

    /// A settling read that lags: it comes from a replica one write behind.
    @Test func aSettlingReadThatLagsIsNotTakenAsProof() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(40)
        let before = try await PlaylistWriteTests.uris(library, id)
        let items = try await PlaylistWriteTests.uris(library, generated(250))
        try await library.fault([("kind", "lost_answer"), ("at", "2"), ("path_prefix", "/v1/playlists/\(id)/items")])
        try await library.fault([("kind", "stale_read"), ("at", "1"), ("path_prefix", "/v1/playlists/\(id)")])
        let run = try await library.run(
            "spotify-playlists", ["add", id], stdin: Self.lines(items), environment: Self.quick)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try await PlaylistWriteTests.uris(library, id) == before + items, "no batch twice")
    }

    /// The first batch of a new playlist provably did not land (carried out: no): it is
    /// sent again, from the creation's snapshot_id, and the playlist is whole.
    @Test func aFirstBatchThatDidNotLandIsSentAgain() async throws {
        let library = try await PlaylistWriteTests.editor()
        let items = try await PlaylistWriteTests.uris(library, generated(150))
        try await library.fault([
            ("kind", "server_error"), ("at", "1"), ("carry", "no"), ("path_prefix", "/v1/playlists/"),
        ])
        let run = try await library.run(
            "spotify-playlists", ["create", "Copy"], stdin: Self.lines(items), environment: Self.quick)
        #expect(run.status == 0, "\(run.stderr)")
        let id = try #require(try records(run).first?["id"]?.stringValue)
        #expect(try await PlaylistWriteTests.uris(library, id) == items)
    }

    /// A DELETE that never reached the playlist is sent again (removing is idempotent), and
    /// the count said is the one read back.
    @Test func aLostRemoveIsSentAgainAndTheCountIsProven() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(120)
        let before = try await PlaylistWriteTests.uris(library, id)
        // Requests to the items path: the read's second page, then the DELETE, which never lands.
        try await library.fault([
            ("kind", "reset"), ("at", "2"), ("carry", "no"), ("path_prefix", "/v1/playlists/\(id)/items"),
        ])
        _ = try await library.fake.call("POST", "/_fake/reset-counters")
        let gone = Array(before.prefix(10))
        let run = try await library.run(
            "spotify-playlists", ["remove", id], stdin: Self.lines(gone), environment: Self.quick)
        #expect(try await Self.requests(library, "DELETE /v1/playlists/{id}/items") == 2, "sent again")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("120 → 110 items: 10 removed"), "\(run.stderr)")
        #expect(try await PlaylistWriteTests.uris(library, id) == Array(before.dropFirst(10)))
    }

    @Test func editOfAPlaylistYouCannotChangeIs77AndACollaborativeOneSaysOnlyTheOwnerMay() async throws {
        let library = try await PlaylistWriteTests.editor()
        let notOwned = try await library.run("spotify-playlists", ["edit", "5MlKAGFZNoN2d0Up8sQc0N", "--name", "Mine"])
        #expect(notOwned.status == 77, "\(notOwned.stderr)")
        #expect(
            notOwned.stderr.contains("you can change only playlists you own or collaborate on"), "\(notOwned.stderr)")
        #expect(!notOwned.stderr.contains("internal error"))
        let collaborative = try await library.run(
            "spotify-playlists", ["edit", "7d2D2S200NyUE5KYs80PwO", "--name", "Ours"])
        #expect(collaborative.status == 77, "\(collaborative.stderr)")
        #expect(collaborative.stderr.contains("only its owner can change its name"), "\(collaborative.stderr)")
    }

    @Test func writesTakeNamesAndDestructiveOnesInsistOnTheExactName() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(120, "mix")
        let name = "Mixed Bag"
        let sorted = try await library.run(
            "spotify-playlists", ["sort", name, "--by", "duration", "--max-moves", "200"], environment: Self.quick)
        #expect(sorted.status == 0, "\(sorted.stderr)")
        #expect(sorted.stderr.contains("playlist \(id)"), "\(sorted.stderr)")
        let loose = try await library.run("spotify-playlists", ["dedupe", name.uppercased()])
        #expect(loose.status == 64, "\(loose.stderr)")
        #expect(loose.stderr.contains("did you mean '\(name)'"), "\(loose.stderr)")
        let added = try await library.run(
            "spotify-playlists", ["add", name.uppercased()], stdin: "spotify:track:5xZpAwlSQAc00000000000\n")
        #expect(added.status == 0, "add, which destroys nothing, takes the name in any case: \(added.stderr)")
    }

    @Test func anEmptyFileIntoLocalCreateMakesNothing() async throws {
        let library = try await PlaylistWriteTests.editor()
        let refused = try await library.run("spotify-playlists", ["local", "create", "Empty"])
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("Nothing was created; add --allow-empty"), "\(refused.stderr)")
        #expect(try await library.run("spotify-playlists", ["local", "list"]).stdout == "")
        let made = try await library.run("spotify-playlists", ["local", "create", "--allow-empty", "Empty"])
        #expect(made.status == 0, "\(made.stderr)")
    }

    /// Another client moves an item between two batches of an add; the total is right but
    /// the items are out of order. The add reads its items back and says so (75).
    @Test func anotherClientsReorderBetweenBatchesIsCaught() async throws {
        let library = try await PlaylistWriteTests.editor()
        let id = generated(50)
        let items = try await PlaylistWriteTests.uris(library, generated(250))
        // The second batch is held 1.5 s before it is carried out; meanwhile the other client moves.
        try await library.fault([
            ("kind", "delay"), ("at", "2"), ("delay_ms", "1500"), ("path_prefix", "/v1/playlists/\(id)/items"),
        ])
        async let adding = library.run(
            "spotify-playlists", ["add", "--position", "10", id], stdin: Self.lines(items), environment: Self.quick)
        // Once the second batch has arrived (counted as it arrives, then held), the other client moves.
        for _ in 0..<500 {
            if try await Self.requests(library, "POST /v1/playlists/{id}/items") >= 2 { break }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        var move = URLRequest(url: URL(string: library.fake.base + "/v1/playlists/\(id)/items")!)
        move.httpMethod = "PUT"
        move.setValue("Bearer \(library.tokens.accessToken)", forHTTPHeaderField: "Authorization")
        move.setValue("application/json", forHTTPHeaderField: "Content-Type")
        move.httpBody = Data(#"{"range_start":149,"insert_before":0,"range_length":1}"#.utf8)
        let (_, response) = try await URLSession.shared.data(for: move)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let run = try await adding
        #expect(run.status == 75, "\(run.stderr)")
        #expect(run.stderr.contains("are not all in order"), "\(run.stderr)")
    }
}
