import TerminalUI

/// The note editor as a layer like the others: over the main screen while a note is open in
/// the Notes tab, it is offered every key first (the rendered view's keys, the links', then
/// the editor's own: ``onKey``), and what it leaves goes on to the main screen below (Tab and
/// Shift-Tab, the tab bar, and the list while a note only loads). It draws nothing: the main
/// screen lays the editor out beside the list, and lists its keys in help.
@MainActor
final class EditorLayer: Layer {
    let model: AppModel
    /// Offered each key; returns whether it was taken.
    var onKey: (@MainActor (Key) -> Bool)?

    init(model: AppModel) {
        self.model = model
    }

    func render(into canvas: any Canvas, area: Rect) {}

    func handle(_ key: Key, context: LayerContext) -> EventResult {
        let state = model.state
        guard state.tab == .notes, let note = state.note else { return .ignored }
        // While a note loads, a filter being typed keeps its keys (Esc clears the filter, it
        // does not abandon the load).
        if !key.isMouse, note.stage == .loading, state.notes.list.isEditingFilter { return .ignored }
        return onKey?(key) == true ? .consumed : .ignored
    }
}
