/// Percent-encoding and `application/x-www-form-urlencoded` / query-string handling.
package enum URLForm {
    /// Decodes a form body or query string (without the leading `?`) into ordered name/value pairs.
    ///
    /// `+` means space; `%XX` is a byte (the result is read as UTF-8, invalid sequences become U+FFFD);
    /// a `%` not followed by two hex digits is kept literally. Pairs are separated by `&`;
    /// empty segments are skipped; a segment without `=` is a name with an empty value;
    /// only the first `=` separates name from value.
    package static func decode(_ s: String) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        for segment in s.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            if let eq = segment.firstIndex(of: UInt8(ascii: "=")) {
                pairs.append(
                    (
                        name: percentDecode(segment[segment.startIndex..<eq], plusAsSpace: true),
                        value: percentDecode(segment[segment.index(after: eq)...], plusAsSpace: true)
                    ))
            } else {
                pairs.append((name: percentDecode(segment, plusAsSpace: true), value: ""))
            }
        }
        return pairs
    }

    /// Encodes pairs as `name=value&...`, percent-encoding every byte except the
    /// unreserved characters `A-Z a-z 0-9 - . _ ~` (space becomes `%20`).
    package static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { percentEncode($0.0) + "=" + percentEncode($0.1) }.joined(separator: "&")
    }

    /// The value of the first pair called `name` (case-sensitive), or nil.
    package static func value(_ name: String, in pairs: [(name: String, value: String)]) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// Percent-encodes every UTF-8 byte except the unreserved characters, with upper-case hex.
    package static func percentEncode(_ s: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        for b in s.utf8 {
            if isUnreserved(b) {
                out.append(b)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0x0f)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `%XX` escapes (invalid escapes kept literally); with `plusAsSpace`, `+` becomes a space.
    /// The bytes are read as UTF-8, invalid sequences becoming U+FFFD.
    package static func percentDecode(_ s: String, plusAsSpace: Bool = false) -> String {
        percentDecode(Substring(s).utf8, plusAsSpace: plusAsSpace)
    }

    static func percentDecode<C: Collection<UInt8>>(_ bytes: C, plusAsSpace: Bool) -> String {
        let input = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity(input.count)
        var i = 0
        while i < input.count {
            let b = input[i]
            if b == UInt8(ascii: "%"), i + 2 < input.count, let hi = hexValue(input[i + 1]),
                let lo = hexValue(input[i + 2])
            {
                out.append(hi << 4 | lo)
                i += 3
            } else if b == UInt8(ascii: "+") && plusAsSpace {
                out.append(UInt8(ascii: " "))
                i += 1
            } else {
                out.append(b)
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 3986 unreserved characters: the ones never percent-encoded, and the PKCE verifier alphabet.
    static func isUnreserved(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
