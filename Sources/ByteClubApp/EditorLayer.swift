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
        guard offered(key) else { return .ignored }
        return onKey?(key) == true ? .consumed : .ignored
    }

    /// Whether the editor's keys see `key`. Asked apart, so no copy of the state is alive while
    /// ``onKey`` edits the note in place: one was, and each key copied a 1 MiB note's 20,000
    /// lines (1.5 ms a key in `app-bench markdown`, found with `perf`).
    private func offered(_ key: Key) -> Bool {
        guard model.state.tab == .notes, let stage = model.state.note?.stage else { return false }
        // While a note loads, a filter being typed keeps its keys (Esc clears the filter, it
        // does not abandon the load).
        return key.isMouse || stage != .loading || !model.state.notes.list.isEditingFilter
    }
}
