import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

@Suite(.tags(.small)) struct Base64URLTests {
    /// RFC 4648 §10 vectors, in the URL-safe alphabet without padding.
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"),
        ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
    ])
    func rfc4648Vectors(plain: String, encoded: String) {
        #expect(Base64URL.encode(plain.utf8) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test func usesURLSafeAlphabet() {
        // 0xfb 0xff 0xbf is "+/+/" in standard base64.
        #expect(Base64URL.encode([0xfb, 0xff, 0xbf]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xfb, 0xff, 0xbf])
        #expect(Base64URL.encode([0xff]) == "_w")
        #expect(Base64URL.encode([0xfe, 0xff]) == "_v8")
    }

    @Test func roundTripsEveryLengthAndByte() {
        let bytes = Array((0...255).map { UInt8($0) })
        for n in 0...bytes.count {
            let slice = Array(bytes.prefix(n))
            let text = Base64URL.encode(slice)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text) == slice)
        }
    }

    @Test func decodeAcceptsPaddingButRejectsJunk() {
        #expect(Base64URL.decode("Zg==") == Array("f".utf8))
        #expect(Base64URL.decode("Zm8=") == Array("fo".utf8))
        #expect(Base64URL.decode("Zg=") == nil)  // wrong padding
        #expect(Base64URL.decode("Zm9vY") == nil)  // 4n+1 characters
        #expect(Base64URL.decode("Zm9+") == nil)  // standard alphabet
        #expect(Base64URL.decode("Zm9/") == nil)
        #expect(Base64URL.decode("Zm 9v") == nil)  // whitespace
        #expect(Base64URL.decode("Zh") == nil)  // non-zero unused bits
        #expect(Base64URL.decode("Zm9vé") == nil)
    }
}

@Suite(.tags(.small)) struct PKCETests {
    @Test func rfc7636AppendixB() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        #expect(isValidVerifier(verifier))
        #expect(PKCE.challenge(for: verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test func alphabetIsThe66Unreserved() {
        #expect(PKCE.unreservedCharacters.count == 66)
        #expect(Set(PKCE.unreservedCharacters).count == 66)
        #expect(
            String(PKCE.unreservedCharacters) == "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    }

    @Test(arguments: [43, 64, 128])
    func generatedVerifiers(length: Int) {
        let allowed = Set(PKCE.unreservedCharacters)
        let a = PKCE.makeVerifier(length: length)
        let b = PKCE.makeVerifier(length: length)
        #expect(a.count == length)
        #expect(a.allSatisfy { allowed.contains($0) })
        #expect(isValidVerifier(a))
        #expect(a != b)
    }

    @Test func defaultVerifierLengthIs64() {
        #expect(PKCE.makeVerifier().count == 64)
    }

    @Test func generatorUsesTheWholeAlphabet() {
        // 100 verifiers of 128 characters: each of the 66 characters is expected ~194 times,
        // so missing any of them would be (65/66)^12800 ≈ 1e-85 likely with a uniform source.
        var seen = Set<Character>()
        for _ in 0..<100 { seen.formUnion(PKCE.makeVerifier(length: 128)) }
        #expect(seen == Set(PKCE.unreservedCharacters))
    }

    @Test func verifierValidationBoundaries() {
        #expect(!isValidVerifier(String(repeating: "a", count: 42)))
        #expect(isValidVerifier(String(repeating: "a", count: 43)))
        #expect(isValidVerifier(String(repeating: "~", count: 128)))
        #expect(!isValidVerifier(String(repeating: "a", count: 129)))
        #expect(!isValidVerifier(""))
        let base = String(repeating: "a", count: 50)
        for bad in ["+", "/", "=", " ", "%", "é", "\u{0}"] {
            #expect(!isValidVerifier(base + bad), "accepted \(bad.debugDescription)")
        }
        #expect(isValidVerifier(base + "-._~"))
    }

    @Test func statesAreRandomBase64URL() {
        let a = PKCE.makeState()
        let b = PKCE.makeState()
        #expect(a != b)
        #expect(a.count == 43)
        #expect(Base64URL.decode(a)?.count == 32)
    }
}

/// Whether `s` is a syntactically valid code verifier (RFC 7636 4.1): 43...128 unreserved ASCII
/// characters. Only the tests need to ask: the tool makes verifiers, it never checks one.
private func isValidVerifier(_ s: String) -> Bool {
    let bytes = Array(s.utf8)
    guard PKCE.verifierLengths.contains(bytes.count) else { return false }
    return bytes.allSatisfy(URLForm.isUnreserved)
}
