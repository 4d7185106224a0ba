import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

@Suite(.tags(.small)) struct JSONValueTests {
    @Test func objectKeepsInsertionOrder() {
        var object: JSONObject = ["zeta": 1, "alpha": 2]
        object["mid"] = 3
        #expect(object.keys == ["zeta", "alpha", "mid"])
        #expect(JSONValue.object(object).serialized() == #"{"zeta":1,"alpha":2,"mid":3}"#)
    }

    @Test func dictionaryLiteralKeepsLiteralOrder() {
        let value: JSONValue = ["b": 1, "a": [true, nil], "c": ["y": 1.5, "x": "s"]]
        #expect(value.serialized() == #"{"b":1,"a":[true,null],"c":{"y":1.5,"x":"s"}}"#)
    }

    @Test func settingExistingKeyReplacesInPlace() {
        var object: JSONObject = ["a": 1, "b": 2, "c": 3]
        object["b"] = "two"
        #expect(object.keys == ["a", "b", "c"])
        #expect(object["b"] == "two")
        let repeated: JSONObject = ["a": 1, "b": 2, "a": 3]
        #expect(repeated.keys == ["a", "b"])
        #expect(repeated["a"] == 3)
    }

    @Test func settingNilRemoves() {
        var object: JSONObject = ["a": 1, "b": 2, "c": 3]
        object["b"] = nil
        #expect(object.keys == ["a", "c"])
        #expect(object["b"] == nil)
        #expect(object.removeValue(forKey: "a") == 1)
        #expect(object.removeValue(forKey: "zz") == nil)
        #expect(object.count == 1)
        // Storing JSON null is not removing.
        object["n"] = .null
        #expect(object.keys == ["c", "n"])
        #expect(object["n"] == .null)
    }

    @Test func largeObjectsUseTheIndexConsistently() {
        var object = JSONObject()
        for i in 0..<40 { object["k\(i)"] = .int(i) }
        #expect(object.keys.first == "k0" && object.keys.last == "k39")
        #expect(object["k25"] == 25)
        object["k25"] = nil
        object["k3"] = "x"
        #expect(object["k25"] == nil)
        #expect(object["k26"] == 26)
        #expect(object["k3"] == "x")
        #expect(object.count == 39)
        for _ in 0..<35 { object[object.keys[0]] = nil }
        #expect(object.keys == ["k36", "k37", "k38", "k39"])
        #expect(object["k38"] == 38)
    }

    @Test func iterationYieldsPairsInOrder() {
        let object: JSONObject = ["x": 1, "y": 2]
        var seen: [String] = []
        for (key, value) in object { seen.append("\(key)=\(value.intValue!)") }
        #expect(seen == ["x=1", "y=2"])
    }

    @Test func objectEqualityIgnoresOrder() {
        let a: JSONObject = ["x": 1, "y": [1, 2]]
        let b: JSONObject = ["y": [1, 2], "x": 1]
        #expect(a == b)
        #expect(a != ["x": 1, "y": [2, 1]])
        #expect(a != ["x": 1])
        #expect(JSONValue.int(4) != JSONValue.double(4))
    }

    @Test func accessors() {
        let value: JSONValue = [
            "s": "text", "i": 7, "d": 2.5, "whole": 3.0, "b": false, "n": nil, "a": [1], "o": ["k": 1],
        ]
        #expect(value["s"]?.stringValue == "text")
        #expect(value["i"]?.intValue == 7)
        #expect(value["i"]?.doubleValue == 7)
        #expect(value["d"]?.doubleValue == 2.5)
        #expect(value["d"]?.intValue == nil)
        #expect(value["whole"]?.intValue == 3)
        #expect(JSONValue.double(1e300).intValue == nil)
        #expect(value["b"]?.boolValue == false)
        #expect(value["n"] == .null)
        #expect(value["a"]?.arrayValue == [1])
        #expect(value["o"]?.objectValue == ["k": 1])
        #expect(value["o"]?["k"] == 1)
        #expect(value["missing"] == nil)
        #expect(value["s"]?["k"] == nil)
        #expect(JSONValue.string("x").intValue == nil)
        #expect(JSONValue.int(1).stringValue == nil)
    }

    @Test func escapes() {
        let s: JSONValue = .string("quote\" backslash\\ nl\n cr\r tab\t bs\u{08} ff\u{0C} nul\u{00} us\u{1F} del\u{7F}")
        #expect(s.serialized() == #""quote\" backslash\\ nl\n cr\r tab\t bs\b ff\f nul\u0000 us\u001f del\#u{7F}""#)
    }

    @Test func slashesAndUnicodeAreRaw() {
        #expect(
            JSONValue.string("https://open.spotify.com/track/x").serialized() == #""https://open.spotify.com/track/x""#)
        #expect(JSONValue.string("Sigur Rós 東京 🎵 \u{2028}").serialized() == "\"Sigur Rós 東京 🎵 \u{2028}\"")
        #expect(JSONValue.object(["ключ": "é"]).serialized() == #"{"ключ":"é"}"#)
    }

    @Test func numbers() {
        #expect(JSONValue.double(4.0).serialized() == "4")
        #expect(JSONValue.double(-4.0).serialized() == "-4")
        #expect(JSONValue.double(-0.0).serialized() == "0")
        #expect(JSONValue.double(4.5).serialized() == "4.5")
        #expect(JSONValue.double(0.1).serialized() == "0.1")
        #expect(JSONValue.double(1e300).serialized() == "1e+300")
        #expect(JSONValue.double(1e-7).serialized() == "1e-07")
        #expect(JSONValue.double(9_007_199_254_740_992).serialized() == "9007199254740992")
        #expect(JSONValue.double(1e16).serialized() == "1e+16")
        #expect(JSONValue.double(.nan).serialized() == "null")
        #expect(JSONValue.double(.infinity).serialized() == "null")
        #expect(JSONValue.double(-.infinity).serialized() == "null")
        #expect(JSONValue.int(0).serialized() == "0")
        #expect(JSONValue.int(-7).serialized() == "-7")
        #expect(JSONValue.int(322506).serialized() == "322506")
        #expect(JSONValue.int(.max).serialized() == "9223372036854775807")
        #expect(JSONValue.int(.min).serialized() == "-9223372036854775808")
    }

    @Test func nestedAndEmpty() {
        let value: JSONValue = ["a": [], "o": [:], "deep": [[["x": [nil, true, false]]]]]
        #expect(value.serialized() == #"{"a":[],"o":{},"deep":[[{"x":[null,true,false]}]]}"#)
        #expect(value.description == value.serialized())
    }

    @Test func serializeAppends() {
        var bytes = Array("prefix ".utf8)
        JSONValue.array([1, "two"]).serialize(into: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == #"prefix [1,"two"]"#)
    }

    @Test func neverEmitsNewline() {
        let value: JSONValue = ["k\n": "a\nb\r\n", "l": ["\n"]]
        #expect(!value.serialized().utf8.contains(0x0A))
    }
}
