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
        expectingOneOf kinds: [Kind], input: StandardInput,
        make: @escaping @Sendable (SpotifyReference, String) -> T
    ) -> LineFeed<T> {
        input.feed { line in make(try parseLine(line, expectingOneOf: kinds), line) }
    }

    /// References from the arguments, or when there are none, one per non-blank line of standard
    /// input (ids, URIs, URLs or JSON records), handing `make` each with the text it was read from
    /// (spotify-tracks wants a record's snapshot_id too).
    static func fromArgumentsOrInput<T>(
        _ arguments: [String], expecting kind: Kind, input: StandardInput, make: (SpotifyReference, String) -> T
    ) throws -> [T] {
        try fromArgumentsOrInput(arguments, expectingOneOf: [kind], input: input, make: make)
    }

    /// The same for references of any of `kinds` (a bare id is the first). An argument `-` stands
    /// for the lines of standard input, in its place among the others (as cat and jq read it).
    static func fromArgumentsOrInput<T>(
        _ arguments: [String], expectingOneOf kinds: [Kind], input: StandardInput,
        make: (SpotifyReference, String) -> T
    ) throws -> [T] {
        try checkStandardInputOnce(arguments)
        var references: [T] = []
        for text in arguments.isEmpty ? ["-"] : arguments {
            guard text == "-" else {
                references.append(make(try argument(text, expectingOneOf: kinds), text))
                continue
            }
            try input.forEachLine { line in
                references.append(make(try parseLine(line, expectingOneOf: kinds), line))
            }
        }
        return references
    }

    /// Standard input can be read once: `-` named twice is a usage error.
    static func checkStandardInputOnce(_ arguments: [String]) throws {
        if arguments.filter({ $0 == "-" }).count > 1 {
            throw ToolError.usage("'-' (standard input) is named more than once; it can be read only once")
        }
    }
}
