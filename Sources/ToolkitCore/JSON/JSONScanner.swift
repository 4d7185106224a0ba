#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the next value in a `JSONScanner` is, judged from its first byte.
enum JSONKind: Sendable, Equatable, CustomStringConvertible {
    case object, array, string, number, bool, null
    /// Not the start of any JSON value, or the end of the input.
    case invalid

    var description: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        case .invalid: "not a JSON value"
        }
    }
}

/// An object member name as it appears in the input, between its quotes, escapes undecoded.
/// Only valid while the scanner's bytes are.
struct JSONKey {
    /// The bytes between the quotes (escape sequences not decoded).
    let rawBytes: UnsafeRawBufferPointer
    /// Whether `rawBytes` contains backslash escapes.
    let hasEscapes: Bool

    /// Whether the key equals `name`. Compares bytes without allocating. A key written with
    /// escapes (`"dur\u0061tion_ms"`) is decoded first (allocates), so it matches like the
    /// decoded text. (There is deliberately no `String` overload: a string literal would pick
    /// it over this one and pay for a `String`; compare `string` for names known at run time.)
    @inline(__always)
    func matches(_ name: StaticString) -> Bool {
        name.withUTF8Buffer { matches(utf8: UnsafeRawBufferPointer($0)) }
    }

    @inline(__always)
    func matches(utf8 name: UnsafeRawBufferPointer) -> Bool {
        if hasEscapes { return string.utf8.elementsEqual(name) }
        let n = name.count
        guard n == rawBytes.count else { return false }
        guard n != 0 else { return true }
        let a = rawBytes.baseAddress!
        let b = name.baseAddress!
        var i = 0
        while i &+ 8 <= n {
            if a.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                != b.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            {
                return false
            }
            i &+= 8
        }
        while i < n {
            if a.load(fromByteOffset: i, as: UInt8.self) != b.load(fromByteOffset: i, as: UInt8.self) { return false }
            i &+= 1
        }
        return true
    }

    /// The decoded key.
    var string: String {
        hasEscapes ? JSONScanner.decodeEscaped(rawBytes) : String(decoding: rawBytes, as: UTF8.self)
    }
}

/// A validating pull scanner over JSON text in memory, for hot paths: it builds no `JSONValue`
/// tree and allocates nothing unless asked for a `String`.
///
/// Everything it passes over is validated as strict RFC 8259 JSON (string escapes, control
/// characters, UTF-8, number grammar, literals, nesting up to `maxDepth`), including values the
/// caller skips. Errors are `JSONParseError` with a 0-based byte offset into the scanned bytes.
///
/// The `read…` methods skip leading whitespace and consume exactly one value. `readInt`,
/// `readDouble`, `readString` and `readBool` return nil when the value is of another kind; the
/// value is still consumed (and validated).
///
/// The scanner holds a pointer to the bytes; they must stay valid while it is used.
struct JSONScanner {
    /// Maximum nesting of arrays and objects.
    static let maxDepth = 512

