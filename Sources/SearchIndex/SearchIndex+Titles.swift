import Foundation
import GRDB

/// A note found by its name, and the change cursor the index is current to: what a command that
/// names one note (`byteclub cat TITLE`, `links`, `edit`, `log`, `tag`) asks instead of listing
/// the whole club (issue 71, "one note costs one note").
///
/// A lookup goes through the FTS table's title column (one of the name's words, a few rows)
/// and the unique index on paths, never through every row, where the name allows it; the caller
/// filters what it gets by its own exact rule. Names whose words the table cannot find (no ASCII
/// word: `Café`, `日本`, `!!!`) are looked for among the rows that could match, still in SQLite.
extension SearchIndex {
    /// The notes whose lowercased name (as Swift lowercases it: `"trip plan.md"`) is one of
    /// `names`, in no particular order: every such note the index holds, and perhaps others
    /// (the caller keeps those it wants).
    public func notes(named names: Set<String>) throws(SearchIndexError) -> [IndexSync.Entry] {
        guard !names.isEmpty else { return [] }
        // One word of each name's title finds it in the title column; names without one are
        // looked for by a scan (few in any club: a title with no ASCII letter or digit).
        var words = Set<String>(), scanNonASCII = false, scanAll = false
        for name in names {
            if let word = Self.lookupWord(IndexedNote.title(of: name)) {
                words.insert(word)
            } else if name.utf8.contains(where: { $0 >= 0x80 }) {
                // Swift's lowercase of an ASCII name is ASCII: a non-ASCII name is only ever
                // matched by a name that holds a non-ASCII character.
                scanNonASCII = true
            } else {
                scanAll = true
            }
        }
        return try reading { db in
            var found: [Int64: IndexSync.Entry] = [:]
            func take(_ sql: String, _ arguments: StatementArguments = []) throws {
                let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
                while let row = try rows.next() {
                    let name: String = row["name"]
                    guard names.contains(name.lowercased()) else { continue }
                    found[row["id"]] = Self.entry(row)
                }
            }
            let columns = "SELECT n.id, n.path, n.name, n.rev, n.modified, n.modified_by FROM note n"
            if scanAll {
                try take(columns)
            } else {
                for word in words {
                    try take(columns + " WHERE n.id IN (SELECT rowid FROM note_fts WHERE note_fts MATCH ?)", [Self.titleQuery(word)])
                }
                // Bytes and characters differ in count only where a character is not ASCII.
                if scanNonASCII { try take(columns + " WHERE length(n.name) <> length(CAST(n.name AS BLOB))") }
            }
            return Array(found.values)
        }
    }

    /// The notes at `pathsLower` (lowercased paths) that the index holds.
    public func notes(atPaths pathsLower: Set<String>) throws(SearchIndexError) -> [IndexSync.Entry] {
        guard !pathsLower.isEmpty else { return [] }
        return try reading { db in
            let statement = try db.cachedStatement(sql: "SELECT n.id, n.path, n.name, n.rev, n.modified, n.modified_by FROM note n WHERE n.path_lower = ?")
            return try pathsLower.compactMap { path in try Row.fetchOne(statement, arguments: [path]).map(Self.entry) }
        }
    }

    /// The notes whose text opens with front matter that names `key` (`aliases`) and that may
    /// hold `value` there (one of its words is in the text), with their texts: the few notes an
    /// alias may name, for the caller to read. A value with no ASCII word to look for gives every
    /// note with such front matter (``notesWithFrontMatter(naming:)``).
    public func notesWithFrontMatter(naming key: String, mayHolding value: String) throws(SearchIndexError) -> [(path: String, text: String)] {
        guard let word = Self.lookupWord(value) else { return try notesWithFrontMatter(naming: key) }
        return try reading { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT n.path, b.body FROM note n JOIN note_body b ON b.id = n.id
                WHERE n.id IN (SELECT rowid FROM note_fts WHERE note_fts MATCH ?)
                AND substr(b.body, 1, 3) = '---' AND instr(b.body, ?) > 0
                """), arguments: [Self.wordsQuery(word), key + ":"]).map { ($0["path"], $0["body"]) }
        }
    }

    /// The word of `text` a lookup asks the FTS table for: its longest all-ASCII word. An ASCII
    /// letter or digit is a word character to `unicode61` as to ``SearchText``, and what ends a
    /// word to ``SearchText`` ends it to `unicode61` too, so that word is one whole token of the
    /// indexed text, folded alike. Nil when `text` has none.
    static func lookupWord(_ text: String) -> String? {
        SearchText.tokens(text)
            .filter { !$0.isCJK && !$0.folded.isEmpty && $0.folded.utf8.allSatisfy { $0 < 0x80 } }
            .max { $0.folded.utf8.count < $1.folded.utf8.count }?.folded
    }

    /// An FTS5 query for `word` in the title column (a quoted string: never read as syntax).
    static func titleQuery(_ word: String) -> String { "name : \"" + word.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// An FTS5 query for `word` in the text's words.
    static func wordsQuery(_ word: String) -> String { "words : \"" + word.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    static func entry(_ row: Row) -> IndexSync.Entry {
        IndexSync.Entry(path: row["path"], name: row["name"], rev: row["rev"],
                        modified: (row["modified"] as Double?).map { Date(timeIntervalSince1970: $0) }, modifiedBy: row["modified_by"])
    }

    // MARK: The change mark

    /// The change cursor (the caller's words for it) that the notes of `folder` were last made
    /// current to by a reader of the folder's change feed (``setChangeMark(_:folder:)``), or nil.
    ///
    /// A mark is forgotten whenever a note is taken out of the index by anyone (a trigger on the
    /// table, so another byteclub's writes forget it too, an older one's included): a sync from
    /// a list older than the mark (an app started offline from its cache) could take out notes
    /// made since, which replaying the changes after the mark would never put back. Rows only
    /// added or replaced (a sync's new texts, which are the server's present ones) leave it, and
    /// an index made anew has none.
    public func changeMark(folder: String) throws(SearchIndexError) -> String? {
        try reading { db in
            guard try db.tableExists("change_mark") else { return nil }
            return try String.fetchOne(db, sql: "SELECT cursor FROM change_mark WHERE folder = ?", arguments: [folder.lowercased()])
        }
    }

    /// Records that the notes of `folder` in the index are current to `cursor` (nil forgets it).
    /// Call it only after every change up to the cursor is in the index, and none failed.
    public func setChangeMark(_ cursor: String?, folder: String) throws(SearchIndexError) {
        try writing { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS change_mark(folder TEXT PRIMARY KEY, cursor TEXT NOT NULL);
                CREATE TRIGGER IF NOT EXISTS change_mark_forget AFTER DELETE ON note BEGIN DELETE FROM change_mark; END;
                """)
            if let cursor {
                try db.execute(sql: "INSERT OR REPLACE INTO change_mark(folder, cursor) VALUES (?, ?)", arguments: [folder.lowercased(), cursor])
            } else {
                try db.execute(sql: "DELETE FROM change_mark WHERE folder = ?", arguments: [folder.lowercased()])
            }
        }
    }
}
