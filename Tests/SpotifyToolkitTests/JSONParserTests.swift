import Foundation
import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

@Suite(.tags(.small)) struct JSONParserTests {
    @Test func scalars() throws {
        #expect(try JSONValue.parse("null") == .null)
        #expect(try JSONValue.parse("true") == .bool(true))
        #expect(try JSONValue.parse("false") == .bool(false))
        #expect(try JSONValue.parse("0") == .int(0))
        #expect(try JSONValue.parse("-0") == .int(0))
        #expect(try JSONValue.parse("322506") == .int(322506))
        #expect(try JSONValue.parse("-42") == .int(-42))
        #expect(try JSONValue.parse("9223372036854775807") == .int(.max))
        #expect(try JSONValue.parse("-9223372036854775808") == .int(.min))
        #expect(try JSONValue.parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try JSONValue.parse("1.5") == .double(1.5))
        #expect(try JSONValue.parse("1.0") == .double(1))
        #expect(try JSONValue.parse("-2.5E-3") == .double(-0.0025))
        #expect(try JSONValue.parse("1e2") == .double(100))
        #expect(try JSONValue.parse("1E+300") == .double(1e300))
        #expect(try JSONValue.parse("1e-400") == .double(0))
        #expect(try JSONValue.parse(#""text""#) == .string("text"))
        #expect(try JSONValue.parse(#""""#) == .string(""))
    }

    @Test func containersAndWhitespace() throws {
        let text = " \t\r\n{ \"a\" : [ 1 , 2.5 , \"x\" , null , true , { } , [ ] ] , \"b\" : { \"c\" : false } }\n "
        let value = try JSONValue.parse(text)
        #expect(value == ["a": [1, 2.5, "x", nil, true, [:], []], "b": ["c": false]])
        #expect(value.objectValue?.keys == ["a", "b"])
        #expect(try JSONValue.parse("[]") == [])
        #expect(try JSONValue.parse("{}") == .object([:]))
    }

    @Test func keyOrderAndDuplicateKeys() throws {
        let value = try JSONValue.parse(#"{"z":1,"a":2,"z":3}"#)
        #expect(value.objectValue?.keys == ["z", "a"])
        #expect(value["z"] == 3)
    }

    @Test func escapes() throws {
        let value = try JSONValue.parse(#""\" \\ \/ \b \f \n \r \t \u0041 \u00e9 \u6771 \uD83C\uDFB5""#)
        #expect(value == .string("\" \\ / \u{08} \u{0C} \n \r \t A é 東 🎵"))
        // Lone surrogates decode to U+FFFD.
        #expect(try JSONValue.parse(#""\uD83C""#) == .string("\u{FFFD}"))
        #expect(try JSONValue.parse(#""\uDFB5x""#) == .string("\u{FFFD}x"))
        #expect(try JSONValue.parse(#""\uD83C\u0041""#) == .string("\u{FFFD}A"))
        // Escaped keys are decoded.
        #expect(try JSONValue.parse(#"{"\u0061b":1}"#)["ab"] == 1)
    }

    @Test func rawUTF8() throws {
        #expect(try JSONValue.parse("\"Sigur Rós 東京 🎵\"") == .string("Sigur Rós 東京 🎵"))
        let bytes: [UInt8] = [0x22, 0xC3, 0xA9, 0x22]
        #expect(try JSONValue.parse(bytes) == .string("é"))
        #expect(try JSONValue.parse(Data(bytes)) == .string("é"))
        #expect(try JSONValue.parse(bytes[...]) == .string("é"))
    }

    private func error(_ text: String) -> JSONParseError? {
        error(Array(text.utf8))
    }

    private func error(_ bytes: [UInt8]) -> JSONParseError? {
        do {
            _ = try JSONValue.parse(bytes)
            return nil
        } catch let e as JSONParseError {
            return e
        } catch {
            return nil
        }
    }

    @Test func errorsCarryMessageAndOffset() {
        #expect(error(#"{"a":x}"#) == JSONParseError(message: "unexpected character 'x' at byte 5", offset: 5))
        #expect(error("") == JSONParseError(message: "unexpected end of input", offset: 0))
        #expect(error("   ") == JSONParseError(message: "unexpected end of input", offset: 3))
        #expect(error(#"{"a":1"#) == JSONParseError(message: "unexpected end of input", offset: 6))
        #expect(error("[1,2") == JSONParseError(message: "unexpected end of input", offset: 4))
        #expect(error(#""abc"#)?.message == "unterminated string starting at byte 0")
        #expect(error("tru")?.message == "unexpected end of input")
        #expect(error("trux") == JSONParseError(message: "unexpected character 'x' at byte 3", offset: 3))
        #expect(error("nul") != nil)
        #expect(error("fals") != nil)
        #expect(error("True")?.message == "unexpected character 'T' at byte 0")
    }

    @Test func trailingGarbage() {
        #expect(
            error("1 2")
                == JSONParseError(message: "unexpected character '2' after the JSON value at byte 2", offset: 2))
        #expect(error("{}{}")?.offset == 2)
        #expect(error("[1]]")?.offset == 3)
        #expect(error("nullx")?.offset == 4)
        #expect(error("{} // comment")?.offset == 3)
    }

    @Test func grammarViolations() {
        let bad = [
            "[1,]", #"{"a":1,}"#, "[,1]", "{,}", #"{"a" 1}"#, #"{a:1}"#, "{'a':1}", "[1 2]", #"{"a":1 "b":2}"#,
            "01", "-", "-a", "1.", "1.e5", ".5", "1e", "1e+", "+1", "0x10", "NaN", "Infinity", "-Infinity",
            "/* c */ 1", "[", "]", "}", ":", #""\x""#, #""\u12G4""#, #""\u12""#, "\"a\tb\"", "\"a\nb\"", "\u{1}",
        ]
        for text in bad {
            #expect(error(text) != nil, "accepted \(text.debugDescription)")
        }
    }

    @Test func specificMessages() {
        #expect(error(#""\x""#)?.message == "invalid escape 'x' after '\\' at byte 1")
        #expect(error(#""\u12G4""#)?.message == "invalid \\u escape at byte 1")
        #expect(
            error("\"a\tb\"")
                == JSONParseError(message: "unescaped control character U+0009 in a string at byte 2", offset: 2))
        #expect(error("1e400") == JSONParseError(message: "number out of range at byte 0", offset: 0))
        #expect(error("[1,]")?.message == "unexpected character ']' at byte 3")
        #expect(error("\u{1}")?.message == "unexpected character U+0001 at byte 0")
    }

    @Test func invalidUTF8IsRejected() {
        let cases: [[UInt8]] = [
            [0x22, 0xFF, 0x22],  // never valid
            [0x22, 0xC3, 0x22],  // truncated
            [0x22, 0xC0, 0xAF, 0x22],  // overlong
            [0x22, 0xE0, 0x80, 0xAF, 0x22],  // overlong 3-byte
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // encoded surrogate
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // beyond U+10FFFF
            [0x22, 0x80, 0x22],  // lone continuation
            [0x22, 0xE6, 0x9D],  // truncated at end of input
        ]
        for bytes in cases {
            #expect(error(bytes)?.message == "invalid UTF-8 at byte 1", "accepted \(bytes)")
        }
        #expect(error([0xC3, 0xA9])?.message == "unexpected byte 0xC3 at byte 0")
    }

    @Test func depthLimit() throws {
        let ok = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(try JSONValue.parse(ok).arrayValue != nil)
        let tooDeep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect(error(tooDeep) == JSONParseError(message: "nesting deeper than 512 levels at byte 512", offset: 512))
        let objects = String(repeating: #"{"a":"#, count: 600) + "1" + String(repeating: "}", count: 600)
        #expect(error(objects)?.message.hasPrefix("nesting deeper than 512 levels") == true)
    }

    @Test func roundTrip() throws {
        let text = #"{"id":"4iV5W9uYEdYUVa79Axb7Rh","n":[1,-2.5,1e+300,true,null],"s":"é\"\\\n/","o":{"z":{},"a":[]}}"#
        let value = try JSONValue.parse(text)
        #expect(value.serialized() == text)
        #expect(try JSONValue.parse(value.serialized()) == value)
    }

    @Test func spotifyFixtureShape() throws {
        let value = try JSONValue.parse(JSONLinesFixtures.playlistItem)
        #expect(value["item"]?["duration_ms"] == 322506)
        #expect(value["item"]?["album"]?["images"]?.arrayValue?.count == 3)
        #expect(value["primary_color"] == .null)
        #expect(value.serialized() == JSONLinesFixtures.playlistItem)
    }
}
