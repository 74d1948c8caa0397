import DropboxWire
import Foundation
import Remote

/// A file's tags as `tag` reads and changes them, and the files `ls --tag` finds.
public enum FileTags {
    /// The store's tags, or a clear refusal for a store that keeps none.
    public static func tagging(_ store: any RemoteStore) throws(RemoteError) -> any TaggingStore {
        guard let tagging = store as? any TaggingStore else { throw .notSupported("tags") }
        return tagging
    }

    /// The tags of the file at `path` after `change` (none: as they are; a missing file is an
    /// error here, not an empty answer).
    public static func apply(_ change: TagChange, to path: String, store: any RemoteStore) async throws(RemoteError) -> [String] {
        let tagger = try tagging(store)
        guard !change.isEmpty else {
            _ = try await store.metadata(path)
            return try await tagger.tags(of: [path])[path.lowercased()] ?? []
        }
        return try await tagger.changeTags(of: path, change)
    }

    /// Every file in `folder` and in every folder under it (hidden folders such as `.obsidian`
    /// left out) with `tag` or a tag nested under it (`project/alpha` under `project`).
    public static func tagged(_ tag: String, in folder: String, store: any RemoteStore) async throws(RemoteError) -> [RemoteEntry] {
        let tagger = try tagging(store)
        let files = try await store.listRecursively(folder).filter { $0.kind == .file && !isHidden($0, under: folder) }
        let tags = try await tagger.tags(of: files.map(\.path))
        return files.filter { tags[$0.pathLower]?.contains { TagText.isUnder($0, parent: tag) } == true }
    }

    /// Whether `entry` is in a hidden folder (`.obsidian`, `.trash`) below `folder`.
    public static func isHidden(_ entry: RemoteEntry, under folder: String) -> Bool {
        let depth = folder.split(separator: "/").count
        return entry.path.split(separator: "/").dropFirst(depth).dropLast().contains { $0.hasPrefix(".") }
    }
}

/// A file's tags as `tag --json` prints them.
public struct TagsJSON: Encodable, Sendable {
    public var pathDisplay: String
    public var tags: [String]

    public init(pathDisplay: String, tags: [String]) {
        self.pathDisplay = pathDisplay
        self.tags = tags
    }
}
