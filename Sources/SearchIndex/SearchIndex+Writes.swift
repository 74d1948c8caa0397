import Foundation
import GRDB

/// Keeping the index current: one note changed → one row replaced.
extension SearchIndex {
    /// Indexes `note`, replacing what was indexed for its path (in any case).
    public func upsert(_ note: IndexedNote) throws(SearchIndexError) {
        try upsert([note])
    }

    /// Indexes `notes` in one transaction (a sync's batch: far faster than one at a time).
    public func upsert(_ notes: [IndexedNote]) throws(SearchIndexError) {
        guard !notes.isEmpty else { return }
        try writing { db in
            for note in notes { try Self.write(note, in: db) }
        }
    }

    /// Forgets the note at `path` (case-insensitive); nothing happens when it was not indexed.
    public func remove(path: String) throws(SearchIndexError) {
        try writing { db in try Self.delete(pathLower: path.lowercased(), in: db) }
    }

    /// Forgets every note at or under `path` (a deleted folder).
    public func remove(under path: String) throws(SearchIndexError) {
        try remove(under: [path])
    }

    /// Forgets every note at or under any of `paths` but those in `keeping` (lower-case paths),
    /// in one transaction: the server applying its journal keeps what is still there.
    public func remove(under paths: [String], keeping: Set<String> = []) throws(SearchIndexError) {
        guard !paths.isEmpty else { return }
        try writing { db in
            for path in paths {
                // A range on the unique index ('0' follows '/'), not a scan of every row.
                let lower = path.lowercased()
                let found = try String.fetchAll(db.cachedStatement(sql: """
                    SELECT path_lower FROM note WHERE path_lower = ? OR (path_lower >= ? AND path_lower < ?)
                    """), arguments: [lower, lower + "/", lower + "0"])
                for path in found where !keeping.contains(path) { try Self.delete(pathLower: path, in: db) }
            }
        }
    }

