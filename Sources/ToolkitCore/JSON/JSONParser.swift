/// Why some bytes are not valid JSON: a short message for people and the 0-based byte offset
/// where the problem was found (`unexpected character 'x' at byte 12`, `unexpected end of input`).
package struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String
    package var offset: Int

    package init(message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    package var description: String { message }
}

// Full parser for small documents (token responses, configuration, a single record).
//
// Strict RFC 8259: exactly one value with optional surrounding whitespace; no comments, trailing
// commas, single quotes, NaN/Infinity or leading zeros. Integer literals that fit `Int` become
// `.int`; every other number becomes `.double` (a number beyond the `Double` range, like `1e400`,
// is an error). `\uXXXX` escapes including surrogate pairs are decoded; a lone surrogate escape
// becomes U+FFFD. Raw bytes that are not valid UTF-8 are rejected ("invalid UTF-8 at byte N"),
// as are unescaped control characters in strings. Nesting is limited to 512 arrays/objects.
// A repeated object key keeps its first position and the last value.

extension JSONValue {
    /// Parses one JSON document (UTF-8 bytes).
    package static func parse(_ bytes: some Collection<UInt8>) throws -> JSONValue {
        if let result = try bytes.withContiguousStorageIfAvailable({ try parse(buffer: UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return try Array(bytes).withUnsafeBytes { try parse(buffer: $0) }
    }

    /// Parses one JSON document.
    package static func parse(_ text: String) throws -> JSONValue {
        var text = text
        return try text.withUTF8 { try parse(buffer: UnsafeRawBufferPointer($0)) }
    }

    /// Parses one JSON document from raw bytes.
    package static func parse(buffer: UnsafeRawBufferPointer) throws -> JSONValue {
        var scanner = JSONScanner(buffer)
        let value = try scanner.readValue()
        try scanner.expectEnd()
        return value
    }
}

extension JSONScanner {
    /// Reads the next value into a `JSONValue` tree.
    mutating func readValue() throws -> JSONValue {
        skipWhitespace()
        guard pos < end else { throw endOfInput() }
        switch byte(pos) {
        case UInt8(ascii: "{"):
            var object = JSONObject()
            try readObject { key, scanner in
                object[key.string] = try scanner.readValue()
            }
            return .object(object)
        case UInt8(ascii: "["):
            var array: [JSONValue] = []
            try readArray { scanner in
                array.append(try scanner.readValue())
            }
            return .array(array)
        case UInt8(ascii: "\""):
            return .string(try readString() ?? "")
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            return .bool(try readBool() ?? false)
        case UInt8(ascii: "n"):
            try skipValue()
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = pos
            if try skipNumber() {
                var p = start
                let negative = byte(p) == UInt8(ascii: "-")
                if negative { p &+= 1 }
                if pos &- p <= 18 {
                    var value = 0
                    while p < pos {
                        value = value &* 10 &+ Int(byte(p) &- UInt8(ascii: "0"))
                        p &+= 1
                    }
                    return .int(negative ? -value : value)
                }
                if let i = Int(numberText(start, pos)) { return .int(i) }
            }
            return .double(try doubleValue(start, pos))
        default:
            throw unexpected(at: pos)
        }
    }
}
