import Foundation
import GRDB
import Markdown

/// A note that links to another: what a backlinks list shows.
public struct Backlink: Sendable, Hashable {
    /// The linking note, as displayed ("/byteclub/Trip.md").
    public var path: String
    /// Its file name ("Trip.md").
    public var name: String
    public var modified: Date?
    public var modifiedBy: String?
    /// The line of its first link here, from 0.
    public var line: Int
    /// That line's text, trimmed and cut to ``SearchIndex/contextLength`` characters (not yet
    /// made safe for a terminal).
    public var context: String
    /// How many of its links lead here.
    public var count: Int

    public init(path: String, name: String, modified: Date?, modifiedBy: String?, line: Int, context: String, count: Int) {
        self.path = path
        self.name = name
        self.modified = modified
        self.modifiedBy = modifiedBy
        self.line = line
        self.context = context
        self.count = count
    }

    /// The name without `.md`/`.txt`: how the note is titled.
    public var title: String { NoteLinks.title(ofPath: name) }
}

/// Links are indexed with the text: every write of a note replaces its `note_link` rows, one per
/// link to a note or a club photo, keyed by what the link names (``targetKeys(of:)``). Backlinks
/// of a note are then one lookup on that key, live as the index follows the club and offline
/// too, never a scan of every text.
extension SearchIndex {
    /// The most characters of context kept for a link's line.
    public static let contextLength = 160

    /// `note_link`: the note that links, the target's key, the link's line and that line's text.
    static let linkTables = """
        CREATE TABLE IF NOT EXISTS note_link(
            note_id INTEGER NOT NULL, target TEXT NOT NULL, line INTEGER NOT NULL, context TEXT NOT NULL);
        CREATE INDEX IF NOT EXISTS note_link_target ON note_link(target);
        CREATE INDEX IF NOT EXISTS note_link_note ON note_link(note_id);
        """

    /// The keys a link to `target` is stored under: `t:` and the lowercased title for a wiki
    /// link by title, `p:` and the lowercased club path for a path (notes and photos); nil for
    /// web addresses and anything else, which no note can be the target of.
    public static func targetKey(of target: NoteLinkTarget) -> String? {
        switch target {
        case .note(let title): return "t:" + title.lowercased()
        case .path(let path), .photo(let path): return "p:" + path.lowercased()
        case .web, .elsewhere, .here: return nil
        }
    }

    /// The keys under which links to the note at `path` are stored: its path, the path without
    /// the extension (`[x](Trip)`, as Obsidian writes them), and its title.
    /// A wiki link by a path's end (`[[Trips/Day one]]`, `[[2026/Day one]]`) names it too, as
    /// Obsidian finds a note in a folder.
    public static func targetKeys(of path: String) -> [String] {
        let lower = path.lowercased()
        var keys = ["p:" + lower, "t:" + NoteLinks.title(ofPath: path).lowercased()]
        let bare = NoteLinks.title(ofPath: lower)
        let name = (lower as NSString).lastPathComponent
        let folders = (lower as NSString).deletingLastPathComponent.split(separator: "/")
        if bare != name { keys.append("p:" + (lower as NSString).deletingLastPathComponent + "/" + bare) }
        var end = bare
        for folder in folders.reversed() {
            end = folder + "/" + end
            keys.append("t:" + end)
        }
        return keys
    }