    /// Moves a note to `newPath` (its title follows the new name); its text is not fetched again.
    /// - Returns: false when nothing was indexed at `oldPath`.
    @discardableResult
    public func rename(from oldPath: String, to newPath: String, rev: String? = nil, modified: Date? = nil) throws(SearchIndexError) -> Bool {
        try writing { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT n.rev, n.modified, n.modified_by, b.body FROM note n JOIN note_body b ON b.id = n.id WHERE n.path_lower = ?
                """, arguments: [oldPath.lowercased()]) else { return false }
            let text: String = row["body"]
            let oldModified = (row["modified"] as Double?).map { Date(timeIntervalSince1970: $0) }
            let note = IndexedNote(path: newPath, rev: rev ?? row["rev"], modified: modified ?? oldModified,
                                   modifiedBy: row["modified_by"], text: text)
            try Self.delete(pathLower: oldPath.lowercased(), in: db)
            try Self.write(note, in: db)
            return true
        }
    }

    /// Every indexed note's revision, by lowercased path: what a sync compares a listing with.
    public func revisions() throws(SearchIndexError) -> [String: String] {
        try reading { db in
            var revisions: [String: String] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT path_lower, rev FROM note")
            while let row = try rows.next() {
                revisions[row[0]] = (row[1] as String?) ?? ""
            }
            return revisions
        }
    }

    /// The indexed revision of each of `pathsLower` that is indexed ("" for none given), in one
    /// read: what a sync of a few changed notes asks, not the whole index's.
    public func revisions(of pathsLower: [String]) throws(SearchIndexError) -> [String: String] {
        try reading { db in
            var revisions: [String: String] = [:]
            let statement = try db.cachedStatement(sql: "SELECT rev FROM note WHERE path_lower = ?")
            for path in pathsLower {
                if let row = try Row.fetchOne(statement, arguments: [path]) { revisions[path] = (row[0] as String?) ?? "" }
            }
            return revisions
        }
    }

    /// Every indexed note's path, as displayed: what links resolve among while the server
    /// cannot be reached.
    public func paths() throws(SearchIndexError) -> [String] {
        try reading { db in try String.fetchAll(db, sql: "SELECT path FROM note ORDER BY path_lower") }
    }

    /// How many notes are indexed.
    public func count() throws(SearchIndexError) -> Int {
        try reading { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM note") ?? 0 }
    }

    /// The note indexed at `path` (case-insensitive), text and all, or nil: the copy the app
    /// opens a search hit from while the server cannot be reached.
    public func note(at path: String) throws(SearchIndexError) -> IndexedNote? {
        try reading { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT n.path, n.name, n.rev, n.modified, n.modified_by, b.body FROM note n JOIN note_body b ON b.id = n.id
                WHERE n.path_lower = ?
                """, arguments: [path.lowercased()]) else { return nil }
            return IndexedNote(path: row["path"], name: row["name"], rev: row["rev"],
                               modified: (row["modified"] as Double?).map { Date(timeIntervalSince1970: $0) },
                               modifiedBy: row["modified_by"], text: row["body"])
        }
    }

    // MARK: Rows

    static func write(_ note: IndexedNote, in db: Database) throws {
        let lower = note.path.lowercased()
        let modified = note.modified?.timeIntervalSince1970
        if let old = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT n.id, n.path, n.name, b.body FROM note n JOIN note_body b ON b.id = n.id WHERE n.path_lower = ?
            """), arguments: [lower]) {
            let id: Int64 = old["id"]
            let oldName: String = old["name"]
            let oldBody: String = old["body"]
            try db.cachedStatement(sql: "UPDATE note SET path = ?, name = ?, rev = ?, modified = ?, modified_by = ? WHERE id = ?")
                .execute(arguments: [note.path, note.name, note.rev, modified, note.modifiedBy, id])
            // Links resolve against the note's folder, so a new path (in another case) relinks too.
            if oldBody != note.text || (old["path"] as String) != note.path {
                try writeLinks(id: id, path: note.path, text: note.text, in: db)
            }
            // Same title and text (a new revision of the same bytes, a metadata change): the
            // FTS row stands.
            guard oldName != note.name || oldBody != note.text else { return }
            try deleteText(id: id, name: oldName, body: oldBody, in: db)
            try db.cachedStatement(sql: "UPDATE note_body SET body = ? WHERE id = ?").execute(arguments: [note.text, id])
            try insertText(id: id, name: note.name, body: note.text, in: db)
        } else {
            try db.cachedStatement(sql: "INSERT INTO note(path_lower, path, name, rev, modified, modified_by) VALUES (?, ?, ?, ?, ?, ?)")
                .execute(arguments: [lower, note.path, note.name, note.rev, modified, note.modifiedBy])
            let id = db.lastInsertedRowID
            try db.cachedStatement(sql: "INSERT INTO note_body(id, body) VALUES (?, ?)").execute(arguments: [id, note.text])
            try insertText(id: id, name: note.name, body: note.text, in: db)
            try writeLinks(id: id, path: note.path, text: note.text, in: db)
        }
    }

    static func delete(pathLower: String, in db: Database) throws {
        guard let old = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT n.id, n.name, b.body FROM note n JOIN note_body b ON b.id = n.id WHERE n.path_lower = ?
            """), arguments: [pathLower]) else { return }
        let id: Int64 = old["id"]
        try deleteText(id: id, name: old["name"], body: old["body"], in: db)
        try db.cachedStatement(sql: "DELETE FROM note WHERE id = ?").execute(arguments: [id])
        try db.cachedStatement(sql: "DELETE FROM note_body WHERE id = ?").execute(arguments: [id])
        try deleteLinks(id: id, in: db)
    }

    /// What the FTS row holds for a note: its title's and text's words, and their CJK bigrams.
    static func ftsColumns(name: String, body: String) -> (name: String, words: String, cjk: String) {
        let title = SearchText.indexForms(IndexedNote.title(of: name))
        let text = SearchText.indexForms(body)
        let cjk = title.cjk.isEmpty ? text.cjk : title.cjk + " " + text.cjk
        return (title.words, text.words, cjk)
    }

    static func insertText(id: Int64, name: String, body: String, in db: Database) throws {
        let columns = ftsColumns(name: name, body: body)
        try db.cachedStatement(sql: "INSERT INTO note_fts(rowid, name, words, cjk) VALUES (?, ?, ?, ?)")
            .execute(arguments: [id, columns.name, columns.words, columns.cjk])
    }

    /// A contentless FTS5 row is deleted by handing back exactly what was inserted.
    static func deleteText(id: Int64, name: String, body: String, in db: Database) throws {
        let columns = ftsColumns(name: name, body: body)
        try db.cachedStatement(sql: "INSERT INTO note_fts(note_fts, rowid, name, words, cjk) VALUES ('delete', ?, ?, ?, ?)")
            .execute(arguments: [id, columns.name, columns.words, columns.cjk])
    }
}
