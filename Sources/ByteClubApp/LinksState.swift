import Foundation
import Markdown
import TerminalUI

/// A note that links to another, as the backlinks panel lists it (from the search index).
public struct LinkingNote: Hashable, Sendable {
    /// The linking note's path as displayed ("/byteclub/Packing.md").
    public var path: String
    public var name: String
    public var modified: Date?
    public var modifiedBy: String?
    /// The line of its first link here, from 0.
    public var line: Int
    /// That line, trimmed (unescaped).
    public var context: String
    /// The title a wiki link names it by (its name without `.md` or `.txt`).
    public var title: String { NoteLinks.title(ofPath: path) }

    public init(path: String, name: String, modified: Date?, modifiedBy: String?, line: Int, context: String) {
        self.path = path
        self.name = name
        self.modified = modified
        self.modifiedBy = modifiedBy
        self.line = line
        self.context = context
    }
}

/// Links between notes: where "Back" goes, and the backlinks panel while it is open.
public struct LinksState: Equatable, Sendable {
    /// The notes a followed link left, oldest first (paths as displayed); "Back" pops the last.
    public var history: [String] = []
    /// The "Backlinks" panel, while it is open.
    public var panel: BacklinksPanel?

    /// How many steps "Back" remembers.
    public static let historyLimit = 20

    public init() {}

    /// Remembers `path` as the note a link left (the same note twice in a row once).
    mutating func push(_ path: String) {
        if history.last?.lowercased() == path.lowercased() { return }
        history.append(path)
        if history.count > Self.historyLimit { history.removeFirst(history.count - Self.historyLimit) }
    }
}

/// The backlinks panel of one note: the notes that link to it, live as the index changes.
public struct BacklinksPanel: Equatable, Sendable {
    /// The note whose backlinks these are.
    public var path: String
    public var notes: [LinkingNote] = []
    /// Until the index first answered.
    public var isLoading = true
    public var error: String?
    public var list = ListState()

    public init(path: String) { self.path = path }

    public var title: String { ClubLayout.title(of: (path as NSString).lastPathComponent) }

    var selected: LinkingNote? {
        // The panel has no filter: the selected position is the index.
        notes.indices.contains(list.selected) ? notes[list.selected] : nil
    }

    /// Title, "line N: context", and when, one row a linking note.
    func rows(format: DisplayFormat) -> [ListRow] {
        notes.map { note in
            ListRow([ClubLayout.title(of: note.name), "\(note.line + 1): " + note.context,
                     format.relative(note.modified)], searchText: note.name)
        }
    }
}
