import TerminalUI

/// The mouse on the main screen: a click on a tab switches to it; on a list a click selects
/// the row and a double click opens it (as Enter does for a note, as `v` does for a photo);
/// the wheel scrolls the list under the pointer; the editor takes what falls on it.
///
/// Everything is hit-tested against the rects the last frame drew, kept in the state
/// (``ListState/rowsFrame``, ``NoteEditorState/frames``) and in ``lastArea`` for the tab bar.
extension MainScreen {
    /// The mouse on the lists, for help.
    static func mouseCommands(_ tab: Tab) -> [Command] {
        let open = tab == .notes ? "Open the note (or the folder)" : "View the photo full screen (or open the album)"
        return [
            Command(keys: [], description: "Select the row", group: tab.title, keyLabel: "Click a row"),
            Command(keys: [], description: open, group: tab.title, keyLabel: "Double-click a row"),
            Command(keys: [], description: "Scroll the list", group: tab.title, keyLabel: "Wheel"),
        ] + (tab == .notes ? [Command(keys: [], description: "Move to folder (the row dropped on)", group: tab.title, keyLabel: "Drag a row onto a folder")] : [])
    }

    /// A double click's target: the same row of the same tab.
    private struct RowTarget: Hashable, Sendable {
        var tab: Tab
        var row: Int
    }

    func handleMouse(_ key: Key, delegate: any MainScreenDelegate) -> EventResult {
        guard let point = key.mousePoint else { return .ignored }
        if case .mouse = key, let index = tabBar.hitTest(point, in: lastArea.row(0)), let tab = Tab(rawValue: index) {
            clicks.reset()
            delegate.screen(perform: .select(tab))
            return .consumed
        }
        let tab = model.state.tab
        // The editor (EditorLayer, above) took what fell on it, or the merge view in its place.
        // The list beside it takes clicks and the wheel as ever: a click selects its row (the
        // editor keeps the keys; a double click opens nothing while a note is open, as Enter
        // there is text).
        var list = model.state[tab].list
        let rows = rows(tab)
        if let delta = key.wheelRows {
            guard list.rowsFrame.contains(point) else { return .consumed }
            let count = list.filter.isEmpty ? rows.count : list.visibleIndices(in: rows).count
            // A photo row is five lines tall: one notch moves one photo.
            if list.scroll(by: tab == .photos ? delta.signum() : delta, count: count) == .moved {
                clicks.reset()
                model.update { $0[tab].list = list }
            }
            return .consumed
        }
        if case .pointer(let event) = key, case .release = event.action, tab == .notes, let from = dragFrom {
            // A drag from a row onto a folder's row: the note (or folder) moves into it.
            dragFrom = nil
            var probe = list
            if let onto = probe.click(at: point, rows: rows), onto != from {
                clicks.reset()
                delegate.screen(perform: .notes(.drop(from: from, onto: onto)))
            }
            return .consumed
        }
        guard case .mouse = key, let row = list.click(at: point, rows: rows) else { return .consumed }
        dragFrom = tab == .notes ? row : nil
        let click = clicks.press(on: RowTarget(tab: tab, row: row), at: clock())
        if list != model.state[tab].list { model.update { $0[tab].list = list } }
        if click == .double {
            delegate.screen(perform: tab == .notes ? .notes(.open) : .photos(.view))
        }
        return .consumed
    }
}
