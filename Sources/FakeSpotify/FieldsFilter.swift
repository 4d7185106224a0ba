import ToolkitCore

/// Spotify's `fields` filter: a comma list of names; `a.b` reaches into an object, `a(b,c)` selects
/// inside an object or inside every element of a list, `!a` excludes. Members keep the order of
/// the answer, not of the filter. Examples: `total,items(added_at,item(id,name))`, `items.total`.
struct FieldsFilter: Equatable, Sendable {
    /// Selected members, each with what to keep inside it (nil: all of it).
    var include: [String: FieldsFilter?] = [:]
    var exclude: Set<String> = []

    struct SyntaxError: Error, Equatable {
        var message: String
    }

    /// Filters parsed so far, by their text: a client sends the same few on every request, and
    /// parsing each again was a twentieth of what serving a page cost (bounded: a new text past
    /// the bound empties it).
    private static let parsed = Locked<[String: FieldsFilter]>([:])
    private static let parsedLimit = 64

    /// `parse`, once per text.
    static func parsedOnce(_ text: String) throws(SyntaxError) -> FieldsFilter {
        if let known = parsed.withLock({ $0[text] }) { return known }
        let filter = try parse(text)
        parsed.withLock { parsed in
            if parsed.count >= parsedLimit { parsed = [:] }
            parsed[text] = filter
        }
        return filter
    }

    static func parse(_ text: String) throws(SyntaxError) -> FieldsFilter {
        var parser = Parser(characters: Array(text))
        let filter = try parser.list()
        guard parser.index == parser.characters.count else {
            throw SyntaxError(message: "unexpected '\(parser.characters[parser.index])' at \(parser.index + 1)")
        }
        return filter
    }

    func apply(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let elements):
            return .array(elements.map(apply))
        case .object(let object):
            var kept = JSONObject()
            for (key, member) in object {
                if include.isEmpty {
                    if !exclude.contains(key) { kept[key] = member }
                } else if let selected = include[key] {
                    kept[key] = selected.map { $0.apply(member) } ?? member
                }
            }
            return .object(kept)
        default:
            return value
        }
    }

    /// Adds `path` (["items", "total"]) with `inner` selected at its end, merging with what is there.
    mutating func add(_ path: ArraySlice<String>, inner: FieldsFilter?) {
        guard let first = path.first else { return }
        if path.count == 1 {
            if let existing = include[first], let existing, let inner {
                include[first] = existing.merged(with: inner)
            } else if include[first] == nil {
                include[first] = .some(inner)
            } else {
                include[first] = .some(nil)  // one of them wants all of it
            }
            return
        }
        var child = (include[first] ?? nil) ?? FieldsFilter()
        child.add(path.dropFirst(), inner: inner)
        include[first] = .some(child)
    }

    func merged(with other: FieldsFilter) -> FieldsFilter {
        var result = self
        for (key, inner) in other.include { result.add([key][...], inner: inner) }
        result.exclude.formUnion(other.exclude)
        return result
    }

    struct Parser {
        let characters: [Character]
        var index = 0

        mutating func list() throws(SyntaxError) -> FieldsFilter {
            var filter = FieldsFilter()
            repeat {
                let excluded = peek == "!"
                if excluded { index += 1 }
                var path = [try name()]
                while peek == "." {
                    index += 1
                    path.append(try name())
                }
                var inner: FieldsFilter?
                if peek == "(" {
                    index += 1
                    inner = try list()
                    guard peek == ")" else { throw SyntaxError(message: "missing ')' at \(index + 1)") }
                    index += 1
                }
                if excluded {
                    guard path.count == 1, inner == nil else { throw SyntaxError(message: "'!' takes a plain name") }
                    filter.exclude.insert(path[0])
                } else {
                    filter.add(path[...], inner: inner)
                }
            } while eat(",")
            return filter
        }

        var peek: Character? { index < characters.count ? characters[index] : nil }

        mutating func eat(_ character: Character) -> Bool {
            guard peek == character else { return false }
            index += 1
            return true
        }

        mutating func name() throws(SyntaxError) -> String {
            let start = index
            while let c = peek, c.isLetter || c.isNumber || c == "_" { index += 1 }
            guard index > start else { throw SyntaxError(message: "expected a field name at \(start + 1)") }
            return String(characters[start..<index])
        }
    }
}
