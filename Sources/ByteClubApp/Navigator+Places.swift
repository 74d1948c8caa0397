import Foundation
import Markdown
import Remote
import TerminalUI

/// Links to a place in the note that is open: `[[#Heading]]`, `[[#^block]]`, or a link to this
/// note with a heading. The cursor (and the view, when it is on screen) go there, and "Back"
/// (`Ctrl-O`) returns to where they were, as it does from another note.
extension Navigator {
    func goToPlace(_ fragment: String) {
        guard let session = state.note, session.stage != .loading else { return }
        guard let line = NoteAnchors.line(of: fragment, in: session.editor.body.text) else {
            context.say(.error("No heading or block \"\(TerminalSafe.escape(fragment))\" in this note"))
            return
        }
        context.update { state in
            // A note not yet saved has no path to come back to: the move is not remembered.
            if let path = state.note?.entry?.path { state.links.push(LinkStop(path: path, place: NotePlace.current(in: state))) }
            var view = state.noteView.map { NoteViewState(openedFromList: $0.openedFromList) }
            view?.startAtSourceLine = line
            view?.startAtTop = true
            state.note?.arrival = NotePlace(cursor: TextBuffer.Position(line: line, offset: 0), view: view)
            state.arriveAtPlace()
        }
    }
}
