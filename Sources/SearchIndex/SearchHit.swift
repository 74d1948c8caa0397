import Foundation

/// A note as the index takes it: where it is, its revision and its text.
public struct IndexedNote: Sendable, Hashable {
    /// As displayed, e.g. "/byteclub/Trip.txt"; looked up case-insensitively.
    public var path: String
    /// The file name, e.g. "Trip.txt"; its title (the name without the extension) is searched.
    public var name: String
    /// The server's revision, so a sync fetches only notes whose revision changed.
    public var rev: String?
    public var modified: Date?
    /// Who made this revision, as the server names them (an account id or a display name).
    public var modifiedBy: String?
    public var text: String

    public init(path: String, name: String? = nil, rev: String?, modified: Date?, modifiedBy: String?, text: String) {
        self.path = path
        self.name = name ?? IndexedNote.lastComponent(of: path)
        self.rev = rev
        self.modified = modified
        self.modifiedBy = modifiedBy
        self.text = text
    }

    static func lastComponent(of path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
    }

    /// "Trip.txt" → "Trip": the extension would make every note match "txt".
    static func title(of name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot > name.startIndex else { return name }
        return String(name[..<dot])
    }
}

/// Where a hit matched, in Dropbox's words (`match_type`).
public enum SearchMatchKind: String, Sendable, Hashable, Codable {
    case filename
    case content
    /// Dropbox's `filename_and_content`.
    case both
}

/// The first line of a note that matches, and where in it.
public struct SearchLine: Sendable, Hashable, Codable {
    /// The line's text as stored (not yet made safe for a terminal: pass it through `TerminalSafe`).
    public var text: String
    /// The line, counted from 0 (as the editor's `TextBuffer.Position.line`).
    public var index: Int
    /// The first match's start, in `Character`s from the line's start (the editor's offset).
    public var column: Int
    /// Every match in the line, in `Character` offsets, in order.
    public var ranges: [Range<Int>]

    /// For people: lines counted from 1.
    public var number: Int { index + 1 }

    public init(text: String, index: Int, column: Int, ranges: [Range<Int>]) {
        self.text = text
        self.index = index
        self.column = column
        self.ranges = ranges
    }
}

/// One note found by a search.
public struct SearchHit: Sendable, Hashable {
    public var path: String
    public var name: String
    public var rev: String?
    public var modified: Date?
    public var modifiedBy: String?
    public var match: SearchMatchKind
    /// The first matching line of the text; nil when only the title matched.
    public var line: SearchLine?
    /// FTS5's bm25 (lower is better), for merging results; not comparable across indexes.
    public var score: Double
    /// Where the query matched the title (the name without its extension), in `Character`s:
    /// what a title-only hit highlights.
    public var titleRanges: [Range<Int>] = []

    public init(path: String, name: String, rev: String?, modified: Date?, modifiedBy: String?,
                match: SearchMatchKind, line: SearchLine?, score: Double) {
        self.path = path
        self.name = name
        self.rev = rev
        self.modified = modified
        self.modifiedBy = modifiedBy
        self.match = match
        self.line = line
        self.score = score
    }
}

/// What went wrong with the index file.
public enum SearchIndexError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file is damaged (not a database, or corrupt pages). ``SearchIndex/reset(reason:)``
    /// starts it afresh; ``IndexSync`` does so by itself and fills it again.
    case damaged(String)
    /// Another SQLite error (disk full, permissions): the message.
    case database(String)
    case query(SearchQueryError)

    public var description: String {
        switch self {
        case .damaged(let why): return "the search index is damaged (\(why))"
        case .database(let why): return "search index: \(why)"
        case .query(let error): return error.description
        }
    }
}
