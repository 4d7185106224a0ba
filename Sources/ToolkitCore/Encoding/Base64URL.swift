/// Base64 with the URL- and filename-safe alphabet (RFC 4648 §5), without padding.
package enum Base64URL {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let reverse: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = Int8(i) }
        return table
    }()

    /// Encodes `bytes` with `-` and `_` and no `=` padding.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let input = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((input.count * 4 + 2) / 3)
        var i = 0
        while i + 3 <= input.count {
            let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)])
            out.append(alphabet[Int(n & 63)])
            i += 3
        }
        switch input.count - i {
        case 1:
            let n = UInt32(input[i]) << 16
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
        case 2:
            let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)])
        default:
            break
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes base64url text. Trailing `=` padding is accepted but not required.
    /// Returns nil for characters outside the alphabet (including `+`, `/` and whitespace),
    /// an impossible length (4n+1), or non-zero unused trailing bits (non-canonical input).
    package static func decode(_ s: String) -> [UInt8]? {
        var chars = Array(s.utf8)
        var padding = 0
        while chars.last == UInt8(ascii: "=") {
            chars.removeLast()
            padding += 1
        }
        if padding > 0 && (padding > 2 || (chars.count + padding) % 4 != 0) { return nil }
        if chars.count % 4 == 1 { return nil }
        var values: [UInt32] = []
        values.reserveCapacity(chars.count)
        for c in chars {
            let v = reverse[Int(c)]
            if v < 0 { return nil }
            values.append(UInt32(v))
        }
        var out: [UInt8] = []
        out.reserveCapacity(values.count * 3 / 4)
        var i = 0
        while i + 4 <= values.count {
            let n = values[i] << 18 | values[i + 1] << 12 | values[i + 2] << 6 | values[i + 3]
            out.append(UInt8(truncatingIfNeeded: n >> 16))
            out.append(UInt8(truncatingIfNeeded: n >> 8))
            out.append(UInt8(truncatingIfNeeded: n))
            i += 4
        }
        switch values.count - i {
        case 2:
            if values[i + 1] & 0x0f != 0 { return nil }
            let n = values[i] << 18 | values[i + 1] << 12
            out.append(UInt8(truncatingIfNeeded: n >> 16))
        case 3:
            if values[i + 2] & 0x03 != 0 { return nil }
            let n = values[i] << 18 | values[i + 1] << 12 | values[i + 2] << 6
            out.append(UInt8(truncatingIfNeeded: n >> 16))
            out.append(UInt8(truncatingIfNeeded: n >> 8))
        default:
            break
        }
        return out
    }
}
