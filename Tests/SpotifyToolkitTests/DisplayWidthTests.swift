import Testing

@testable import ToolkitCLI
@testable import ToolkitCore

/// Tables measure what the terminal draws.
@Suite(.tags(.small)) struct DisplayWidthTests {
    @Test(arguments: [
        ("Morning", 7), ("朝のプレイリスト", 16), ("ＡＢＣ", 6), ("한국어", 6), ("e\u{301}te\u{301}", 3), ("Café", 4),
        ("🎵", 2), ("👨‍👩‍👧", 2), ("🇯🇵", 2), ("a\u{200B}b", 2), ("", 0),
    ])
    func columnsAsTheTerminalDrawsThem(text: String, columns: Int) {
        #expect(DisplayWidth.of(text) == columns, "\(text.debugDescription)")
    }

    @Test func aPrefixNeverSplitsAWideCharacter() {
        #expect(DisplayWidth.prefix("朝のプレイ", fitting: 5) == "朝の")
        #expect(DisplayWidth.prefix("abc", fitting: 10) == "abc")
        #expect(DisplayWidth.prefix("e\u{301}x", fitting: 1) == "e\u{301}")
    }

    @Test func aTableRowWithWideNamesStaysInsideTheWidth() {
        let table = TextTable(
            [
                .fixed("#", width: 2, alignment: .right), .flexible("NAME", weight: 3),
                .fixed("DURATION", width: 8, alignment: .right),
            ],
            totalWidth: 40)
        for name in ["朝のプレイリスト、とても長い名前のプレイリストです", "Morning", "ＦＵＬＬＷＩＤＴＨ ＮＡＭＥ ＴＯＯ ＬＯＮＧ"] {
            let line = table.line(["1", name, "3:45"])
            #expect(DisplayWidth.of(line) == 40, "\(line) is \(DisplayWidth.of(line)) columns")
            #expect(line.hasSuffix("3:45"), "the duration column is where it belongs: \(line)")
        }
    }
}
