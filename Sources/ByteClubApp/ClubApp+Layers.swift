import Remote
import TerminalUI

/// The layers on screen, kept while the state still shows them, so what a layer keeps between
/// frames stays (a dialog's selected button, a typed answer, a panel's scroll).
struct ShownLayers {
    var editor: EditorLayer?
    var noteView: NoteViewLayer?
    var backlinks: BacklinksLayer?
    var history: HistoryLayer?
    var search: SearchLayer?
    var viewer: ViewerLayer?
    var panel: TransfersPanel?
    var modal: (layer: TransferModal, id: Int)?
    var dialogs: [(id: Int, layer: any Layer)] = []
}

/// The screen as a function of the state (ratatui's way): the compositor asks for the layers
/// each frame and each key, and they follow ``AppState``: the main screen, then the editor
/// (``EditorLayer``), the rendered view, the backlinks, the history, the search results, the photo viewer, the Transfers panel,
/// the transfer modal and the questions (``AppState/dialogs``), bottom to top. No controller
/// keeps a layer: showing one is a change of state, and a layer's keys go to the controller
/// whose state it shows.
extension ClubApp: LayerSource {
    public func layers() -> [any Layer] {
        let state = model.state
        var stack: [any Layer] = [screen]
        shown.editor = state.tab == .notes && state.note != nil ? shown.editor ?? editorLayer() : nil
        shown.noteView = state.noteView != nil && state.note != nil ? shown.noteView ?? NoteViewLayer(model: model, controller: noteView) : nil
        shown.backlinks = state.links.panel != nil ? shown.backlinks ?? backlinksLayer() : nil
        shown.history = state.history != nil ? shown.history ?? historyLayer() : nil
        shown.search = state.search != nil ? shown.search ?? searchLayer() : nil
        shown.viewer = state.viewer != nil ? shown.viewer ?? viewerLayer() : nil
        shown.panel = state.showsTransfersPanel ? shown.panel ?? panelLayer() : nil
        let panels: [(any Layer)?] = [shown.editor, shown.noteView, shown.backlinks, shown.history, shown.search, shown.viewer, shown.panel]
        stack += panels.compactMap { $0 }
        if let id = state.transfers.modalID, let transfer = state.transfers[id] {
            if let modal = shown.modal, modal.id == id {
                modal.layer.transfer = transfer.progress
            } else {
                shown.modal = (TransferModal(transfer.progress) { [weak self] outcome in self?.transfers.modalOutcome(id, outcome) }, id)
            }
            stack.append(shown.modal!.layer)
        } else {
            shown.modal = nil
        }
        shown.dialogs = state.dialogs.compactMap { dialog in
            guard let layer = shown.dialogs.first(where: { $0.id == dialog.id })?.layer ?? model.makeLayer(for: dialog) else { return nil }
            return (dialog.id, layer)
        }
        return stack + shown.dialogs.map(\.layer)
    }

    /// A question's layer was answered: the question goes from the state, and so from the screen.
    public func dismissed(_ layer: any Layer) {
        guard let id = shown.dialogs.first(where: { $0.layer === layer })?.id else { return }
        update { $0.dialogs.removeAll { $0.id == id } }
    }

    /// The editor's keys: the rendered view's (Alt-V, photos), the links', then the editor's own.
    private func editorLayer() -> EditorLayer {
        let layer = EditorLayer(model: model)
        layer.onKey = { [weak self] key in
            guard let self else { return false }
            // A live note's undo is the shared document's: this member's own edits only.
            if self.state.noteView == nil, self.state.note?.editor.focus == .body, key == .ctrl("z") || key == .ctrl("y"),
               self.liveNotes.undo(redo: key == .ctrl("y")) { return true }
            let taken = self.noteView.handleEditorKey(key) || self.links.handleEditorKey(key) || self.openNotes.handleEditorKey(key)
                || self.externalEdit.handleEditorKey(key) || self.notes.handleEditorKey(key)
            if taken { self.liveNotes.keyHandled() }
            return taken
        }
        return layer
    }

    private func backlinksLayer() -> BacklinksLayer {
        let layer = BacklinksLayer(model: model)
        layer.onAction = { [weak self] action in self?.links.backlinksAction(action) }
        return layer
    }

    private func historyLayer() -> HistoryLayer {
        let layer = HistoryLayer(model: model)
        layer.onAction = { [weak self] action in self?.history.perform(action) }
        layer.onSelectionChanged = { [weak self] in self?.history.fetchSelected() }
        return layer
    }

    private func searchLayer() -> SearchLayer {
        let layer = SearchLayer(model: model, format: configuration.format)
        layer.onKey = { [weak self] key in self?.search.handle(key) ?? false }
        return layer
    }

    private func viewerLayer() -> ViewerLayer {
        let layer = ViewerLayer(model: model, pictures: viewer.pictures, graphics: configuration.graphics)
        // `Enter` in the viewer is the list's download, on the photo it shows.
        layer.onDownload = { [weak self] in self?.photos.downloadSelected() }
        return layer
    }

    /// The Transfers panel: the agent's rows (negative ids) and its finished rows are the
    /// background controller's to change, the app's own the photos controller's.
    private func panelLayer() -> TransfersPanel {
        let layer = TransfersPanel(model: model)
        layer.onAction = { [weak self] action, id in
            guard let self else { return }
            if let id, id < 0, action != .close {
                self.background.panelAction(action, id: id)
                return
            }
            if action == .clear { self.background.panelAction(.clear, id: nil) }
            self.photos.panelAction(action, id: id)
        }
        return layer
    }
}
