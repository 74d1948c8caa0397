/// What one part of the app tells another: a value the composition root hands to whoever acts
/// on it (``ClubApp/route(_:)``), never a field of the state another part polls.
///
/// Two kinds: events a helper or controller sends (``AppContext/send(_:)``), and the screen's
/// own transitions, which the root reads once from two states in a row (``transitions(from:to:)``)
/// rather than each controller keeping the last state it saw.
enum AppEvent: Equatable, Sendable {
    /// The search index took in changes, or opened: results on screen and backlinks ask again.
    case indexChanged
    /// The rendered view, opened from the list, was left: the note closes too, asking first
    /// about unsaved changes as `Esc` in the editor does.
    case closeNoteAfterView
    /// The search results came on screen (opened, from the editor's find bar, back from a note).
    case searchShown
    /// The rendered view came on screen.
    case noteViewShown
    /// The notes list changed (the club changed): what is drawn from it asks again.
    case notesListChanged
    /// The outbox runner's answer to the save the open editor sent at once (an item's report, or
    /// the stop that ended it): the save machine carries it out (``NoteSaves``).
    case saveAnswered(NoteSave.Answer)
    /// The outbox's sender kept as a draft, for a conflict, the last item of the save the open
    /// editor stopped waiting for (its answer came after ``OutboxRunner/answerGrace``): the
    /// editor asks now, as an answered save does (``NoteSaves/lateConflict(_:)``).
    case lateConflict(OutboxReport)

    /// What the screen shows that a transition is read from.
    struct Screen: Equatable {
        var search = false
        var noteView = false
        var notesVersion = -1

        init() {}

        init(_ state: AppState) {
            search = state.search != nil
            noteView = state.noteView != nil && state.note != nil
            notesVersion = state.notes.version
        }
    }

    /// The events that the change from `old` to `new` makes, in the order they are handled.
    static func transitions(from old: Screen, to new: Screen) -> [AppEvent] {
        var events: [AppEvent] = []
        if new.search, !old.search { events.append(.searchShown) }
        if new.noteView, !old.noteView { events.append(.noteViewShown) }
        if new.notesVersion != old.notesVersion { events.append(.notesListChanged) }
        return events
    }
}
