// On Linux the shipped targets import FoundationEssentials, not Foundation: full Foundation
// brings FoundationInternationalization and 32 MiB of ICU data into the static binary, and 2 to
// 3 ms to every start. These are the few String members the toolkit used from full
// Foundation, with the same names and meaning, so call sites read as before; on macOS Foundation
// itself provides them. `@_disfavoredOverload`: where a test target imports Foundation too, its
// members win and nothing is ambiguous.
#if canImport(FoundationEssentials)
import FoundationEssentials

/// The sets `trimmingCharacters(in:)` takes, as Foundation's `CharacterSet` defines them.
package enum TrimmedCharacters: Sendable {
    /// Tab and the space separators (Unicode category Zs).
    case whitespaces
    /// Those, and the line and paragraph separators (U+000A–U+000D, U+0085, U+2028, U+2029).
    case whitespacesAndNewlines

    func contains(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator { return true }
        guard self == .whitespacesAndNewlines else { return false }
        switch scalar.value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: return true
        default: return false
        }
    }
}

extension StringProtocol {
    /// Without the leading and trailing scalars in `set`.
    @_disfavoredOverload
    package func trimmingCharacters(in set: TrimmedCharacters) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !set.contains($0) }),
            let last = scalars.lastIndex(where: { !set.contains($0) })
        else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }

    /// Every occurrence of `target` replaced by `replacement`, left to right.
    @_disfavoredOverload
    package func replacingOccurrences(of target: some StringProtocol, with replacement: some StringProtocol) -> String {
        guard !target.isEmpty else { return String(self) }
        var result = ""
        var rest = self[...]
        while let found = rest.firstRange(of: target) {
            result += rest[..<found.lowerBound]
            result += replacement
            rest = rest[found.upperBound...]
        }
        return result + rest
    }

    /// The first occurrence of `other`, as Foundation's `range(of:)` finds it.
    @_disfavoredOverload
    package func range(of other: some StringProtocol) -> Range<Index>? {
        guard !other.isEmpty else { return nil }
        return firstRange(of: other)
    }

    /// Whether `other` occurs, ignoring case. Foundation's version also follows the user's
    /// locale; the toolkit only matches Spotify's English error messages with it.
    @_disfavoredOverload
    package func localizedCaseInsensitiveContains(_ other: some StringProtocol) -> Bool {
        lowercased().contains(other.lowercased())
    }

    /// ASCII-insensitive comparison, for HTTP header names.
    @_disfavoredOverload
    package func caseInsensitiveCompare(_ other: some StringProtocol) -> ComparisonResult {
        let left = lowercased()
        let right = other.lowercased()
        return left == right ? .orderedSame : left < right ? .orderedAscending : .orderedDescending
    }
}
#endif
