import Foundation
import Testing
import ToolkitCore

@testable import FakeSpotify
@testable import SpotifyClient

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `add --liked` and `remove --liked` stop between batches on a signal and say what
/// landed, and name Your Episodes for episodes.
@Suite(.tags(.medium)) struct LibraryWriteStopTests {
    @Test func aSignalStopsASaveBetweenBatchesAndSaysWhatLanded() async throws {
        let (fake, library) = try await SavedItemsTests.client()
        defer { fake.stop() }
        let asked = Locked(0)
        let error = await #expect(throws: ToolError.self) {
            try await library.save(SavedItemsTests.uris(100), scope: SavedItemsTests.save) {
                // The signal comes while the first batch is out.
                asked.withLock { count in
                    count += 1
                    return count
                } > 1 ? SIGINT : 0
            }
        }
        #expect(error?.exitCode == .answering(signal: SIGINT))
        #expect(
            error?.message
                == "interrupted: the first 40 of 100 were saved; the last 60 were not sent (running it again does no harm)"
        )
        let counters = try await fake.counters()
        #expect(counters["requests"]?["PUT /v1/me/library"] == 1)
    }

    @Test func episodesAreSavedToYourEpisodesAndSaidSo() async throws {
        let library = try await PlaylistWriteTests.editor()
        let track = "spotify:track:" + GeneratedLibrary.objectID(seed: "to-save", index: 1)
        let episode = "spotify:episode:" + GeneratedLibrary.objectID(seed: "to-save", index: 2)
        let run = try await library.run("spotify-playlists", ["add", "--liked"], stdin: "\(track)\n\(episode)\n")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stderr == "spotify-playlists: saved 1 track to your Liked Songs and 1 episode to Your Episodes\n",
            "\(run.stderr)")
    }
}

/// An answer meant for another request (one answer too many on a kept-alive
/// connection shifts every later one) names another offset, and is not taken as this page.
@Suite(.tags(.small)) struct PageOffsetTests {
    @Test func aPageOfAnotherOffsetIsUnreadable() throws {
        let items = Array(repeating: JSONValue.object(["item": .null]), count: 50)
        let shifted: JSONValue = ["total": 300, "offset": 100, "limit": 50, "items": .array(items)]
        let body = Data(shifted.serialized().utf8)
        #expect(throws: SpotifyWebAPI.UnreadableBody.self) {
            try Pager.readPage(body, offset: 150, plan: PagePlan(total: 300))
        }
        #expect(try Pager.readPage(body, offset: 100, plan: PagePlan(total: 300)).items.count == 50)
        let unnamed: JSONValue = ["total": 300, "items": .array(items)]
        #expect(
            try Pager.readPage(Data(unnamed.serialized().utf8), offset: 150, plan: PagePlan(total: 300)).offset == 150)
    }

    /// An answer far larger than a page is refused before it is parsed, and not asked again.
    @Test func anAnswerFarLargerThanAPageIsNotParsed() {
        var body = Data(#"{"total":300,"offset":100,"items":["#.utf8)
        body.append(Data(repeating: UInt8(ascii: "0"), count: 1))
        for _ in 0..<(Pager.maxPageBytes / 2) { body.append(contentsOf: [UInt8(ascii: ","), UInt8(ascii: "0")]) }
        body.append(contentsOf: Array("]}".utf8))
        let error = #expect(throws: ToolError.self) {
            try Pager.readPage(body, offset: 100, plan: PagePlan(total: 300))
        }
        #expect(error?.exitCode == .unavailable)
        #expect(error?.message.contains("far more than a page holds") == true, "\(error?.message ?? "")")
        #expect(throws: ToolError.self) { try ListScheduler.readPlaylistObject(body) }
    }

    @Test func pageRequestsAskForTheOffset() {
        for fields in [PlaylistEntry.itemFields, PlaylistEntry.durationFields, PlaylistContents.uriFields] {
            #expect(fields.hasPrefix("total,offset,items("), "\(fields)")
        }
    }
}
