import Foundation
import Markdown
import Remote
import SearchIndex

/// The app's ``NoteSearchIndex``: the SearchIndex library's SQLite FTS5 file in the club's
/// cache folder, brought current by its ``IndexSync``.
final class ClubSearchIndex: NoteSearchIndex {
    let index: SearchIndex
    /// How many notes a first index downloads at once: enough to keep a loopback or LAN
    /// server busy, few enough not to crowd out the lists' own requests.
    static let concurrentFetches = 8

    init(directory: URL) throws(RemoteError) {
        do {
            index = try SearchIndex(directory: directory)
        } catch {
            throw .local(error.description)
        }
    }

    var rebuiltBecause: String? {
        if case .rebuilt(let reason) = index.openOutcome { return reason }
        return nil
    }

    func search(_ query: String, limit: Int, under folder: String?) throws(RemoteError) -> [SearchResult] {
        do {
            return try index.search(query, limit: limit, under: folder).map(Self.result)
        } catch {
            throw .local(error.description)
        }
    }

    /// The library's hit as the results screen shows it: a title-only hit shows the title, its
    /// match highlighted.
    static func result(_ hit: SearchHit) -> SearchResult {
        SearchResult(path: hit.path, name: hit.name, modified: hit.modified, modifiedBy: hit.modifiedBy,
                     line: hit.line?.text ?? ClubLayout.title(of: hit.name), lineNumber: hit.line?.index,
                     ranges: hit.line?.ranges ?? hit.titleRanges)
    }

    func upsert(_ entry: RemoteEntry, text: String) throws(RemoteError) {
        do {
            try index.upsert(IndexedNote(path: entry.path, name: entry.name, rev: entry.rev, modified: entry.modified,
                                         modifiedBy: entry.modifiedBy, text: text))
        } catch {
            throw .local(error.description)
        }
    }

    func indexedCopy(of path: String) -> (text: String, rev: String?)? {
        (try? index.note(at: path)).flatMap { $0 }.map { ($0.text, $0.rev) }
    }

    func paths(containing needles: [String]) -> [String]? { try? index.paths(containing: needles) }

    func aliases() -> [String: [String]] {
        NoteResolver.aliases(of: (try? index.notesWithFrontMatter(naming: "aliases")) ?? [])
    }

    func backlinks(to path: String, limit: Int) throws(RemoteError) -> [LinkingNote] {
        let found: [Backlink]
        do { found = try index.backlinks(to: path, limit: limit) } catch { throw .local(error.description) }
        return found.map {
            LinkingNote(path: $0.path, name: $0.name, modified: $0.modified, modifiedBy: $0.modifiedBy, line: $0.line, context: $0.context)
        }
    }

    func remove(path: String) throws(RemoteError) {
        do {
            try index.remove(path: path)
        } catch {
            throw .local(error.description)
        }
    }

    func sync(_ entries: [RemoteEntry], fetch: @escaping @Sendable (String) async throws(RemoteError) -> String,
              fetchBatch: IndexSync.FetchBatch?,
              progress: @escaping @Sendable (Int, Int) -> Void) async throws(RemoteError) -> IndexSyncOutcome {
        let listing = entries.map {
            IndexSync.Entry(path: $0.path, name: $0.name, rev: $0.rev, modified: $0.modified, modifiedBy: $0.modifiedBy, size: $0.size)
        }
        do {
            let report = try await IndexSync(index: index, maxConcurrentFetches: Self.concurrentFetches)
                .run(listing: listing, fetch: { entry in try await fetch(entry.path) }, fetchBatch: fetchBatch,
                     progress: progress)
            return IndexSyncOutcome(indexed: report.indexed, failed: report.failed.count, removed: report.removed, rebuilt: report.rebuilt)
        } catch let error as SearchIndexError {
            throw .local(error.description)
        } catch is CancellationError {
            throw .cancelled
        } catch {
            throw .local("\(error)")
        }
    }
}

extension IndexSync {
    /// The club server gives many notes an answer (a first sync of 100,000 notes is 200
    /// requests, not 100,000): the store's batch read as the index's batch fetch, each note's
    /// text as far as it decodes as UTF-8 (as a single fetch reads it), with the metadata of
    /// what was read. Nil for other stores, which fetch a note a request, a few at a time.
    public static func batchFetch(from store: any RemoteStore) -> FetchBatch? {
        guard let batches = store as? any BatchReadingStore, batches.readsInBatches else { return nil }
        return { entries in
            try await batches.readBatch(entries.map(\.path)).map { read -> Fetched? in
                guard case .file(let entry, let data) = read else { return nil }
                return Fetched(entry: Entry(path: entry.path, name: entry.name, rev: entry.rev, modified: entry.modified,
                                            modifiedBy: entry.modifiedBy, size: entry.size),
                               text: String(decoding: data, as: UTF8.self))
            }
        }
    }
}

extension AppConfiguration {
    /// Opens the club's search index in `directory` (the club's cache folder,
    /// `$XDG_CACHE_HOME/byteclub/<remote>/`): the file `search.sqlite` there.
    public static func searchIndex(in directory: URL) -> @Sendable () throws(RemoteError) -> any NoteSearchIndex {
        { () throws(RemoteError) -> any NoteSearchIndex in try ClubSearchIndex(directory: directory) }
    }
}
