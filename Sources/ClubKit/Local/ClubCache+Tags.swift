import Foundation
import Durable
import Remote

/// The notes' tags kept beside the cached list (`tags.json`: `{"path_lower":["trip"]}`), so an
/// offline start shows them (and the pins' order) with the list.
extension ClubCache {
    /// The cached tags, or nil when none or unreadable; only valid tag texts are taken.
    public func tags() -> [String: [String]]? {
        guard let data = try? Data(contentsOf: tagsURL),
              let stored = try? JSONDecoder().decode([String: [String]].self, from: data) else { return nil }
        return stored.mapValues { $0.filter(ItemTags.isStored) }.filter { !$0.value.isEmpty }
    }

    public func saveTags(_ tags: [String: [String]]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        try DurableFile.write(try encoder.encode(tags), to: tagsURL, flush: false)
    }

    private var tagsURL: URL { directory.appendingPathComponent("tags.json") }
}
