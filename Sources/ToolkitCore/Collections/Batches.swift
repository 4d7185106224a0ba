extension Array {
    /// The elements in runs of at most `size`, in order: the batches of a write API's limit.
    package func chunked(_ size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: Swift.max(size, 1)).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}

extension Array where Element: Hashable {
    /// The elements without repeats, the first occurrence kept in its place.
    package func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
