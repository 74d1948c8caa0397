import TerminalUI

extension CellImage {
    /// `pixels` as cells `columns`×`rows` for `depth`, taken from `cache` by `key` when made
    /// before; the cache is emptied when it holds more than `limit` (turning pixels into cells
    /// is the cost kept, not memory).
    @MainActor
    static func cached(in cache: inout [String: CellImage], key: String, limit: Int, columns: Int, rows: Int, depth: ColorDepth,
                       pixels: () -> PixelImage) -> CellImage {
        if let cached = cache[key] { return cached }
        if cache.count > limit { cache.removeAll(keepingCapacity: true) }
        let cells = CellImage.render(pixels(), columns: columns, rows: rows, depth: depth)
        cache[key] = cells
        return cells
    }
}
