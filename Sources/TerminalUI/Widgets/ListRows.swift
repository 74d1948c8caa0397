/// The rows a ``ListView`` shows, made when they are asked for: a list of 100,000 notes formats
/// the rows on screen, not 100,000 of them, at each change of the list.
///
/// An array of ``ListRow`` is one (every row made up front, for short lists). A long list's
/// rows (the notes) answer ``row(_:)`` from what they describe, and the filter from keys they
/// make the first time a filter asks, not per frame.
public protocol ListRows: Sendable {
    /// How many rows there are, filtered or not.
    var count: Int { get }
    /// Row `index` (`0..<count`), made now.
    func row(_ index: Int) -> ListRow
    /// The rows that pass `needle` (lowercased, not empty) as ``ListRow`` matches it, in order.
    func rows(matching needle: String) -> [Int]
}

extension Array: ListRows where Element == ListRow {
    public func row(_ index: Int) -> ListRow { self[index] }

    public func rows(matching needle: String) -> [Int] {
        indices.filter { self[$0].matches(lowercased: needle) }
    }
}