    /// The notes that link to the note at `path` (by its title, its path, or its path without
    /// the extension), newest first, one row per note: its first such link's line and context.
    /// The note's links to itself are left out.
    public func backlinks(to path: String, limit: Int = 1000) throws(SearchIndexError) -> [Backlink] {
        let keys = Self.targetKeys(of: path)
        let marks = keys.map { _ in "?" }.joined(separator: ", ")
        var arguments = StatementArguments(keys)
        arguments += [path.lowercased(), max(1, limit)]
        let rows = try reading { db in
            // SQLite takes a bare column's value from the row MIN() picked: the first link's context.
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT n.path, n.name, n.modified, n.modified_by, l.line, l.context, l.count
                FROM (SELECT note_id, MIN(line) AS line, context, count(*) AS count FROM note_link
                      WHERE target IN (\(marks)) GROUP BY note_id) l
                JOIN note n ON n.id = l.note_id
                WHERE n.path_lower != ?
                ORDER BY n.modified DESC, n.path_lower LIMIT ?
                """), arguments: arguments)
        }
        return rows.map { row in
            Backlink(path: row["path"], name: row["name"],
                     modified: (row["modified"] as Double?).map { Date(timeIntervalSince1970: $0) },
                     modifiedBy: row["modified_by"], line: row["line"], context: row["context"], count: row["count"])
        }
    }

    /// One stored link: the note that holds it, the key it was stored under
    /// (``targetKey(of:)``), its line (from 0) and that line's text.
    public struct LinkRow: Sendable, Hashable {
        public var path: String
        public var name: String
        public var modified: Date?
        public var modifiedBy: String?
        public var target: String
        public var line: Int
        public var context: String
    }

    /// Every link stored under any of `keys`, each with its note: the candidates a resolver
    /// decides between (the core's `resolvedBacklinks`), where ``backlinks(to:limit:)`` counts
    /// every one.
    public func links(under keys: [String]) throws(SearchIndexError) -> [LinkRow] {
        guard !keys.isEmpty else { return [] }
        let marks = keys.map { _ in "?" }.joined(separator: ", ")
        return try reading { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT n.path, n.name, n.modified, n.modified_by, l.target, l.line, l.context
                FROM note_link l JOIN note n ON n.id = l.note_id
                WHERE l.target IN (\(marks))
                """), arguments: StatementArguments(keys)).map { row in
                LinkRow(path: row["path"], name: row["name"], modified: (row["modified"] as Double?).map { Date(timeIntervalSince1970: $0) },
                        modifiedBy: row["modified_by"], target: row["target"], line: row["line"], context: row["context"])
            }
        }
    }

    /// The paths of the notes whose text holds any of `needles` (as written, or lowercased in
    /// ASCII): one pass over the texts in SQLite, the cheap first look before links are read.
    public func paths(containing needles: [String]) throws(SearchIndexError) -> [String] {
        guard !needles.isEmpty else { return [] }
        let test = needles.map { _ in "instr(b.body, ?) > 0 OR instr(lower(b.body), lower(?)) > 0" }.joined(separator: " OR ")
        return try reading { db in
            try String.fetchAll(db, sql: "SELECT n.path FROM note n JOIN note_body b ON b.id = n.id WHERE \(test)",
                                arguments: StatementArguments(needles.flatMap { [$0, $0] }))
        }
    }

    /// The notes whose text opens with front matter that names `key` (`aliases`), with their
    /// texts: the few a title may also name.
    public func notesWithFrontMatter(naming key: String) throws(SearchIndexError) -> [(path: String, text: String)] {
        try reading { db in
            try Row.fetchAll(db, sql: """
                SELECT n.path, b.body FROM note n JOIN note_body b ON b.id = n.id
                WHERE substr(b.body, 1, 3) = '---' AND instr(b.body, ?) > 0
                """, arguments: [key + ":"]).map { ($0["path"], $0["body"]) }
        }
    }

    /// How many links the index holds (every note's, to notes and photos).
    public func linkCount() throws(SearchIndexError) -> Int {
        try reading { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM note_link") ?? 0 }
    }

    /// Replaces the links stored for the note `id` with those of `text`, resolved against the
    /// folder `path` is in.
    static func writeLinks(id: Int64, path: String, text: String, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM note_link WHERE note_id = ?").execute(arguments: [id])
        // Only links to notes and photos are kept, and every one of those is written with a "["
        // (wiki links, Markdown links and images, reference links): a note without one is not
        // parsed at all, which is most of a club's notes and most of the first index's time.
        guard text.utf8.contains(UInt8(ascii: "[")) else { return }
        let folder = (path as NSString).deletingLastPathComponent
        let keyed = NoteLinks.scan(text).compactMap { link in targetKey(of: link.target(inFolder: folder)).map { (link, $0) } }
        guard !keyed.isEmpty else { return }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let insert = try db.cachedStatement(sql: "INSERT INTO note_link(note_id, target, line, context) VALUES (?, ?, ?, ?)")
        for (link, key) in keyed {
            // An autolink has no position: its text is its context.
            let context = link.line >= 0 && link.line < lines.count ? Self.context(lines[link.line]) : link.text
            try insert.execute(arguments: [id, key, max(0, link.line), context])
        }
    }

    static func deleteLinks(id: Int64, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM note_link WHERE note_id = ?").execute(arguments: [id])
    }

    /// A line as context: trimmed, cut to ``contextLength`` characters with an ellipsis.
    static func context(_ line: Substring) -> String {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count > contextLength else { return trimmed }
        return String(trimmed.prefix(contextLength - 1)) + "…"
    }
}
