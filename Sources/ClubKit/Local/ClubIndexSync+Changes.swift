import Foundation
import Remote
import SearchIndex

/// The club's index kept current through the change feed, so a command that names one note
/// asks the server what changed since it last looked (one `list_folder/continue`, a few rows),
/// not for a listing of every note (issue 71: `cat TITLE` in a 6,500-note club listed all of
/// them, each time).
///
/// The index carries a mark: the change cursor of the club folder that its notes are current
/// to (``SearchIndex/changeMark(folder:)``). A whole sync (``bringCurrentMarking(_:layout:store:progress:)``,
/// what `search` and `links` run) takes the cursor before it lists, and marks the index with it
/// once every listed note is in; a catch-up (``catchUp(_:layout:store:)``) takes in the changes
/// after the mark and moves it. Replaying changes the index already holds does no harm (a note
/// at the revision it has is not fetched), so a mark may lag what the index holds, never lead it.
extension ClubIndexSync {
    /// Brings `index` current through the changes after its mark, and moves the mark.
    ///
    /// - Returns: true when the index now holds every note of the club's Notes tab as the server
    ///   has it; false when it cannot say (no mark yet, a cursor the server has forgotten, a store
    ///   whose cursor costs a whole listing, a note that could not be fetched, the server
    ///   unreachable): the caller lists the club instead, as before.
    public static func catchUp(_ index: SearchIndex, layout: ClubLayout, store: any RemoteStore) async -> Bool {
        guard !store.cursorIsAWholeListing,
              let marked = try? index.changeMark(folder: layout.folder),
              let cursor = try? JSONDecoder().decode(RemoteCursor.self, from: Data(marked.utf8)),
              cursor.folder.lowercased() == layout.folder.lowercased(), cursor.recursive else { return false }
        do {
            let changes = try await store.listChanges(since: cursor)
            let (changed, removed) = notesChanged(changes.changes, layout: layout)
            if !removed.isEmpty {
                do { try index.remove(under: removed) } catch { return false }
            }
            if !changed.isEmpty {
                let report = try await apply(index, changed: changed, removed: [], fetch: fetchText(from: store),
                                             fetchBatch: IndexSync.batchFetch(from: store))
                guard report.failed.isEmpty else { return false }
            }
            // Written only when it moved: the app takes any write by another process for a
            // reason to sync its whole list again (SearchIndex.changedElsewhere()).
            if changes.cursor != cursor { try mark(index, layout: layout, cursor: changes.cursor) }
            return true
        } catch {
            return false
        }
    }

    /// ``bringCurrent(_:layout:store:progress:)`` that marks the index with the cursor taken
    /// before the listing, once every note listed is in it (nothing failed): the next command
    /// catches up from there (``catchUp(_:layout:store:)``). A store that cannot give a cursor
    /// cheaply (WebDAV's is a listing of its own) leaves no mark.
    /// - Returns: the notes listed and what the sync did.
    public static func bringCurrentMarking(_ index: SearchIndex, layout: ClubLayout, store: any RemoteStore,
                                           progress: IndexSync.Progress? = nil) async throws -> (notes: EntryTable, report: IndexSync.Report) {
        // Before the listing: a change landing while it runs is after the cursor, so it is
        // taken in again by the next catch-up rather than missed.
        var cursor: RemoteCursor?
        if !store.cursorIsAWholeListing {
            cursor = try? await store.latestCursor(layout.folder, recursive: true)
        }
        let notes = try await notes(in: layout, from: store)
        let report = try await run(index, entries: notes, fetch: fetchText(from: store), fetchBatch: IndexSync.batchFetch(from: store),
                                   progress: progress)
        if let cursor, report.failed.isEmpty {
            try? mark(index, layout: layout, cursor: cursor)
        }
        return (notes, report)
    }

    /// Marks `index` with `cursor` (taken before `notes` were listed) once it holds every note
    /// listed, when it nearly does already: an index the app keeps current (which carries no
    /// mark) or one marked before a note was taken out of it. At most `most` notes are fetched
    /// (none, mostly); an index further behind is left as it is, for `links` or `search` to
    /// bring current: a command that names one note does not fetch the club.
    public static func markIfNearlyCurrent(_ index: SearchIndex, notes: EntryTable, cursor: RemoteCursor, layout: ClubLayout,
                                           store: any RemoteStore, most: Int = 50) async {
        guard let known = try? index.revisions() else { return }
        var behind = 0
        for entry in notes where known[entry.pathLower] != (entry.rev ?? "") {
            behind += 1
            if behind > most { return }
        }
        guard let report = try? await run(index, entries: notes, fetch: fetchText(from: store), fetchBatch: IndexSync.batchFetch(from: store)),
              report.failed.isEmpty else { return }
        try? mark(index, layout: layout, cursor: cursor)
    }

    /// The notes a change page names: those new or changed in the Notes tab, and the paths
    /// deleted (a note's, or a folder's with everything under it). Taken in order, so a path
    /// deleted then made again is kept, and one changed then deleted (or under a folder deleted
    /// after) is not fetched.
    static func notesChanged(_ changes: [RemoteChange], layout: ClubLayout) -> (changed: [RemoteEntry], removed: [String]) {
        var changed: [String: RemoteEntry] = [:], order: [String] = [], ordered = Set<String>(), removed: [String] = []
        for change in changes {
            switch change {
            case .updated(let entry):
                guard entry.kind == .file, layout.isInNotes(entry) else { continue }
                changed[entry.pathLower] = entry
                if ordered.insert(entry.pathLower).inserted { order.append(entry.pathLower) }
            case .deleted(_, _, let pathLower):
                removed.append(pathLower)
                for path in changed.keys where path == pathLower || path.hasPrefix(pathLower + "/") {
                    changed[path] = nil
                }
            }
        }
        return (order.compactMap { changed[$0] }, removed)
    }

    private static func mark(_ index: SearchIndex, layout: ClubLayout, cursor: RemoteCursor) throws {
        let text = String(decoding: try JSONEncoder().encode(cursor), as: UTF8.self)
        try index.setChangeMark(text, folder: layout.folder)
    }
}
