/// Text folded for matching titles and artist names: lower case, accents and other diacritics
/// dropped, full-width and half-width forms made ordinary ("Beyoncé" and "ＢＥＹＯＮＣＥ" are both
/// "beyonce"), ligatures spelled out ("ﬁ" is "fi", "ß" is "ss"). What Foundation's
/// `folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)`
/// did; FoundationEssentials has no folding.
///
/// Two parts: a table of the scalars that fold to something else (written by
/// `scripts/fold-table.swift` from Foundation itself), so precomposed letters fold; and
/// combining marks dropped after a character, so decomposed text folds alike ("e" + U+0301 is
/// "e", as "é" is), except where the mark belongs to the letter (`keepsMarks`).
package enum MatchFolding {
    package static func fold(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where !isDroppedMark(scalar, after: out.last) {
            for folded in table[scalar.value] ?? [scalar] where !isDroppedMark(folded, after: out.last) {
                out.append(folded)
            }
        }
        return String(out).lowercased()
    }

    static func isDroppedMark(_ scalar: Unicode.Scalar, after base: Unicode.Scalar?) -> Bool {
        guard let base, scalar.properties.generalCategory == .nonspacingMark else { return false }
        return !keepsMarks(base, scalar)
    }

    /// Whether `mark` after `base` is part of the letter rather than an accent on it: kana's voicing
    /// marks (か + U+3099 is が, which does not fold), and the vowel points of Hebrew, Arabic and
    /// their neighbours. Every other mark after a character is dropped.
    static func keepsMarks(_ base: Unicode.Scalar, _ mark: Unicode.Scalar) -> Bool {
        switch (base.value, mark.value) {
        case (0x3040...0x30FF, 0x3099...0x309A), (0x0590...0x08FF, 0x0590...0x08FF): return true
        default: return false
        }
    }

    /// The table, parsed on first use (only track matching needs it).
    static let table: [UInt32: [Unicode.Scalar]] = {
        var table: [UInt32: [Unicode.Scalar]] = [:]
        for entry in packedTable.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let sides = entry.split(maxSplits: 1, whereSeparator: { $0 == "=" || $0 == ">" })
            let stepped = entry.contains(">")
            let sources = sides[0].split(separator: "-").compactMap { UInt32($0, radix: 16) }
            let targets = sides[1].split(separator: "+").compactMap { UInt32($0, radix: 16) }
            for (offset, source) in (sources[0]...(sources.last ?? sources[0])).enumerated() {
                let shifted = stepped ? [targets[0] + UInt32(offset)] : targets
                table[source] = shifted.compactMap(Unicode.Scalar.init)
            }
        }
        return table
    }()

    /// `scripts/fold-table.swift`'s output: `c0-c5=61` maps U+00C0...U+00C5 each to U+0061,
    /// `ff01-ff5e>21` maps them in step from U+0021, `df=73+73` maps U+00DF to "ss".
    static let packedTable = """
        b5=3bc c0-c5=61 c7=63 c8-cb=65 cc-cf=69 d1=6e d2-d6=6f d9-dc=75 dd=79 df=73+73 e0-e5=61 e7=63 e8-eb=65
        ec-ef=69 f1=6e f2-f6=6f f9-fc=75 fd=79 ff=79 100-105=61 106-10d=63 10e-10f=64 112-11b=65 11c-123=67 124-125=68
        128-130=69 134-135=6a 136-137=6b 139-13e=6c 143-148=6e 149=2bc+6e 14c-151=6f 154-159=72 15a-161=73 162-165=74
        168-173=75 174-175=77 176-178=79 179-17e=7a 17f=73 1a0-1a1=6f 1af-1b0=75 1cd-1ce=61 1cf-1d0=69 1d1-1d2=6f
        1d3-1dc=75 1de-1e1=61 1e2-1e3=e6 1e6-1e7=67 1e8-1e9=6b 1ea-1ed=6f 1ee-1ef=292 1f0=6a 1f4-1f5=67 1f8-1f9=6e
        1fa-1fb=61 1fc-1fd=e6 1fe-1ff=f8 200-203=61 204-207=65 208-20b=69 20c-20f=6f 210-213=72 214-217=75 218-219=73
        21a-21b=74 21e-21f=68 226-227=61 228-229=65 22a-231=6f 232-233=79 340=300 341=301 343=313 344=308 345=3b9
        374=2b9 37e=3b 385=a8 386=3b1 387=b7 388=3b5 389=3b7 38a=3b9 38c=3bf 38e=3c5 38f=3c9 390=3b9 3aa=3b9 3ab=3c5
        3ac=3b1 3ad=3b5 3ae=3b7 3af=3b9 3b0=3c5 3c2=3c3 3ca=3b9 3cb=3c5 3cc=3bf 3cd=3c5 3ce=3c9 3d0=3b2 3d1=3b8
        3d3-3d4=3d2 3d5=3c6 3d6=3c0 3f0=3ba 3f1=3c1 3f5=3b5 400-401=435 403=433 407=456 40c=43a 40d=438 40e=443
        419=438 439=438 450-451=435 453=433 457=456 45c=43a 45d=438 45e=443 476-477=475 4c1-4c2=436 4d0-4d3=430
        4d6-4d7=435 4da-4db=4d9 4dc-4dd=436 4de-4df=437 4e2-4e5=438 4e6-4e7=43e 4ea-4eb=4e9 4ec-4ed=44d 4ee-4f3=443
        4f4-4f5=447 4f8-4f9=44b 587=565+582 1e00-1e01=61 1e02-1e07=62 1e08-1e09=63 1e0a-1e13=64 1e14-1e1d=65
        1e1e-1e1f=66 1e20-1e21=67 1e22-1e2b=68 1e2c-1e2f=69 1e30-1e35=6b 1e36-1e3d=6c 1e3e-1e43=6d 1e44-1e4b=6e
        1e4c-1e53=6f 1e54-1e57=70 1e58-1e5f=72 1e60-1e69=73 1e6a-1e71=74 1e72-1e7b=75 1e7c-1e7f=76 1e80-1e89=77
        1e8a-1e8d=78 1e8e-1e8f=79 1e90-1e95=7a 1e96=68 1e97=74 1e98=77 1e99=79 1e9a=61+2be 1e9b=73 1e9e=73+73
        1ea0-1eb7=61 1eb8-1ec7=65 1ec8-1ecb=69 1ecc-1ee3=6f 1ee4-1ef1=75 1ef2-1ef9=79 1f00-1f0f=3b1 1f10-1f15=3b5
        1f18-1f1d=3b5 1f20-1f2f=3b7 1f30-1f3f=3b9 1f40-1f45=3bf 1f48-1f4d=3bf 1f50-1f57=3c5 1f59=3c5 1f5b=3c5 1f5d=3c5
        1f5f=3c5 1f60-1f6f=3c9 1f70-1f71=3b1 1f72-1f73=3b5 1f74-1f75=3b7 1f76-1f77=3b9 1f78-1f79=3bf 1f7a-1f7b=3c5
        1f7c-1f7d=3c9 1f80-1f8f=3b1 1f90-1f9f=3b7 1fa0-1faf=3c9 1fb0-1fb4=3b1 1fb6-1fbc=3b1 1fbe=3b9 1fc1=a8
        1fc2-1fc4=3b7 1fc6-1fc7=3b7 1fc8-1fc9=3b5 1fca-1fcc=3b7 1fd0-1fd3=3b9 1fd6-1fdb=3b9 1fe0-1fe3=3c5
        1fe4-1fe5=3c1 1fe6-1feb=3c5 1fec=3c1 1fed-1fee=a8 1fef=60 1ff2-1ff4=3c9 1ff6-1ff7=3c9 1ff8-1ff9=3bf
        1ffa-1ffc=3c9 1ffd=b4 212b=61 2260=3d 226e=3c 226f=3e fb00=66+66 fb01=66+69 fb02=66+6c fb03=66+66+69
        fb04=66+66+6c fb05=73+74 fb06=73+74 fb13=574+576 fb14=574+565 fb15=574+56b fb16=57e+576 fb17=574+56d
        ff01-ff20>21 ff21-ff3a>61 ff3b-ff5e>5b ff5f=2985 ff60=2986 ff61=3002 ff62=300c ff63=300d ff64=3001 ff65=30fb
        ff66=30f2 ff67=30a1 ff68=30a3 ff69=30a5 ff6a=30a7 ff6b=30a9 ff6c=30e3 ff6d=30e5 ff6e=30e7 ff6f=30c3 ff70=30fc
        ff71=30a2 ff72=30a4 ff73=30a6 ff74=30a8 ff75=30aa ff76=30ab ff77=30ad ff78=30af ff79=30b1 ff7a=30b3 ff7b=30b5
        ff7c=30b7 ff7d=30b9 ff7e=30bb ff7f=30bd ff80=30bf ff81=30c1 ff82=30c4 ff83=30c6 ff84=30c8 ff85-ff8a>30ca
        ff8b=30d2 ff8c=30d5 ff8d=30d8 ff8e=30db ff8f-ff93>30de ff94=30e4 ff95=30e6 ff96-ff9b>30e8 ff9c=30ef ff9d=30f3
        ff9e=3099 ff9f=309a ffa0=1160 ffa1=1100 ffa2=1101 ffa3=11aa ffa4=1102 ffa5=11ac ffa6=11ad ffa7-ffa9>1103
        ffaa-ffaf>11b0 ffb0=111a ffb1-ffb3>1106 ffb4=1121 ffb5-ffbe>1109 ffc2-ffc7>1161 ffca-ffcf>1167 ffd2-ffd7>116d
        ffda-ffdc>1173 ffe0=a2 ffe1=a3 ffe2=ac ffe4=a6 ffe5=a5 ffe6=20a9 ffe8=2502 ffe9-ffec>2190 ffed=25a0 ffee=25cb
        """
}
