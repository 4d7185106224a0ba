import SpotifyClient
import ToolkitCLI
import ToolkitCore

extension SpotifyReference {
    /// A line of standard input; a bad one is rejected, and `StandardInput` names the line (65).
    static func parseLine(_ line: String, expecting kind: Kind) throws -> SpotifyReference {
        try parseLine(line, expectingOneOf: [kind])
    }

    static func parseLine(_ line: String, expectingOneOf kinds: [Kind]) throws -> SpotifyReference {
        do throws(ParseError) {
            return kinds.count == 1 ? try parse(line, expecting: kinds[0]) : try parse(line, expectingOneOf: kinds)
        } catch {
            throw StandardInput.Rejection(error.description)
        }
    }

    /// The references on standard input as they arrive, one per non-blank line, each handed to
    /// `make` with its line (`StandardInput.feed`: a bad line is exit 65 naming it, in its turn).
    static func arriving<T: Sendable>(
        expecting kind: Kind, input: StandardInput, make: @escaping @Sendable (SpotifyReference, String) -> T
    ) -> LineFeed<T> {
        input.feed { line in make(try parseLine(line, expecting: kind), line) }
    }

    /// References from the arguments, or when there are none, one per non-blank line of standard
    /// input (ids, URIs, URLs or JSON records), handing `make` each with the text it was read from
    /// (spotify-tracks wants a record's snapshot_id too).
    static func fromArgumentsOrInput<T>(
        _ arguments: [String], expecting kind: Kind, input: StandardInput, make: (SpotifyReference, String) -> T
    ) throws -> [T] {
        if !arguments.isEmpty { return try arguments.map { make(try argument($0, expecting: kind), $0) } }
        var references: [T] = []
        try input.forEachLine { line in references.append(make(try parseLine(line, expecting: kind), line)) }
        return references
    }
}
