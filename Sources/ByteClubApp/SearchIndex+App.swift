import Foundation
import ClubKit
import Markdown
import Remote
import SearchIndex

/// The app's ``NoteSearchIndex``: the SearchIndex library's SQLite FTS5 file in the club's
/// cache folder, brought current by ``ClubIndexSync`` (the core), as `byteclub search` brings
/// the same file current.
final class ClubSearchIndex: NoteSearchIndex {
    let index: SearchIndex

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

    func backlinks(to path: String, root: String, limit: Int) throws(RemoteError) -> [LinkingNote] {
        let found: [Backlink]
        do { found = try index.resolvedBacklinks(to: path, root: root, limit: limit) } catch { throw .local(error.description) }
        return found.map {
            LinkingNote(path: $0.path, name: $0.name, modified: $0.modified, modifiedBy: $0.modifiedBy, line: $0.line, context: $0.context)
        }
    }

    /// Whether `byteclub search` or `links` (another process on the same file) wrote to it, or
    /// made it anew, since the last time this was asked (``SearchIndex/changedElsewhere()``).
    func changedElsewhere() -> Bool {
        (try? index.changedElsewhere()) ?? false
    }

    func remove(path: String) throws(RemoteError) {
        do {
            try index.remove(path: path)
        } catch {
            throw .local(error.description)
        }
    }

    func sync(_ entries: EntryTable, fetch: @escaping @Sendable (String) async throws(RemoteError) -> String,
              fetchBatch: IndexSync.FetchBatch?,
              progress: @escaping @Sendable (Int, Int) -> Void) async throws(RemoteError) -> IndexSyncOutcome {
        try await Self.outcome {
            try await ClubIndexSync.run(index, entries: entries, fetch: { entry in try await fetch(entry.path) },
                                        fetchBatch: fetchBatch, progress: progress)
        }
    }

    func apply(changed: [RemoteEntry], removed: [String], fetch: @escaping @Sendable (String) async throws(RemoteError) -> String,
               fetchBatch: IndexSync.FetchBatch?,
               progress: @escaping @Sendable (Int, Int) -> Void) async throws(RemoteError) -> IndexSyncOutcome {
        try await Self.outcome {
            try await ClubIndexSync.apply(index, changed: changed, removed: removed, fetch: { entry in try await fetch(entry.path) },
                                          fetchBatch: fetchBatch, progress: progress)
        }
    }

    /// What a sync did, its errors in the app's words.
    private static func outcome(_ sync: () async throws -> IndexSync.Report) async throws(RemoteError) -> IndexSyncOutcome {
        do {
            let report = try await sync()
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

extension AppConfiguration {
    /// Opens the club's search index in `directory` (the club's cache folder,
    /// `$XDG_CACHE_HOME/byteclub/<remote>/`): the file `search.sqlite` there.
    public static func searchIndex(in directory: URL) -> @Sendable () throws(RemoteError) -> any NoteSearchIndex {
        { () throws(RemoteError) -> any NoteSearchIndex in try ClubSearchIndex(directory: directory) }
    }
}