    let base: UnsafeRawPointer
    let end: Int
    var pos: Int = 0
    var depth: Int = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        // An empty buffer may have no address; it is never dereferenced (every load checks `end`).
        base = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
        end = bytes.count
    }

    /// The current byte offset.
    var offset: Int { pos }

    // MARK: Public reading API

    /// The kind of the next value (after whitespace), without consuming anything.
    var nextKind: JSONKind {
        var p = pos
        while p < end, Self.isWhitespace(byte(p)) { p += 1 }
        guard p < end else { return .invalid }
        switch byte(p) {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        default: return .invalid
        }
    }

    /// Reads the object at the cursor, calling `body` once per member in input order (duplicate
    /// keys are passed as they come). `body` may consume the member's value with one `read…`
    /// call, `skipValue`, or a nested `readObject`/`readArray`; if it consumes nothing the value
    /// is skipped (and validated). Throws if the next value is not an object.
    mutating func readObject(_ body: (_ key: JSONKey, _ scanner: inout JSONScanner) throws -> Void) throws {
        skipWhitespace()
        guard pos < end, byte(pos) == UInt8(ascii: "{") else { throw expected("an object") }
        if try enterContainer(closedBy: UInt8(ascii: "}")) { return }
        while true {
            guard pos < end else { throw endOfInput() }
            guard byte(pos) == UInt8(ascii: "\"") else { throw unexpected(at: pos) }
            let keyStart = pos &+ 1
            pos = keyStart
            let escaped = try skipStringBody()
            let key = JSONKey(
                rawBytes: UnsafeRawBufferPointer(start: base + keyStart, count: pos &- 1 &- keyStart),
                hasEscapes: escaped)
            try expectColon()
            let valueStart = pos
            try body(key, &self)
            if pos == valueStart { try skipValue() }
            if try afterMember(close: UInt8(ascii: "}")) { break }
        }
        depth &-= 1
    }

    /// Reads the array at the cursor, calling `body` once per element; an element `body` does
    /// not consume is skipped. Throws if the next value is not an array.
    mutating func readArray(_ body: (_ scanner: inout JSONScanner) throws -> Void) throws {
        skipWhitespace()
        guard pos < end, byte(pos) == UInt8(ascii: "[") else { throw expected("an array") }
        if try enterContainer(closedBy: UInt8(ascii: "]")) { return }
        while true {
            let valueStart = pos
            try body(&self)
            if pos == valueStart { try skipValue() }
            if try afterMember(close: UInt8(ascii: "]")) { break }
        }
        depth &-= 1
    }

    /// Consumes the next value, validating it.
    mutating func skipValue() throws {
        skipWhitespace()
        guard pos < end else { throw endOfInput() }
        switch byte(pos) {
        case UInt8(ascii: "\""):
            pos &+= 1
            _ = try skipStringBody()
        case UInt8(ascii: "{"):
            try skipObject()
        case UInt8(ascii: "["):
            try skipArray()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            _ = try skipNumber()
        case UInt8(ascii: "t"):
            try skipLiteral(0x6575_7274, length: 4)  // "true"
        case UInt8(ascii: "f"):
            try skipLiteral(0x6573_6c61, length: 5, first: UInt8(ascii: "f"))  // "f" + "alse"
        case UInt8(ascii: "n"):
            try skipLiteral(0x6c6c_756e, length: 4)  // "null"
        default:
            throw unexpected(at: pos)
        }
    }

    /// Where the next value starts when it is a number; otherwise skips (and validates) it and returns nil.
    @inline(__always)
    private mutating func numberStart() throws -> Int? {
        skipWhitespace()
        guard pos < end else { throw endOfInput() }
        let c = byte(pos)
        guard c == UInt8(ascii: "-") || Self.isDigit(c) else {
            try skipValue()
            return nil
        }
        return pos
    }

    /// The integer value of the next number, if it is integral and fits `Int` (`3`, `3.0`, `3e2`);
    /// nil for other numbers and other kinds. The value is consumed either way.
    mutating func readInt() throws -> Int? {
        guard let start = try numberStart() else { return nil }
        let isInteger = try skipNumber()
        if isInteger {
            var p = start
            let negative = byte(p) == UInt8(ascii: "-")
            if negative { p &+= 1 }
            if pos &- p <= 18 {  // at most 18 digits: cannot overflow
                var value = 0
                while p < pos {
                    value = value &* 10 &+ Int(byte(p) &- UInt8(ascii: "0"))
                    p &+= 1
                }
                return negative ? -value : value
            }
            return Int(numberText(start, pos))
        }
        guard let d = Double(numberText(start, pos)) else { return nil }
        return Int(exactly: d)
    }

    /// The next string, decoded; nil for other kinds (the value is consumed either way).
    /// Lone UTF-16 surrogates written as `\uXXXX` escapes decode to U+FFFD.
    mutating func readString() throws -> String? {
        skipWhitespace()
        guard pos < end else { throw endOfInput() }
        guard byte(pos) == UInt8(ascii: "\"") else {
            try skipValue()
            return nil
        }
        let start = pos &+ 1
        pos = start
        let escaped = try skipStringBody()
        let raw = UnsafeRawBufferPointer(start: base + start, count: pos &- 1 &- start)
        return escaped ? Self.decodeEscaped(raw) : String(decoding: raw, as: UTF8.self)
    }

    /// The next boolean; nil for other kinds (the value is consumed either way).
    mutating func readBool() throws -> Bool? {
        skipWhitespace()
        guard pos < end else { throw endOfInput() }
        let c = byte(pos)
        try skipValue()
        return c == UInt8(ascii: "t") ? true : c == UInt8(ascii: "f") ? false : nil
    }

    /// Consumes the next value and returns its exact bytes (for passing a value through
    /// unchanged). Valid as long as the scanned bytes are.
    mutating func readRawValue() throws -> UnsafeRawBufferPointer {
        skipWhitespace()
        let start = pos
        try skipValue()
        return UnsafeRawBufferPointer(start: base + start, count: pos &- start)
    }

    /// Throws unless only whitespace is left.
    mutating func expectEnd() throws {
        skipWhitespace()
        if pos < end {
            throw JSONParseError(
                message: "unexpected \(Self.describe(byte(pos))) after the JSON value at byte \(pos)",
                offset: pos)
        }
    }

    /// Scans one JSON Lines record: `bytes` must be exactly one JSON object (surrounding
    /// whitespace allowed). Calls `body` for each top-level member as `readObject` does, then
    /// checks the rest of the line.
    ///
    /// Parse errors are rethrown as `JSONParseError` with the message prefixed `"not JSON: "`
    /// (e.g. `not JSON: unexpected end of input`), or `"not a JSON object (found an array)"`
    /// for valid JSON of another kind. Errors `body` throws of other types pass through.
    static func scanObjectLine(
        _ bytes: UnsafeRawBufferPointer,
        _ body: (_ key: JSONKey, _ scanner: inout JSONScanner) throws -> Void
    ) throws {
        var scanner = JSONScanner(bytes)
        do {
            let kind = scanner.nextKind
            if kind == .object {
                try scanner.readObject(body)
                try scanner.expectEnd()
                return
            }
            try scanner.skipValue()
            try scanner.expectEnd()
        } catch let error as JSONParseError {
            throw JSONParseError(message: "not JSON: " + error.message, offset: error.offset)
        }
        throw JSONParseError(message: "not a JSON object (found \(scanner.kindAtStart))", offset: 0)
    }

    private var kindAtStart: JSONKind {
        var copy = self
        copy.pos = 0
        return copy.nextKind
    }

    // MARK: Internals

    @inline(__always)
    func byte(_ i: Int) -> UInt8 {
        base.load(fromByteOffset: i, as: UInt8.self)
    }

    @inline(__always)
    static func isWhitespace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09
    }

    @inline(__always)
    static func isDigit(_ c: UInt8) -> Bool {
        c &- UInt8(ascii: "0") < 10
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while pos < end {
            let c = byte(pos)
            if c > 0x20 || !Self.isWhitespace(c) { return }
            pos &+= 1
        }
    }

    /// Cursor at an opening bracket: steps inside, whitespace skipped. True when the container
    /// is empty: the cursor is then past its closing bracket, outside it again.
    @inline(__always)
    mutating func enterContainer(closedBy close: UInt8) throws -> Bool {
        depth &+= 1
        if depth > Self.maxDepth {
            throw JSONParseError(message: "nesting deeper than \(Self.maxDepth) levels at byte \(pos)", offset: pos)
        }
        pos &+= 1
        skipWhitespace()
        guard pos < end && byte(pos) == close else { return false }
        pos &+= 1
        depth &-= 1
        return true
    }

    /// After the `:` of a member: whitespace skipped, cursor at the value.
    @inline(__always)
    mutating func expectColon() throws {
        skipWhitespace()
        guard pos < end else { throw endOfInput() }
        guard byte(pos) == UInt8(ascii: ":") else { throw unexpected(at: pos) }
        pos &+= 1
        skipWhitespace()
    }

    /// After a member or element: consumes `,` (returns false, cursor at the next member) or
    /// the closing bracket (returns true).
    @inline(__always)
    mutating func afterMember(close: UInt8) throws -> Bool {
        skipWhitespace()
        guard pos < end else { throw endOfInput() }
        let c = byte(pos)
        if c == UInt8(ascii: ",") {
            pos &+= 1
            skipWhitespace()
            return false
        }
        if c == close {
            pos &+= 1
            return true
        }
        throw unexpected(at: pos)
    }

    mutating func skipObject() throws {
        if try enterContainer(closedBy: UInt8(ascii: "}")) { return }
        while true {
            guard pos < end else { throw endOfInput() }
            guard byte(pos) == UInt8(ascii: "\"") else { throw unexpected(at: pos) }
            pos &+= 1
            _ = try skipStringBody()
            try expectColon()
            try skipValue()
            if try afterMember(close: UInt8(ascii: "}")) { break }
        }
        depth &-= 1
    }

    mutating func skipArray() throws {
        if try enterContainer(closedBy: UInt8(ascii: "]")) { return }
        while true {
            try skipValue()
            if try afterMember(close: UInt8(ascii: "]")) { break }
        }
        depth &-= 1
    }

    /// Cursor just after an opening quote. Validates the string (escapes, no raw control
    /// characters, UTF-8) and leaves the cursor after the closing quote. Returns whether the
    /// string contains escapes.
    @inline(__always)
    mutating func skipStringBody() throws -> Bool {
        var p = pos
        var escaped = false
        while true {
            // 8 bytes at a time until a byte that needs a look: `"`, `\`, < 0x20 or >= 0x80.
            while p &+ 8 <= end {
                let w = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: p, as: UInt64.self))
                let m = Self.specialBytes(w)
                if m == 0 {
                    p &+= 8
                } else {
                    p &+= m.trailingZeroBitCount &>> 3
                    break
                }
            }
            guard p < end else { throw unterminatedString(from: pos) }
            let c = byte(p)
            if c == UInt8(ascii: "\"") {
                pos = p &+ 1
                return escaped
            } else if c == UInt8(ascii: "\\") {
                escaped = true
                p = try skipEscape(at: p)
            } else if c < 0x20 {
                throw JSONParseError(
                    message: "unescaped control character U+\(Self.hex(UInt32(c), width: 4)) in a string at byte \(p)",
                    offset: p)
            } else if c >= 0x80 {
                p = try skipUTF8Sequence(at: p)
            } else {
                p &+= 1
            }
        }
    }

    /// High bit set in each byte lane of `w` that is `"`, `\`, a control character or
    /// non-ASCII. Lanes above the first flagged one may be wrong (borrows), but the lowest set
    /// bit is exact, which is all the caller uses.
    @inline(__always)
    static func specialBytes(_ w: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let q = w ^ (ones &* 0x22)
        let b = w ^ (ones &* 0x5C)
        let quote = (q &- ones) & ~q
        let backslash = (b &- ones) & ~b
        let control = w &- (ones &* 0x20)
        return (quote | backslash | (control & ~w) | w) & highs
    }

    /// `p` at a backslash; returns the offset after the escape.
    mutating func skipEscape(at p: Int) throws -> Int {
        guard p &+ 1 < end else { throw unterminatedString(from: pos) }
        switch byte(p &+ 1) {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
            UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return p &+ 2
        case UInt8(ascii: "u"):
            var i = p &+ 2
            while i < p &+ 6 {
                guard i < end else { throw unterminatedString(from: pos) }
                guard Self.hexValue(byte(i)) != nil else {
                    throw JSONParseError(message: "invalid \\u escape at byte \(p)", offset: p)
                }
                i &+= 1
            }
            return i
        default:
            throw JSONParseError(
                message: "invalid escape \(Self.describe(byte(p &+ 1), bare: true)) after '\\' at byte \(p)",
                offset: p)
        }
    }

    /// `p` at a byte >= 0x80 in a string; returns the offset after a valid UTF-8 sequence.
    mutating func skipUTF8Sequence(at p: Int) throws -> Int {
        let c = byte(p)
        var length = 0
        var lo: UInt8 = 0x80
        var hi: UInt8 = 0xBF
        switch c {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            lo = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            hi = 0x9F
        case 0xF0:
            length = 4
            lo = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            hi = 0x8F
        default: throw invalidUTF8(at: p)
        }
        guard p &+ length <= end else { throw invalidUTF8(at: p) }
        let c1 = byte(p &+ 1)
        guard c1 >= lo && c1 <= hi else { throw invalidUTF8(at: p) }
        var i = p &+ 2
        while i < p &+ length {
            guard byte(i) & 0xC0 == 0x80 else { throw invalidUTF8(at: p) }
            i &+= 1
        }
        return i
    }

    /// Cursor at the first byte of a number (`-` or digit). Validates the number grammar and
    /// returns whether it is an integer literal (no fraction, no exponent).
    @inline(__always)
    mutating func skipNumber() throws -> Bool {
        var p = pos
        if byte(p) == UInt8(ascii: "-") { p &+= 1 }
        guard p < end else { throw endOfInput() }
        let first = byte(p)
        if first == UInt8(ascii: "0") {
            p &+= 1
        } else if Self.isDigit(first) {
            p &+= 1
            while p < end && Self.isDigit(byte(p)) { p &+= 1 }
        } else {
            throw unexpected(at: p)
        }
        var integer = true
        if p < end && byte(p) == UInt8(ascii: ".") {
            integer = false
            p &+= 1
            guard p < end else { throw endOfInput() }
            guard Self.isDigit(byte(p)) else { throw unexpected(at: p) }
            while p < end && Self.isDigit(byte(p)) { p &+= 1 }
        }
        if p < end && byte(p) | 0x20 == UInt8(ascii: "e") {
            integer = false
            p &+= 1
            if p < end && (byte(p) == UInt8(ascii: "+") || byte(p) == UInt8(ascii: "-")) { p &+= 1 }
            guard p < end else { throw endOfInput() }
            guard Self.isDigit(byte(p)) else { throw unexpected(at: p) }
            while p < end && Self.isDigit(byte(p)) { p &+= 1 }
        }
        pos = p
        return integer
    }

    /// Cursor at the first letter of `true`, `null` (`word` = the 4 bytes little-endian) or
    /// `false` (`first` = "f", `word` = "alse").
    @inline(__always)
    mutating func skipLiteral(_ word: UInt32, length: Int, first: UInt8? = nil) throws {
        let wordStart = first == nil ? pos : pos &+ 1
        if wordStart &+ 4 <= end
            && UInt32(littleEndian: base.loadUnaligned(fromByteOffset: wordStart, as: UInt32.self)) == word
        {
            pos &+= length
            return
        }
        // Find the first mismatch for the message.
        var expectedBytes: [UInt8] = []
        if let first { expectedBytes.append(first) }
        for i in 0..<4 { expectedBytes.append(UInt8(truncatingIfNeeded: word >> (8 * UInt32(i)))) }
        for (i, e) in expectedBytes.enumerated() {
            let p = pos &+ i
            guard p < end else { throw endOfInput() }
            if byte(p) != e { throw unexpected(at: p) }
        }
        pos &+= length  // not reached
    }

    func numberText(_ start: Int, _ stop: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(start: base + start, count: stop &- start), as: UTF8.self)
    }

    func doubleValue(_ start: Int, _ stop: Int) throws -> Double {
        guard let d = Double(numberText(start, stop)), d.isFinite else {
            throw JSONParseError(message: "number out of range at byte \(start)", offset: start)
        }
        return d
    }

    // MARK: Decoding

    @inline(__always)
    static func hexValue(_ c: UInt8) -> UInt32? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(c &- UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(c &- UInt8(ascii: "a") &+ 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(c &- UInt8(ascii: "A") &+ 10)
        default: nil
        }
    }

    /// Decodes the contents of an already validated string (between the quotes). Lone
    /// surrogates become U+FFFD.
    static func decodeEscaped(_ raw: UnsafeRawBufferPointer) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        let n = raw.count
        var i = 0
        func hex4(_ at: Int) -> UInt32 {
            var v: UInt32 = 0
            for k in 0..<4 { v = v << 4 | (hexValue(raw[at + k]) ?? 0) }
            return v
        }
        while i < n {
            let c = raw[i]
            guard c == UInt8(ascii: "\\"), i + 1 < n else {
                out.append(c)
                i += 1
                continue
            }
            let e = raw[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                guard i + 4 <= n else {
                    i = n
                    break
                }
                var scalar = hex4(i)
                i += 4
                if scalar >= 0xD800 && scalar <= 0xDBFF {
                    // A high surrogate: combine with a following \uDC00-\uDFFF, else U+FFFD.
                    if i + 6 <= n && raw[i] == UInt8(ascii: "\\") && raw[i + 1] == UInt8(ascii: "u") {
                        let low = hex4(i + 2)
                        if low >= 0xDC00 && low <= 0xDFFF {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                            i += 6
                        } else {
                            scalar = 0xFFFD
                        }
                    } else {
                        scalar = 0xFFFD
                    }
                } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                    scalar = 0xFFFD
                }
                appendUTF8(scalar, to: &out)
            default: out.append(e)  // " \ /
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            out.append(UInt8(scalar))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | scalar >> 6))
            out.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | scalar >> 12))
            out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        default:
            out.append(UInt8(0xF0 | scalar >> 18))
            out.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    // MARK: Errors (kept out of line)

    static func hex(_ v: UInt32, width: Int) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }

    /// `'x'` for printable ASCII, `U+0001` for control characters, `byte 0xC3` otherwise.
    static func describe(_ c: UInt8, bare: Bool = false) -> String {
        let noun = bare ? "" : "character "
        if c >= 0x20 && c < 0x7F { return noun + "'\(Character(Unicode.Scalar(c)))'" }
        if c < 0x20 || c == 0x7F { return noun + "U+\(hex(UInt32(c), width: 4))" }
        return (bare ? "" : "byte ") + "0x\(hex(UInt32(c), width: 2))"
    }

    @inline(never)
    func unexpected(at p: Int) -> JSONParseError {
        JSONParseError(message: "unexpected \(Self.describe(byte(p))) at byte \(p)", offset: p)
    }

    @inline(never)
    func endOfInput() -> JSONParseError {
        JSONParseError(message: "unexpected end of input", offset: end)
    }

    @inline(never)
    func unterminatedString(from start: Int) -> JSONParseError {
        JSONParseError(message: "unterminated string starting at byte \(start - 1)", offset: end)
    }

    @inline(never)
    func invalidUTF8(at p: Int) -> JSONParseError {
        JSONParseError(message: "invalid UTF-8 at byte \(p)", offset: p)
    }

    @inline(never)
    func expected(_ what: String) -> JSONParseError {
        guard pos < end else { return endOfInput() }
        let kind = nextKind
        if kind == .invalid { return unexpected(at: pos) }
        return JSONParseError(message: "expected \(what) at byte \(pos), found \(kind)", offset: pos)
    }
}
