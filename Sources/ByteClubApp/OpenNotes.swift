import Foundation
import Remote
import TerminalUI

/// The notes open besides the one on screen (a buffer list, as vim and helix keep one): a note
/// with unsaved edits that a followed link, a search hit or a new note left stays open here,
/// with its editor (cursor, undo, selection), its draft and the rev it was opened at, and
/// comes back as it was (`Alt-1`…`Alt-9`, "Switch note", "Back").
///
/// ``AppState/note`` stays the one note on screen, which every save, merge and live update acts
/// on; a parked note is a frozen value that only its own outbox confirmations touch (by its
/// draft), so an answer about one note never lands on another.
public struct OpenNotes: Sendable, Equatable {
    /// The open notes that are not on screen, in the switcher's order without the shown one.
    public internal(set) var parked: [NoteSession] = []
    /// Where the note on screen sits in that order (a note opened next goes last).
    public internal(set) var shownAt = 0

    public init() {}
}

/// What the editor does with the other open notes' keys, as the switcher answers them.
public enum OpenNotesAction: Hashable, Sendable {
    /// `Alt-1`…`Alt-9`: the open note of that number (from 0).
    case show(Int)
    /// The open notes, to choose from.
    case switcher
    case lineNumbers, softWrap
}

extension NoteSession {
    /// The name the switcher and the quit question give the note: its file name, or what a
    /// save would call it ("the new note" while it has no title).
    public var displayName: String {
        if let name = entry?.name, editor.title.text.trimmingCharacters(in: .whitespaces) == ClubLayout.title(of: name) { return name }
        return editor.title.text.trimmingCharacters(in: .whitespaces).isEmpty ? "the new note" : fileName
    }

    /// Unsaved edits that a quit or a close must mention (a read-only note has none to lose).
    public var hasUnsavedEdits: Bool { isModified && !isReadOnly }

    /// Whether `other` is the same note: the same draft, or the same path on the server.
    func isSameNote(_ other: NoteSession) -> Bool {
        draftID == other.draftID || (entry != nil && entry?.pathLower == other.entry?.pathLower)
    }
}

extension AppState {
    /// Every open note in `Alt-1`…`Alt-9`'s order, the note on screen in its place.
    public var openNotes: [NoteSession] {
        var all = buffers.parked
        if let note, note.stage != .loading { all.insert(note, at: min(buffers.shownAt, all.count)) }
        return all
    }

    /// The position of the note on screen in ``openNotes``, if one is.
    public var shownNoteIndex: Int? {
        guard let note, note.stage != .loading else { return nil }
        return min(buffers.shownAt, buffers.parked.count)
    }

    /// The open notes with unsaved edits (on screen or not), in their order.
    public var unsavedNotes: [NoteSession] { openNotes.filter(\.hasUnsavedEdits) }

    /// What a quit question says of the unsaved notes, naming each when there are several;
    /// nil when there are none.
    public var unsavedNotesSentence: String? {
        let unsaved = unsavedNotes
        switch unsaved.count {
        case 0: return nil
        case 1: return "A note has unsaved changes (its draft is kept for next time)."
        default:
            let names = unsaved.map { TerminalSafe.escape($0.displayName) }.joined(separator: ", ")
            return "\(unsaved.count) notes have unsaved changes (their drafts are kept for next time): \(names)."
        }
    }

    /// The index in ``OpenNotes/parked`` of the open note at `path` (any case), if it is parked.
    func parkedIndex(path: String) -> Int? {
        let lower = path.lowercased()
        return buffers.parked.firstIndex { $0.entry?.pathLower == lower }
    }

    /// The index in ``OpenNotes/parked`` of the open note journalled to `draftID`, if parked.
    func parkedIndex(draftID: String) -> Int? { buffers.parked.firstIndex { $0.draftID == draftID } }

    /// Puts the note on screen among the parked ones, at its place; what showed only it (its
    /// rendered view, its backlinks, the search results it came from) goes with it. A note
    /// still loading is dropped, not parked.
    mutating func parkShownNote() {
        guard let shown = note else { return }
        note = nil
        noteView = nil
        links.panel = nil
        parkedSearch = nil
        guard shown.stage != .loading else { return }
        buffers.parked.removeAll { $0.isSameNote(shown) }
        buffers.parked.insert(shown, at: min(buffers.shownAt, buffers.parked.count))
        // The next note opened goes last.
        buffers.shownAt = buffers.parked.count
    }

    /// Shows the parked note at `index` of ``OpenNotes/parked``, the note on screen parked at
    /// its own place first.
    mutating func showParked(at index: Int) {
        guard buffers.parked.indices.contains(index) else { return }
        let wanted = buffers.parked[index].draftID
        parkShownNote()
        guard let at = parkedIndex(draftID: wanted) else { return }
        note = buffers.parked.remove(at: at)
        buffers.shownAt = at
    }

    /// Shows the open note at `index` of ``openNotes`` (nothing moves when it is on screen).
    mutating func showOpenNote(at index: Int) {
        let all = openNotes
        guard all.indices.contains(index), index != shownNoteIndex, let at = parkedIndex(draftID: all[index].draftID) else { return }
        showParked(at: at)
    }

    /// Changes the parked note journalled to `draftID`, if there is one.
    mutating func updateParked(draftID: String?, _ change: (inout NoteSession) -> Void) {
        guard let draftID, let index = parkedIndex(draftID: draftID) else { return }
        change(&buffers.parked[index])
    }
}

/// The editor's view settings, remembered in config.toml (`line_numbers`, `soft_wrap`).
public struct EditorSettings: Equatable, Sendable {
    /// Whether each line's number is drawn at the left of the editor.
    public var lineNumbers = false
    /// Whether long lines wrap (the default); off, they run on and the editor scrolls sideways.
    public var softWrap = true

    public init(lineNumbers: Bool = false, softWrap: Bool = true) {
        self.lineNumbers = lineNumbers
        self.softWrap = softWrap
    }
}
