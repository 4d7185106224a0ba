import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

@Suite(.tags(.small)) struct URLFormTests {
    private func flat(_ pairs: [(name: String, value: String)]) -> [String] {
        pairs.map { "\($0.name)=\($0.value)" }
    }

    @Test func decodesQueryString() {
        let pairs = URLForm.decode("code=AQB_x-1&state=abc123")
        #expect(flat(pairs) == ["code=AQB_x-1", "state=abc123"])
        #expect(URLForm.value("state", in: pairs) == "abc123")
        #expect(URLForm.value("missing", in: pairs) == nil)
    }

    @Test func plusIsSpaceAndPercentEscapes() {
        let pairs = URLForm.decode("q=hello+world&r=a%2Bb&s=%20x%3D")
        #expect(URLForm.value("q", in: pairs) == "hello world")
        #expect(URLForm.value("r", in: pairs) == "a+b")
        #expect(URLForm.value("s", in: pairs) == " x=")
    }

    @Test func utf8() {
        let pairs = URLForm.decode("name=Bj%C3%B6rk&emoji=%F0%9F%8E%B5&raw=caf\u{e9}")
        #expect(URLForm.value("name", in: pairs) == "Björk")
        #expect(URLForm.value("emoji", in: pairs) == "🎵")
        #expect(URLForm.value("raw", in: pairs) == "café")
        #expect(URLForm.value("bad", in: URLForm.decode("bad=%FF")) == "\u{FFFD}")
    }

    @Test func equalsInsideValueEmptyValuesAndMissingEquals() {
        let pairs = URLForm.decode("a=b=c&empty=&flag&=novalue&&last=1")
        #expect(flat(pairs) == ["a=b=c", "empty=", "flag=", "=novalue", "last=1"])
        #expect(URLForm.value("flag", in: pairs) == "")
        #expect(URLForm.decode("").isEmpty)
        #expect(URLForm.decode("&&").isEmpty)
    }

    @Test func invalidEscapesAreKeptLiterally() {
        let pairs = URLForm.decode("a=100%&b=%zz&c=%4&d=%%41")
        #expect(flat(pairs) == ["a=100%", "b=%zz", "c=%4", "d=%A"])
    }

    @Test func repeatedNamesKeepOrderAndFirstWins() {
        let pairs = URLForm.decode("x=1&x=2")
        #expect(flat(pairs) == ["x=1", "x=2"])
        #expect(URLForm.value("x", in: pairs) == "1")
    }

    @Test func encodesEverythingButUnreserved() {
        #expect(
            URLForm.encode([("grant_type", "authorization_code"), ("redirect_uri", "http://127.0.0.1:8888/callback")])
                == "grant_type=authorization_code&redirect_uri=http%3A%2F%2F127.0.0.1%3A8888%2Fcallback")
        #expect(URLForm.encode([("a b", "c+d&e=f~._-")]) == "a%20b=c%2Bd%26e%3Df~._-")
        #expect(URLForm.encode([("q", "Björk 🎵")]) == "q=Bj%C3%B6rk%20%F0%9F%8E%B5")
        #expect(
            URLForm.encode([("scope", "user-read-private user-read-email")])
                == "scope=user-read-private%20user-read-email")
        #expect(URLForm.encode([("empty", "")]) == "empty=")
        #expect(URLForm.encode([]) == "")
    }

    @Test func roundTrip() {
        let original: [(String, String)] = [("a", "1 2+3"), ("ü", "=&%"), ("empty", ""), ("x", "🎵\n\t")]
        let decoded = URLForm.decode(URLForm.encode(original))
        #expect(decoded.map(\.name) == original.map(\.0))
        #expect(decoded.map(\.value) == original.map(\.1))
    }

    @Test func percentDecodeLeavesPlusByDefault() {
        #expect(URLForm.percentDecode("/a+b%20c") == "/a+b c")
        #expect(URLForm.percentDecode("a+b", plusAsSpace: true) == "a b")
    }
}
