import Foundation
import Remote
import TerminalUI

/// The "Backlinks" panel: the notes that link to the open one, from the search index (so
/// offline too), asked again whenever the index takes in changes, so a note another member adds
/// appears with no key pressed. `Enter` opens one (remembered for "Back").
extension LinksController {
    /// The key again, or `Esc`, closes the panel.
    func toggleBacklinks() {
        if state.links.panel != nil {
            closeBacklinks()
            return
        }
        guard let entry = state.note?.entry else {
            context.say(.error("Save the note first: backlinks are of notes in the club"))
            return
        }
        // The panel (BacklinksLayer) is on screen while the state holds it.
        context.update { $0.links.panel = BacklinksPanel(path: entry.path) }
        refreshBacklinks()
    }

    func closeBacklinks() {
        if state.links.panel != nil { context.update { $0.links.panel = nil } }
    }

    func backlinksAction(_ action: BacklinksLayer.Action) {
        switch action {
        case .close:
            closeBacklinks()
        case .open:
            guard let note = state.links.panel?.selected else { return }
            guard let entry = navigator.entry(at: note.path) else {
                context.say(.error("\"\(TerminalSafe.escape(note.name))\" is no longer in the club"))
                return
            }
            navigator.open(entry, remember: true)
        }
    }

    /// The index took in changes (the search index's sync): the panel asks again, so a note
    /// another member adds appears with no key pressed.
    func indexChanged() {
        if state.links.panel != nil { refreshBacklinks() }
    }

    /// Asks the index for the panel's note's backlinks, off the UI queue.
    func refreshBacklinks() {
        guard let path = state.links.panel?.path else { return }
        guard let index = noteIndex.index else {
            context.update {
                $0.links.panel?.isLoading = false
                $0.links.panel?.error = "No search index (yet): backlinks come from it"
            }
            return
        }
        backlinksGeneration += 1
        let generation = backlinksGeneration
        let root = context.configuration.layout.folder
        context.effects.perform({ () async throws(RemoteError) in try index.backlinks(to: path, root: root, limit: 500) }) { [weak self] result in
            guard let self, generation == self.backlinksGeneration,
                  var panel = self.state.links.panel, panel.path == path else { return }
            panel.isLoading = false
            switch result {
            case .success(let found):
                // The selection stays on the same note when the list changes under it.
                let selected = panel.selected?.path
                panel.notes = found
                panel.error = nil
                if let selected, let at = found.firstIndex(where: { $0.path == selected }) { panel.list.selected = at }
            case .failure(let error):
                panel.error = error.message
            }
            self.context.update { $0.links.panel = panel }
        }
    }
}
