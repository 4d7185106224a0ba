import Foundation
import TestSupport
import Testing

/// Every suite carries one size tag on its `@Suite` line, which is what `scripts/test-size.sh`
/// reads to turn `make test-small` and `make test-medium` into a `--filter` (Swift Testing cannot
/// select by tag from the command line); a suite without one would run in no inner loop.
@Suite(.tags(.medium)) struct SizeTagTests {
    static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    /// The Swift files of the three test targets (TestSupport holds no tests).
    static func sources() throws -> [(module: String, path: String, text: String)] {
        var found: [(String, String, String)] = []
        for module in ["SpotifyToolkitTests", "EndToEndTests", "FakeSpotifyTests"] {
            let root = tests.appendingPathComponent(module)
            let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
            for file in files where file.hasSuffix(".swift") {
                let path = root.appendingPathComponent(file).path
                found.append((module, path, try String(contentsOfFile: path, encoding: .utf8)))
            }
        }
        return found
    }

    @Test func everySuiteHasOneSizeOnItsOwnLine() throws {
        // What scripts/test-size.sh reads (its sed expression, as a Swift regex).
        let sizeLine = try Regex(
            #"^@Suite\(.*\.tags\(\.(small|medium|large)\).*\) *(final +)?(struct|class|enum|actor) +[A-Za-z0-9_]+"#)
        let sources = try Self.sources()
        #expect(sources.count > 100, "found the test sources under \(Self.tests.path)")
        var suites = 0
        for (module, path, text) in sources {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            for line in lines where line.hasPrefix("@Suite") {
                suites += 1
                #expect(
                    line.prefixMatch(of: sizeLine) != nil,
                    "\(path): '\(line)' needs one size tag: @Suite(.tags(.small|.medium|.large)) struct Name")
                let sizes = ["small", "medium", "large"].filter { line.contains(".\($0)") }
                #expect(sizes.count == 1, "\(path): '\(line)'")
                if module == "EndToEndTests" {
                    #expect(sizes == ["large"], "\(path): the end-to-end target spawns processes: '\(line)'")
                }
            }
            // A test outside a tagged suite (a free @Test, or a type without @Suite) has no size.
            if text.contains("@Test") {
                #expect(lines.contains { $0.hasPrefix("@Suite") || $0.hasPrefix("extension ") }, "\(path)")
                #expect(!lines.contains { $0.hasPrefix("@Test") }, "\(path): a free @Test has no suite to carry a size")
            }
        }
        #expect(suites > 100)
    }

    /// What marks a test as more than compute: a logged-in fake library, a tool run in process, a
    /// shell. A `.small` suite holds none of them (docs/ARCHITECTURE.md, "Tests"). A suite runs from
    /// its `@Suite` line to the next one, extensions included; comments are not code.
    static let notSmall = ["Library(", "InProcess.", "InProcessFake(", "runShell("]

    @Test func aSmallSuiteRunsNoToolFakeOrShell() throws {
        var small = 0
        for (_, path, text) in try Self.sources() {
            var size: String?
            var suite = ""
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                if line.hasPrefix("@Suite") {
                    size = ["small", "medium", "large"].first { line.contains(".tags(.\($0))") }
                    suite = String(line)
                    if size == "small" { small += 1 }
                    continue
                }
                guard size == "small" else { continue }
                let code = line.components(separatedBy: "//")[0]
                for marker in Self.notSmall where code.contains(marker) {
                    let place = "\(path):\(number + 1)"
                    Issue.record("\(place): '\(marker)' in \(suite): tag the suite .medium (.large for a shell)")
                }
            }
        }
        #expect(small > 40, "found the small suites")
    }
}
