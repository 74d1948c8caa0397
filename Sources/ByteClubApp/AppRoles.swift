import Foundation
import Remote
import TerminalUI

// The roles one controller plays for others (docs/architecture.md: a controller never calls
// another controller). A controller that needs something of another names the role, never the
// type; the composition root (`ClubApp`) hands each the one that plays it, and a test can hand
// it a fake. Each role is as narrow as its users' needs.

/// The note editor, as the search results and the links between notes use it: open a note (at
/// a search hit, from its draft, or fresh), start a new one, close the open one, and give it a
/// key the links did not take.
@MainActor
protocol NoteOpening: AnyObject {
    func open(_ entry: RemoteEntry, at hit: SearchResult)
    func open(draft: Draft, entry: RemoteEntry?)
    func load(_ entry: RemoteEntry)
    func newNote()
    func closeEditor()
    func handleEditorKey(_ key: Key) -> Bool
}

/// Search over every note, as the editor uses it: "search every note" for a word, `Esc` back to
/// the results a note was opened from, and the index's copy of a note (offline).
@MainActor
protocol NoteSearching: AnyObject {
    var index: (any NoteSearchIndex)? { get }
    var hasParkedResults: Bool { get }
    func open(query: String)
    func backToResults()
}

/// The photos' transfers, as the viewer and the background hand-over use them.
@MainActor
protocol PhotoTransferring: AnyObject {
    /// The running uploads' sessions: what a hand-over continues.
    var uploadSessions: UploadSessionMarks { get }
    func downloadSelected()
    /// Stops the running transfers for a hand-over; the tasks end when they have stopped.
    func stopForHandOver() -> [Task<Void, Never>]
    @discardableResult
    func upload(_ file: URL, showsModal: Bool, resuming: UploadSessionMark?) -> Bool
}
