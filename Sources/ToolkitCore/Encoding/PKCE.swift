/// Proof Key for Code Exchange (RFC 7636), S256 method, and the OAuth `state` value.
package enum PKCE {
    /// The characters RFC 7636 §4.1 allows in a code verifier: `A-Z a-z 0-9 - . _ ~` (66 in all).
    static let unreservedCharacters: [Character] =
        Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// The lengths RFC 7636 allows for a code verifier.
    static let verifierLengths: ClosedRange<Int> = 43...128

    /// A fresh code verifier of `length` characters (43...128), each drawn uniformly from the
    /// 66 unreserved characters using the system's secure random source
    /// (`SystemRandomNumberGenerator`: getrandom(2) on Linux, arc4random on Darwin).
    package static func makeVerifier(length: Int = 64) -> String {
        precondition(verifierLengths.contains(length), "PKCE verifier length must be 43...128, got \(length)")
        var rng = SystemRandomNumberGenerator()
        var s = ""
        s.reserveCapacity(length)
        for _ in 0..<length {
            // random(in:using:) is unbiased (rejection sampling), so the choice is uniform.
            s.append(unreservedCharacters[Int.random(in: 0..<unreservedCharacters.count, using: &rng)])
        }
        return s
    }

    /// Whether `s` is a syntactically valid code verifier: 43...128 unreserved ASCII characters.
    static func isValidVerifier(_ s: String) -> Bool {
        let bytes = Array(s.utf8)
        guard verifierLengths.contains(bytes.count) else { return false }
        return bytes.allSatisfy(URLForm.isUnreserved)
    }

    /// The S256 code challenge: BASE64URL(SHA256(ASCII(verifier))), without padding.
    package static func challenge(for verifier: String) -> String {
        Base64URL.encode(SHA256.hash(verifier.utf8))
    }

    /// A fresh OAuth `state` value: 32 secure random bytes, base64url (43 characters).
    package static func makeState() -> String {
        var rng = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for _ in 0..<4 {
            let word = rng.next() as UInt64
            for shift in stride(from: 0, to: 64, by: 8) {
                bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        return Base64URL.encode(bytes)
    }
}
