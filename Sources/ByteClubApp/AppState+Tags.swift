import Foundation
import Remote

/// The notes' tags and pins as the server last gave them, by `path_lower`.
///
/// A pin is the reserved tag ``ItemTags/pinTag``: pinned notes come first in the list (newest
/// first among themselves, as the rest), marked ``pinMark``; the other tags follow the title
/// and `/#tag` filters by them.
public struct NoteTags: Sendable, Equatable {
    /// The row mark of a pinned note (one cell wide everywhere: not an emoji).
    public static let pinMark = "⚑"

    public var byPath: [String: ItemTags] = [:]
    /// Counts changes, for the memoised rows.
    public internal(set) var version = 0
    /// Why this remote keeps no tags (a WebDAV server that refuses them), once it said so.
    public var unavailable: String?

    public init() {}

    public func of(_ entry: RemoteEntry) -> ItemTags {
        byPath[entry.pathLower] ?? ItemTags([])
    }

    /// `entries` (already newest first) with the pinned ones moved to the front, order kept.
    func pinnedFirst(_ entries: [RemoteEntry]) -> [RemoteEntry] {
        guard byPath.values.contains(where: \.isPinned) else { return entries }
        return entries.filter { of($0).isPinned } + entries.filter { !of($0).isPinned }
    }

    /// Takes what the server said of `paths` (lowercased): those it answered get their tags,
    /// the rest of `paths` none. With `replacingAll`, every other path is forgotten too (a
    /// whole list was asked for).
    public mutating func apply(_ found: [String: [String]], asked paths: [String], replacingAll: Bool = false) {
        var next = replacingAll ? [:] : byPath
        if !replacingAll {
            for path in paths { next[path.lowercased()] = nil }
        }
        for (path, tags) in found where !tags.isEmpty { next[path.lowercased()] = ItemTags(tags) }
        guard next != byPath else { return }
        byPath = next
        version += 1
    }

    /// Forgets the tags of a note that is gone, or moves them with a rename.
    public mutating func move(from old: String, to new: String?) {
        guard let tags = byPath.removeValue(forKey: old) else { return }
        if let new { byPath[new] = tags }
        version += 1
    }
}
