// Compact JSON serialization: no insignificant whitespace, object keys in stored order, `/` not
// escaped, non-ASCII as raw UTF-8, `"` `\` and control characters escaped. The output never
// contains a newline byte, so one value per line is always safe (JSON Lines).

extension JSONValue {
    /// The compact JSON text of this value.
    package func serialized() -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128)
        serialize(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the compact JSON text of this value to `bytes`.
    package func serialize(into bytes: inout [UInt8]) {
        switch self {
        case .null:
            bytes.append(contentsOf: JSONText.null)
        case .bool(let b):
            bytes.append(contentsOf: b ? JSONText.true : JSONText.false)
        case .int(let i):
            JSONText.appendInt(i, to: &bytes)
        case .double(let d):
            JSONText.appendDouble(d, to: &bytes)
        case .string(let s):
            JSONText.appendString(s, to: &bytes)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                element.serialize(into: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            var first = true
            for (key, value) in object {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                JSONText.appendString(key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                value.serialize(into: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text (same as `serialized()`).
    package var description: String { serialized() }
}

/// Serialization helpers shared by the value serializer and tools that emit JSON by hand.
enum JSONText {
    static let null: [UInt8] = Array("null".utf8)
    static let `true`: [UInt8] = Array("true".utf8)
    static let `false`: [UInt8] = Array("false".utf8)

    static func appendInt(_ value: Int, to bytes: inout [UInt8]) {
        if value >= 0 && value < 10 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
            return
        }
        // Digits right to left into a stack buffer: no String allocation.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buf in
            var i = 20
            var m = value.magnitude
            repeat {
                i -= 1
                buf[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: m % 10)
                m /= 10
            } while m != 0
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buf[i..<20]))
        }
    }

    /// Shortest round-trip text; integral values within ±2^53 without a fraction (`4.0` → `4`);
    /// NaN and infinities (not representable in JSON) as `null`.
    static func appendDouble(_ value: Double, to bytes: inout [UInt8]) {
        guard value.isFinite else {
            bytes.append(contentsOf: null)
            return
        }
        if value == value.rounded(.towardZero) && value.magnitude <= 9_007_199_254_740_992 {
            appendInt(Int(value), to: &bytes)
            return
        }
        // Swift's description is the shortest text that round-trips, e.g. "4.5", "1e+300",
        // "1e-07": all valid JSON numbers.
        bytes.append(contentsOf: value.description.utf8)
    }

    static func appendString(_ string: String, to bytes: inout [UInt8]) {
        var string = string
        string.withUTF8 { appendString(utf8: UnsafeRawBufferPointer($0), to: &bytes) }
    }

    /// `utf8` must be valid UTF-8 (it is copied as is apart from escapes).
    static func appendString(utf8: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var runStart = 0
        let n = utf8.count
        var i = 0
        while i < n {
            let c = utf8[i]
            if c >= 0x20 && c != UInt8(ascii: "\"") && c != UInt8(ascii: "\\") {
                i += 1
                continue
            }
            if runStart < i { bytes.append(contentsOf: utf8[runStart..<i]) }
            bytes.append(UInt8(ascii: "\\"))
            switch c {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            default:
                bytes.append(contentsOf: [
                    UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                    hexDigit(c >> 4), hexDigit(c & 0xF),
                ])
            }
            i += 1
            runStart = i
        }
        if runStart < n { bytes.append(contentsOf: utf8[runStart..<n]) }
        bytes.append(UInt8(ascii: "\""))
    }

    @inline(__always)
    static func hexDigit(_ v: UInt8) -> UInt8 {
        v < 10 ? UInt8(ascii: "0") &+ v : UInt8(ascii: "a") &+ (v &- 10)
    }
}
