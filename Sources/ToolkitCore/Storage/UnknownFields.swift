#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Carries the members a newer build wrote, and this one does not know, from the stored document
/// into the one about to replace it, so an older build in `PATH` never erases a newer one's data.
/// Pure: JSON in, JSON out.
enum UnknownFields {
    /// `new` with every member of `old` that this build does not know, at any depth; `.none` when
    /// there is none (the caller then writes `new` as it is). `known` is `old` as this build reads
    /// and writes it back (decoded and encoded again), so a member it knows but left out (a nil
    /// optional, cleared on purpose) is never brought back. Array elements of `new` are paired
    /// with those of `old` by their `id`, else their `name`, else by position when both arrays
    /// have the same length; an element that cannot be paired carries nothing.
    static func carried(from old: JSONValue, knownAs known: JSONValue, into new: JSONValue) -> JSONValue? {
        var carriedAny = false
        let merged = merge(old, known, new, carriedAny: &carriedAny)
        return carriedAny ? merged : .none  // not `nil`: JSONValue is ExpressibleByNilLiteral
    }

    private static func merge(_ old: JSONValue, _ known: JSONValue, _ new: JSONValue, carriedAny: inout Bool)
        -> JSONValue
    {
        switch (old, known, new) {
        case (.object(let oldObject), .object(let knownObject), .object(var newObject)):
            var added = false
            for (key, value) in oldObject {
                if let knownValue = knownObject[key] {
                    if let current = newObject[key] {
                        newObject[key] = merge(value, knownValue, current, carriedAny: &carriedAny)
                    }
                } else if newObject[key] == nil {
                    newObject[key] = value
                    added = true
                }
            }
            guard added else { return .object(newObject) }
            carriedAny = true
            // Stored documents list their members in key order; keep it so.
            return .object(JSONObject(newObject.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
        case (.array(let oldElements), .array(let knownElements), .array(let newElements))
        where oldElements.count == knownElements.count:
            let partners = pair(Array(zip(oldElements, knownElements)), newElements)
            return .array(
                newElements.enumerated().map { index, element in
                    guard let (old, known) = partners[index] else { return element }
                    return merge(old, known, element, carriedAny: &carriedAny)
                })
        default:
            return new
        }
    }

    /// For each new element, the old element (with its known form) it continues, if any.
    private static func pair(_ old: [(JSONValue, JSONValue)], _ new: [JSONValue]) -> [(JSONValue, JSONValue)?] {
        for key in ["id", "name"] {
            let oldKeys = old.compactMap { $0.0[key]?.stringValue }
            let newKeys = new.compactMap { $0[key]?.stringValue }
            guard oldKeys.count == old.count, newKeys.count == new.count, Set(oldKeys).count == oldKeys.count
            else { continue }
            let byKey = Dictionary(uniqueKeysWithValues: zip(oldKeys, old))
            return newKeys.map { byKey[$0] }
        }
        return old.count == new.count ? old.map { $0 } : Array(repeating: nil, count: new.count)
    }
}
