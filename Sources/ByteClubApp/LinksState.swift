import Foundation
import DropboxWire
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

/// Where in a note the user was: the editor's cursor, and the rendered view if it was showing
/// (with its scroll). A note opened to a place (``NoteSession/arrival``) goes there once its
/// text is in.
public struct NotePlace: Equatable, Sendable {
    /// The editor's cursor (line, character); nil: where a note opens by itself.
    public var cursor: TextBuffer.Position?
    /// The rendered view as it was (scroll, sideways, the picked link); nil: the editor.
    public var view: NoteViewState?
    /// A heading or block id (a link's ``NoteLink/fragment``): the place is found in the note's
    /// text once it is in, and the cursor (and the view) go there.
    public var fragment: String?

    public init(cursor: TextBuffer.Position? = nil, view: NoteViewState? = nil, fragment: String? = nil) {
        self.cursor = cursor
        self.view = view
        self.fragment = fragment
    }

    /// Where the open note is now, in `state`.
    static func current(in state: AppState) -> NotePlace {
        var view = state.noteView
        // The backlinks are asked again when the view opens; a stale list is never shown.
        view?.backlinks = []
        view?.startAtSourceLine = nil
        return NotePlace(cursor: state.note?.editor.body.cursor, view: view)
    }
}

/// A note a followed link left, and the place in it "Back" returns to.
public struct LinkStop: Equatable, Sendable {
    /// The note's path as displayed ("/byteclub/Trip plan.md").
    public var path: String
    public var place: NotePlace

    public init(path: String, place: NotePlace = NotePlace()) {
        self.path = path
        self.place = place
    }
}

/// Links between notes: where "Back" goes, and the backlinks panel while it is open.
public struct LinksState: Equatable, Sendable {
    /// The notes a followed link left, oldest first; "Back" pops the last.
    public var history: [LinkStop] = []
    /// The "Backlinks" panel, while it is open.
    public var panel: BacklinksPanel?

    /// How many steps "Back" remembers.
    public static let historyLimit = 20

    public init() {}

    /// Remembers `stop` as the note a link left (the same note twice in a row once, at the
    /// place it was left last).
    mutating func push(_ stop: LinkStop) {
        if let last = history.last, last.path.lowercased() == stop.path.lowercased() {
            history[history.count - 1].place = stop.place
            return
        }
        history.append(stop)
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

extension AppState {
    /// Puts the open note at its ``NoteSession/arrival`` once its text is in ("Back", a link
    /// followed from the view, a heading in this note): the cursor there, and the rendered view
    /// as it was left (or the editor). The navigator calls it wherever it sets a place or a
    /// note's text comes in; nothing else reads the place.
    mutating func arriveAtPlace() {
        guard let session = note, session.stage == .open, var place = session.arrival else { return }
        note?.arrival = nil
        if let fragment = place.fragment {
            // A link's heading or block: found in the text now that it is in.
            if let line = NoteAnchors.line(of: fragment, in: session.editor.body.text) {
                place.cursor = TextBuffer.Position(line: line, offset: 0)
                place.view?.startAtSourceLine = line
                place.view?.startAtTop = true
            } else {
                message = .error("No heading or block \"\(TerminalSafe.escape(fragment))\" in \(TerminalSafe.escape(session.fileName)): opened at its top")
            }
        }
        if let cursor = place.cursor {
            note?.editor.focus = .body
            note?.editor.body.moveCursor(to: cursor)
        }
        // The mode it was left in: the view as it was, or the editor (Back to the note that is
        // open, left in the editor, closes its view).
        noteView = place.view
    }
}
