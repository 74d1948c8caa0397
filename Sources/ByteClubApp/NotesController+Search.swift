import Foundation
import Remote
import TerminalUI

/// A note opened from the search results: the cursor on the match, and the editor in "search
/// hits" mode (``SearchMatches``): `n`/`N` step through the matches, `Esc` (the note unchanged)
/// goes back to the results, and the first edit or cursor move ends the mode (an edit's key typed as usual).
extension NotesController {
    /// A key in search hits mode; nil when the mode is off or the key is not one of its own.
    func handleSearchHitKey(_ key: Key) -> Bool? {
        guard let session = state.note, session.stage != .loading, session.merge == nil,
              var matches = session.searchMatches, session.editor.focus == .body else { return nil }
        switch SearchMatches.bindings.action(for: key) {
        case .next?, .previous?:
            guard let match = SearchMatches.bindings.action(for: key) == .next ? matches.next() : matches.previous() else {
                context.say(StatusMessage("No match in this text: n and N type again after an edit"))
                return true
            }
            context.update {
                $0.note?.editor.body.moveCursor(to: match.position)
                $0.note?.searchMatches = matches
                $0.note?.banner = Navigator.searchBanner(matches)
            }
            return true
        case .back? where !session.isModified && state.parkedSearch != nil:
            // Back to the results: they come on screen as the state holds them again.
            context.update {
                $0.note = nil
                $0.message = nil
                $0.search = $0.parkedSearch
                $0.parkedSearch = nil
            }
            return true
        default:
            return nil
        }
    }

    /// Whether a key the editor took as a move put the cursor somewhere by hand (a key, a
    /// click), rather than only scrolling the view (the wheel) or releasing a button.
    static func putsTheCursor(_ key: Key) -> Bool {
        guard key.isMouse else { return true }
        if case .mouse = key { return true }
        return false
    }


}
