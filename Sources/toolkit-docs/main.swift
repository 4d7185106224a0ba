// Regenerates man/ and completions/ from the command specs (`make docs`).
// With --check it changes nothing and exits 1 when a committed file is out of date.
import Foundation
import ToolkitCLI
import Tools

let check = CommandLine.arguments.contains("--check")
let root = FileManager.default.currentDirectoryPath
var stale: [String] = []
for file in GeneratedDocs.files() {
    let url = URL(fileURLWithPath: root).appendingPathComponent(file.path)
    let current = try? String(contentsOf: url, encoding: .utf8)
    guard current != file.contents else { continue }
    stale.append(file.path)
    if !check {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try file.contents.write(to: url, atomically: true, encoding: .utf8)
    }
}
for path in stale { print(check ? "out of date: \(path)" : "wrote \(path)") }
exit(check && !stale.isEmpty ? 1 : 0)
