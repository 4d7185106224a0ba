/// A JSON value. Objects keep their members in insertion order (see `JSONObject`), so records the
/// toolkit writes come out with a stable, readable key order.
///
/// Numbers are either `.int` (an integer literal that fits `Int`) or `.double`. Equality is
/// structural and strict about that split: `.int(4) != .double(4)`. Use `intValue`/`doubleValue`
/// to compare numerically.
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

// MARK: - Accessors

extension JSONValue {
    var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    package var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The integer for `.int`, and for a `.double` that is integral and fits `Int`; else nil.
    package var intValue: Int? {
        switch self {
        case .int(let i): return i
        case .double(let d): return Int(exactly: d)
        default: return nil
        }
    }

    /// The number as a `Double` (`.int` converted); nil for non-numbers.
    package var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    package var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    package var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    package var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The member named `key` when this is an object; nil otherwise or when absent.
    package subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }
}

// MARK: - Literals

extension JSONValue: ExpressibleByNilLiteral {
    package init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    package init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    package init(integerLiteral value: Int) { self = .int(value) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    package init(floatLiteral value: Double) { self = .double(value) }
}

extension JSONValue: ExpressibleByStringLiteral {
    package init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    package init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// Keeps the literal's order; a repeated key replaces the earlier value in place.
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        var object = JSONObject()
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
}

// MARK: - JSONObject

/// A JSON object that remembers member order: insertion order is iteration and output order.
/// Setting an existing key replaces its value in place; setting `nil` removes the member.
///
/// Equality ignores order (two objects are equal when they have the same keys with equal values),
/// matching JSON semantics; compare `keys` when order matters.
package struct JSONObject: Sendable, Equatable, ExpressibleByDictionaryLiteral, Sequence {
    package typealias Element = (key: String, value: JSONValue)

    private var _keys: [String] = []
    private var _values: [JSONValue] = []
    /// Key → position, built once the object is large enough for linear search to hurt.
    private var index: [String: Int]? = nil
    private static let indexThreshold = 12

    package init() {}

    /// Keeps the literal's order; a repeated key replaces the earlier value in place.
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        for (key, value) in elements { self[key] = value }
    }

    /// Members in order; a repeated key replaces the earlier value in place.
    package init<S: Sequence>(_ members: S) where S.Element == (String, JSONValue) {
        for (key, value) in members { self[key] = value }
    }

    package var keys: [String] { _keys }
    package var values: [JSONValue] { _values }
    package var count: Int { _keys.count }
    package var isEmpty: Bool { _keys.isEmpty }

    private func position(of key: String) -> Int? {
        if let index { return index[key] }
        return _keys.firstIndex(of: key)
    }

    package subscript(key: String) -> JSONValue? {
        get {
            guard let i = position(of: key) else { return nil }
            return _values[i]
        }
        set {
            if let newValue {
                if let i = position(of: key) {
                    _values[i] = newValue
                } else {
                    _keys.append(key)
                    _values.append(newValue)
                    if index != nil {
                        index![key] = _keys.count - 1
                    } else if _keys.count > Self.indexThreshold {
                        rebuildIndex()
                    }
                }
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// Removes the member and returns its value, or nil if there was none.
    @discardableResult
    package mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let i = position(of: key) else { return nil }
        _keys.remove(at: i)
        let old = _values.remove(at: i)
        if index != nil {
            if _keys.count > Self.indexThreshold { rebuildIndex() } else { index = nil }
        }
        return old
    }

    private mutating func rebuildIndex() {
        var map = [String: Int](minimumCapacity: _keys.count)
        for (i, k) in _keys.enumerated() { map[k] = i }
        index = map
    }

    package struct Iterator: IteratorProtocol {
        private let keys: [String]
        private let values: [JSONValue]
        private var i = 0
        fileprivate init(_ keys: [String], _ values: [JSONValue]) {
            self.keys = keys
            self.values = values
        }
        package mutating func next() -> (key: String, value: JSONValue)? {
            guard i < keys.count else { return nil }
            defer { i += 1 }
            return (key: keys[i], value: values[i])
        }
    }

    package func makeIterator() -> Iterator { Iterator(_keys, _values) }

    package var underestimatedCount: Int { _keys.count }

    package static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs._keys == rhs._keys { return lhs._values == rhs._values }
        for (i, key) in lhs._keys.enumerated() {
            guard let other = rhs[key], other == lhs._values[i] else { return false }
        }
        return true
    }
}
