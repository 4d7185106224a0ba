import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

@Suite(.tags(.small)) struct SHA256Tests {
    private func hex(_ s: String) -> String { SHA256.hex(SHA256.hash(s.utf8)) }

    @Test func fipsVectors() {
        #expect(hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            hex(
                "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
            )
                == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
    }

    @Test func oneMillionA() {
        let digest = SHA256.hash(repeatElement(UInt8(ascii: "a"), count: 1_000_000))
        #expect(SHA256.hex(digest) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Lengths around the padding boundaries (55 fits one block, 56 needs two, ...).
    /// Digests computed once with `head -c N /dev/zero | tr '\0' a | sha256sum`.
    @Test(arguments: [
        (55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        (56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
        (63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"),
        (64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
        (65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"),
        (119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"),
        (120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"),
        (127, "c57e9278af78fa3cab38667bef4ce29d783787a2f731d4e12200270f0c32320a"),
        (128, "6836cf13bac400e9105071cd6af47084dfacad4e5e302c94bfed24e013afb73e"),
    ])
    func paddingEdgeLengths(length: Int, expected: String) {
        #expect(SHA256.hex(SHA256.hash(Array(repeating: UInt8(ascii: "a"), count: length))) == expected)
    }

    @Test func allByteValuesAndUTF8() {
        // Computed once with Python's hashlib.
        let oneOfEach: [UInt8] = (0...255).map { UInt8($0) }
        var all: [UInt8] = []
        for _ in 0..<4 { all += oneOfEach }
        #expect(SHA256.hex(SHA256.hash(all)) == "785b0751fc2c53dc14a4ce3d800e69ef9ce1009eb327ccf458afe09c242c26c9")
        #expect(hex("héllo wörld ✓") == "c2a59c71097b678dc5af2eb1f98ddc575b63948b0fa6740071a945673aaada4d")
    }

    @Test func incrementalMatchesOneShot() {
        let data = Array((0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        let expected = SHA256.hash(data)
        for split in [0, 1, 55, 63, 64, 65, 500, 999, 1000] {
            var hasher = SHA256Hasher()
            hasher.update(data[..<split])
            hasher.update(data[split...])
            #expect(hasher.finalize() == expected, "split at \(split)")
        }
        var byteAtATime = SHA256Hasher()
        for b in data { byteAtATime.update(CollectionOfOne(b)) }
        #expect(byteAtATime.finalize() == expected)
    }

    @Test func finalizeResetsTheHasher() {
        var hasher = SHA256Hasher()
        hasher.update("abc".utf8)
        _ = hasher.finalize()
        #expect(SHA256.hex(hasher.finalize()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func digestIs32Bytes() {
        #expect(SHA256.hash([UInt8]()).count == 32)
        #expect(SHA256.hash("x".utf8).count == 32)
    }
}
