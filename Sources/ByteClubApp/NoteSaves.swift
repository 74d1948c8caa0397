import Foundation
import ClubKit
import Remote
import TerminalUI

/// The open note's one save machine, a helper the app owns (it calls no controller): `Ctrl-S`
/// (NoteSaves+Saving.swift), the outbox's answers to a save sent at once (+SaveAnswers), and a
/// save queued while the server cannot be reached (+Offline). A save that meets another
/// member's change goes on in ``NoteConflicts`` (the dialog, the merge). ``NotesController``
/// hands it the editor's save key.
@MainActor
final class NoteSaves {
    let context: AppContext
    let refresher: Refresher
    let navigator: Navigator
    let edits: NoteEdits
    /// Where changes go while the server cannot be reached (NoteSaves+Offline.swift).
    weak var outboxRunner: OutboxRunner?
    /// Who deleted a note, asked of the server as the live updates ask it (a helper's names cache).
    weak var live: LiveUpdates?
    /// Where a save that met another member's change goes on (its owner holds it).
    weak var conflicts: NoteConflicts?
    init(context: AppContext, refresher: Refresher, navigator: Navigator, edits: NoteEdits) {
        self.context = context
        self.refresher = refresher
        self.navigator = navigator
        self.edits = edits
    }

    var state: AppState { context.state }
    var configuration: AppConfiguration { context.configuration }

    @discardableResult
    func journal() -> Bool { edits.journal() }
    func load(_ entry: RemoteEntry) { navigator.load(entry) }
    func discardEditor() { navigator.discard() }
    func showInList(_ session: NoteSession) { navigator.showInList(session) }
}
