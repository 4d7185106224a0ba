#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Names of things kept in a document (routines, local playlists): any Unicode text, compared
/// without regard to case, checked the same way wherever a name is taken.
package enum DocumentNames {
    /// Case-insensitive with full case folding ("STRASSE" matches "straße"); String equality adds
    /// canonical equivalence (a precomposed "é" matches "e" + combining accent).
    package static func key(_ name: String) -> String {
        name.trimmingCharacters(in: .whitespacesAndNewlines).uppercased().lowercased()
    }

    /// A name as stored: trimmed; refused when empty, when it holds control characters (a newline
    /// would break every table), or when it is too long to show. `noun`: "routine", "local playlist".
    package static func validated(_ raw: String, noun: String) throws -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw ToolError.usage("a \(noun) name cannot be empty") }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ToolError.usage("a \(noun) name cannot contain control characters such as newlines or tabs")
        }
        guard name.count <= 200 else { throw ToolError.usage("a \(noun) name can be at most 200 characters long") }
        return name
    }
}
