import Foundation
import Remote
import TerminalUI

/// A note opened from the search results: the cursor on the match, and the editor in "search
/// hits" mode (``SearchMatches``): `n`/`N` step through the matches, `Esc` (the note unchanged)
/// goes back to the results, and the first edit or cursor move ends the mode (an edit's key typed as usual).
extension NotesController {
    /// `Enter` on a search hit: opens `entry` (its draft if it has one) with the cursor on the match.
    func open(_ entry: RemoteEntry, at hit: SearchResult) {
        if let note = state.note, note.phase != .loading { return }
        if let draft = state.drafts.first(where: { $0.path?.lowercased() == entry.pathLower }) {
            // The draft is the text the user last saw: the matches are looked for in it.
            open(draft: draft, entry: entry)
            context.model.updateQuietly { $0.note?.openedFrom = hit }
            if var session = state.note, session.phase != .loading {
                placeAtSearchHit(&session)
                context.update { $0.note = session }
            }
            return
        }
        load(entry)
        context.model.updateQuietly { $0.note?.openedFrom = hit }
    }

    /// Puts a session just loaded from a search hit on its match, in search hits mode.
    func placeAtSearchHit(_ session: inout NoteSession) {
        guard let hit = session.openedFrom else { return }
        session.openedFrom = nil
        var matches = SearchMatches(texts: hit.matchedTexts, in: session.editor.body.text)
        let column = hit.ranges.first?.lowerBound ?? 0
        if let match = matches.start(atLine: hit.lineNumber, column: column) {
            session.editor.focus = .body
            session.editor.body.moveCursor(to: match.position)
        }
        session.searchMatches = matches
        session.banner = Self.searchBanner(matches)
    }

    /// "Search: match 2 of 5, line 12 · n next · N previous · Esc back to the results".
    static func searchBanner(_ matches: SearchMatches) -> String {
        let line = matches.matches.isEmpty ? "" : ", line \(matches.matches[matches.current].position.line + 1)"
        return "Search: \(matches.summary)\(line) · n next · N previous · Esc back to the results"
    }

    /// A key in search hits mode; nil when the mode is off or the key is not one of its own.
    func handleSearchHitKey(_ key: Key) -> Bool? {
        guard let session = state.note, session.phase != .loading, session.merge == nil,
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
                $0.note?.banner = Self.searchBanner(matches)
            }
            return true
        case .back? where !session.isModified && searchController?.hasParkedResults == true:
            context.update {
                $0.note = nil
                $0.message = nil
            }
            searchController?.backToResults()
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

    /// The first edit or cursor move after a search: `n` and `N` are letters again.
    func endSearchHits() {
        guard let session = state.note, let matches = session.searchMatches else { return }
        context.model.updateQuietly {
            $0.note?.searchMatches = nil
            if $0.note?.banner == Self.searchBanner(matches) { $0.note?.banner = nil }
        }
    }
}
