import Testing

@testable import SpotifyClient
@testable import ToolkitCore

/// `SearchQuery` parsing and `TrackMatch` scoring: pure.
@Suite(.tags(.small)) struct TrackMatchTests {
    func track(_ name: String, _ artists: [String], ms: Int = 200_000) -> JSONValue {
        ["name": .string(name), "artists": .array(artists.map { ["name": .string($0)] }), "duration_ms": .int(ms)]
    }

    @Test func queryForms() throws {
        #expect(
            try SearchQuery.parse("Queen - Bohemian Rhapsody")
                == SearchQuery(text: "Queen - Bohemian Rhapsody", title: "Bohemian Rhapsody", artists: ["Queen"]))
        #expect(try SearchQuery.parse("  Jolene  ") == SearchQuery(text: "Jolene", title: "Jolene"))
        #expect(try SearchQuery.parse("Yesterday - Remastered 2009").artists == [], "a version suffix names no artist")
        #expect(
            try SearchQuery.parse("Daft Punk feat. Pharrell Williams - Get Lucky").artists == [
                "Daft Punk", "Pharrell Williams",
            ])
        #expect(try SearchQuery.parse("Beyoncé – Déjà Vu").artists == ["Beyoncé"])
        let record = try SearchQuery.parse(
            #"{"name":"Hallelujah","artists":[{"name":"Jeff Buckley"},"Other"],"duration_ms":413826,"ms_played":5}"#)
        #expect(
            record
                == SearchQuery(
                    text: "Jeff Buckley, Other - Hallelujah", title: "Hallelujah", artists: ["Jeff Buckley", "Other"],
                    durationMs: 413_826))
        #expect(try SearchQuery.parse(#"{"name":"Jolene"}"#).text == "Jolene")
    }

    @Test(arguments: [
        (#"{"artists":["Queen"]}"#, "needs a name"),
        (#"{"name":""}"#, "needs a name"),
        (#"{"name":"x","#, "not JSON"),
        (#"{"name":"x","duration_ms":-1}"#, "duration_ms"),
        (#"{"name":"x","duration_ms":"long"}"#, "duration_ms"),
        (#"{"name":"x","artists":5}"#, "artists"),
    ])
    func badRecords(line: String, reason: String) {
        #expect(throws: SearchQuery.Invalid.self) { try SearchQuery.parse(line) }
        do { _ = try SearchQuery.parse(line) } catch { #expect(error.reason.contains(reason), "\(error.reason)") }
    }

    @Test func searchTextsUseFiltersThenPlainWords() throws {
        let texts = try SearchQuery.parse("The Beatles - Yesterday (Remastered 2009)").searchTexts
        #expect(texts == [#"track:"yesterday" artist:"the beatles""#, "the beatles yesterday"], "\(texts)")
        #expect(try SearchQuery.parse("Déjà Vu (feat. JAY-Z)").searchTexts == ["deja vu"])
        #expect(
            try SearchQuery.parse(#"Simon & Garfunkel - Mrs. "Robinson""#).searchTexts.first
                == #"track:"mrs robinson" artist:"simon garfunkel""#)
    }

    @Test func normalisingTitles() {
        #expect(TrackMatch.normalizedTitle("Bohemian Rhapsody - Remastered 2011").text == "bohemian rhapsody")
        #expect(
            TrackMatch.normalizedTitle("Get Lucky (feat. Pharrell Williams & Nile Rodgers) - Radio Edit") == (
                "get lucky", ["edit"]
            ))
        #expect(TrackMatch.normalizedTitle("Yesterday - Live").tags == ["live"])
        #expect(TrackMatch.normalizedTitle("Déjà Vu (Remastered)").text == "deja vu")
        #expect(TrackMatch.normalizedTitle("Psycho Killer - 2005 Remaster").text == "psycho killer")
        #expect(TrackMatch.normalizedTitle("Stay (with Justin Bieber)").text == "stay")
        #expect(TrackMatch.normalizedTitle("Song (Part 2) ft. Someone").text == "song part 2")
        #expect(TrackMatch.normalizedArtist("The Beatles") == "beatles")
        #expect(TrackMatch.normalizedArtist("Beyoncé") == "beyonce")
        #expect(TrackMatch.normalizedArtist("JAY-Z") == TrackMatch.normalizedArtist("Jay Z"))
    }

    @Test func scores() throws {
        let query = try SearchQuery.parse("The Beatles - Yesterday")
        let studio = TrackMatch.score(query, track("Yesterday - Remastered 2009", ["The Beatles"]))
        let live = TrackMatch.score(query, track("Yesterday - Live", ["The Beatles"]))
        let cover = TrackMatch.score(query, track("Yesterday", ["Leona Lewis"]))
        #expect(studio.value > live.value && live.isAcceptable)
        #expect(studio.word == "exact")
        #expect(!cover.isAcceptable, "same title, another artist")
        let wrong = TrackMatch.score(
            try SearchQuery.parse("Queen - Rhapsody in Blue"), track("Bohemian Rhapsody", ["Queen"]))
        #expect(!wrong.isAcceptable)
        let accents = TrackMatch.score(
            try SearchQuery.parse("Beyonce - Deja Vu"), track("Déjà Vu (feat. Jay-Z)", ["Beyoncé", "JAY-Z"]))
        #expect(accents.value == 1 && accents.word == "exact")
    }

    @Test func durationPicksTheVersion() throws {
        let query = SearchQuery(text: "q", title: "Hallelujah", artists: ["Leonard Cohen"], durationMs: 440_000)
        let ranked = TrackMatch.rank(
            query,
            [
                track("Hallelujah", ["Leonard Cohen"], ms: 279_000),
                track("Hallelujah - Live in London", ["Leonard Cohen"], ms: 441_000),
            ])
        #expect(ranked.map { $0.track["duration_ms"]?.intValue } == [441_000, 279_000])
        let far = TrackMatch.score(query, track("Hallelujah", ["Leonard Cohen"], ms: 279_000))
        #expect(far.value == 0.8 && far.word == "good")
        let near = TrackMatch.score(
            SearchQuery(text: "q", title: "Hallelujah", durationMs: 280_500), track("Hallelujah", ["X"], ms: 279_000))
        #expect(near.value == 1)
    }

    @Test func rankKeepsSpotifysOrderAmongEquals() {
        let query = SearchQuery(text: "Hallelujah", title: "Hallelujah")
        let ranked = TrackMatch.rank(
            query, [track("Hallelujah", ["A"]), track("Sabotage", ["B"]), track("Hallelujah", ["C"])])
        #expect(ranked.map { $0.track["artists"]?.arrayValue?.first?["name"]?.stringValue } == ["A", "C"])
    }
}

/// Megabytes of input: seconds of CPU in a debug build on a loaded machine, so out of the pure
/// inner loop (`make test-small`).
@Suite(.tags(.medium)) struct TrackMatchStressTests {
    /// Normalising bracketed text was quadratic (a 2.4 MB query cost 77 s of CPU). 3 MB of
    /// brackets now takes well under a second in a release build, and over a minute in a debug
    /// build beside the end-to-end tests; the limit only stops a quadratic regression (tens of
    /// minutes in a debug build) from hanging the run.
    @Test(.timeLimit(.minutes(10))) func normalisingManyBracketsIsLinear() throws {
        let title = "Song" + String(repeating: "(Live)[x]", count: 340_000)
        let normalized = TrackMatch.normalizedTitle(title)
        #expect(normalized.tags == ["live"])
        #expect(normalized.text.hasPrefix("song x x"))
        let unclosed = String(repeating: "(", count: 1_000_000) + "Song"
        #expect(TrackMatch.normalizedTitle(unclosed).text == "song")
    }
}
