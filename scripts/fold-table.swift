// Prints the table behind `MatchFolding` (Sources/ToolkitCore/Text/MatchFolding.swift): every
// Unicode scalar that Foundation's `folding(options: [.caseInsensitive, .diacriticInsensitive,
// .widthInsensitive], locale: nil)` then `lowercased()` turns into something other than
// `lowercased()` alone does, with what it becomes. The shipped tools do not link full Foundation
// (it brings ICU); this program does, once, to write the table down. Runs of sources are grouped:
// `c0-c5=61` maps each of U+00C0...U+00C5 to U+0061, `ff01-ff5e>21` maps them in step from U+0021,
// `df=73+73` maps U+00DF to two scalars.
//
//   swiftc -O scripts/fold-table.swift -o /tmp/fold-table && /tmp/fold-table
import Foundation

var rows: [(source: UInt32, target: [UInt32])] = []
for value in UInt32(0)...0x10FFFF {
    guard let scalar = Unicode.Scalar(value) else { continue }
    let text = String(Character(scalar))
    let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        .lowercased()
    let lower = text.lowercased()
    if folded.unicodeScalars.map(\.value) != lower.unicodeScalars.map(\.value) {
        rows.append((value, folded.unicodeScalars.map(\.value)))
    }
}

func hex(_ value: UInt32) -> String { String(value, radix: 16) }

var entries: [String] = []
var index = 0
while index < rows.count {
    let (source, target) = rows[index]
    if target.count == 1 {
        var end = index
        while end + 1 < rows.count, rows[end + 1].source == rows[end].source + 1, rows[end + 1].target.count == 1,
            rows[end + 1].target[0] == rows[end].target[0] + 1
        {
            end += 1
        }
        if end > index + 1 {
            entries.append("\(hex(source))-\(hex(rows[end].source))>\(hex(target[0]))")
            index = end + 1
            continue
        }
        end = index
        while end + 1 < rows.count, rows[end + 1].source == rows[end].source + 1, rows[end + 1].target == target {
            end += 1
        }
        if end > index {
            entries.append("\(hex(source))-\(hex(rows[end].source))=\(hex(target[0]))")
            index = end + 1
            continue
        }
    }
    entries.append("\(hex(source))=" + target.map(hex).joined(separator: "+"))
    index += 1
}
// Lines of at most 110 characters, as string-literal lines of the Swift source.
var line = ""
for entry in entries {
    if line.count + entry.count + 1 > 110 {
        print(line)
        line = ""
    }
    line += (line.isEmpty ? "" : " ") + entry
}
print(line)
