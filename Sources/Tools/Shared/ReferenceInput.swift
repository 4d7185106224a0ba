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

    /// Standard input can be read once: `-` named twice is a usage error.
    static func checkStandardInputOnce(_ arguments: [String]) throws {
        if arguments.filter({ $0 == "-" }).count > 1 {
            throw ToolError.usage("'-' (standard input) is named more than once; it can be read only once")
        }
    }
}
