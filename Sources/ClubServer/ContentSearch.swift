import DropboxWire
import Foundation
import SearchIndex

/// `search_v2` over the notes' contents: a ``SearchIndex`` of the served folder, kept in
/// `.byteclub/search/`.
///
/// Uploads and downloads never touch it: the index is brought current when a content search
/// comes and the change journal has moved since the last one (every commit, move, delete and
/// rescanned outside edit moves it). Bringing it current is an ``IndexSync`` over the folder's
/// listing, which reads only the notes whose revision changed; a search with nothing changed
/// is the index's query alone.
actor ContentSearch {
    /// The files whose text is indexed: the app's notes.
    static let noteExtensions: Set<String> = ["txt", "md"]

    private let directory: URL
    private var index: SearchIndex?
    /// The journal head the index was last brought to.
    private var syncedHead: UInt64?
    /// The listed notes by `path_lower`, as of `syncedHead`: what hits are answered with.
    private var notes: [String: FileMetadata] = [:]

    init(metaDirectory: String) {
        directory = URL(fileURLWithPath: metaDirectory).appendingPathComponent("search")
    }

    /// Notes under `scope` matching `query` (the ``SearchQuery`` language), best first.
    func search(_ query: SearchQuery, scope: DropboxPath, limit: Int, store: FolderStore) async throws -> [(FileMetadata, SearchHit)] {
        let index = try open()
        do {
            try await bringCurrent(index, store: store)
            return try answer(index.search(query, limit: limit), scope: scope)
        } catch SearchIndexError.damaged(let why) {
            // Pages found corrupt mid-query: start afresh (a sync fills it again).
            try index.reset(reason: why)
            syncedHead = nil
            try await bringCurrent(index, store: store)
            return try answer(index.search(query, limit: limit), scope: scope)
        }
    }

    private func open() throws -> SearchIndex {
        if let index { return index }
        let opened = try SearchIndex(directory: directory)
        index = opened
        return opened
    }

    private func bringCurrent(_ index: SearchIndex, store: FolderStore) async throws {
        // Read before listing: a change landing meanwhile moves the head past it, so the next
        // search syncs again.
        let head = store.journal.position.head
        guard head != syncedHead else { return }
        var listed: [String: FileMetadata] = [:]
        var entries: [IndexSync.Entry] = []
        for case .file(let file) in try await store.list(.root, recursive: true) {
            guard let path = file.pathDisplay, Self.isNote(file.name) else { continue }
            listed[path.lowercased()] = file
            entries.append(IndexSync.Entry(path: path, name: file.name, rev: file.rev, modified: file.serverModified,
                                           modifiedBy: file.sharingInfo?.modifiedBy))
        }
        let root = store.root
        _ = try await IndexSync(index: index, maxConcurrentFetches: 4).run(listing: entries) { entry in
            // Paths come from the listing, already confined to the root.
            let data = try Data(contentsOf: URL(fileURLWithPath: root + entry.path))
            return String(decoding: data, as: UTF8.self)
        }
        notes = listed
        syncedHead = head
    }

    private func answer(_ hits: [SearchHit], scope: DropboxPath) -> [(FileMetadata, SearchHit)] {
        let prefix = scope.lower + "/"
        return hits.compactMap { hit in
            let lower = hit.path.lowercased()
            guard scope.isRoot || lower.hasPrefix(prefix), let file = notes[lower] else { return nil }
            return (file, hit)
        }
    }

    static func isNote(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: ".") else { return false }
        return noteExtensions.contains(name[name.index(after: dot)...].lowercased())
    }
}
