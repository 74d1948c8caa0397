/// One row of a ``ListView``: the text of each column, and what the filter searches.
public struct ListRow: Hashable, Sendable {
    public var cells: [String]
    /// The lowercased text `/` filters on; by default the first column.
    public var searchKey: String
    /// The row's tags, lowercased, each with a space before and after (" trip  boat "): a
    /// filter that starts with `#` matches these instead of the text (`#tri` finds `trip`;
    /// `#trip ` only `trip` itself). A nested tag (`project/alpha`) counts its parents too, so
    /// `#project ` finds the notes tagged `project/alpha` under it.
    public var tagKey: String

    public init(_ cells: [String], searchText: String? = nil, tags: [String] = []) {
        self.cells = cells
        self.searchKey = (searchText ?? cells.first ?? "").lowercased()
        var keys: [String] = []
        for tag in tags.map({ $0.lowercased() }) {
            var parent = ""
            for part in tag.split(separator: "/").dropLast() {
                parent += parent.isEmpty ? String(part) : "/" + part
                if !keys.contains(parent), !tags.contains(parent) { keys.append(parent) }
            }
            keys.append(tag)
        }
        self.tagKey = keys.map { " " + $0 + " " }.joined()
    }

    /// Whether the row matches `needle`, which must already be lowercased.
    public func matches(lowercased needle: String) -> Bool {
        if needle.isEmpty { return true }
        if needle.hasPrefix("#") {
            guard !tagKey.isEmpty else { return false }
            return tagKey.contains(" " + needle.dropFirst())
        }
        var key = searchKey, needle = needle
        // Byte search on UTF-8: the substring test runs for every row on every frame of a
        // filtered 10,000-row list, and comparing Characters is several times slower.
        return key.withUTF8 { haystack in
            needle.withUTF8 { n in
                guard n.count <= haystack.count else { return false }
                let first = n[0]
                var i = 0
                let last = haystack.count - n.count
                while i <= last {
                    if haystack[i] == first {
                        var j = 1
                        while j < n.count, haystack[i + j] == n[j] { j += 1 }
                        if j == n.count { return true }
                    }
                    i += 1
                }
                return false
            }
        }
    }
}

/// What a key did to a list.
public enum ListOutcome: Hashable, Sendable {
    /// Not a list key; offer it to someone else.
    case ignored
    /// The selection or scroll position changed (or a movement key hit the end).
    case moved
    /// The filter text or filter mode changed.
    case filterChanged
    /// Enter on a row; `row` indexes the unfiltered rows.
    case activated(row: Int)

    /// `.consumed` for everything but ``ignored``.
    public var eventResult: EventResult { self == .ignored ? .ignored : .consumed }
}

/// The part of a list that lasts between frames: selection, scroll offset and filter.
///
/// It is a value owned by the app's state, next to the rows it describes. ``ListView`` reads it
/// when it draws and stores what drawing learns (the visible height, a scroll offset that keeps
/// the selection on screen); ``handle(_:rows:bindings:)`` applies the list keys without any terminal.
public struct ListState: Hashable, Sendable {
    /// The selected position among the rows that pass the filter.
    public var selected = 0
    /// The first visible position among the rows that pass the filter.
    public var offset = 0
    /// The filter text; rows whose search key contains it, ignoring case, are shown.
    public var filter = ""
    /// Whether typed characters go to the filter (after `/`).
    public var isEditingFilter = false
    /// Rows visible at once, which PgUp and PgDn move by; kept up to date by ``ListView``.
    public var pageSize = 10
    /// Where the last frame drew the rows, and how many lines each row takes (with its gap),
    /// for clicks (ListState+Mouse.swift); kept up to date by whoever draws the list.
    public var rowsFrame = Rect.zero
    public var rowPitch = 1

    public init() {}

    /// Whether a filter line is shown.
    public var isFiltering: Bool { isEditingFilter || !filter.isEmpty }

    /// The indices of the rows that pass the filter, in order.
    public func visibleIndices(in rows: some ListRows) -> [Int] {
        if filter.isEmpty { return Array(0..<rows.count) }
        return rows.rows(matching: filter.lowercased())
    }

    /// The selected row as an index into `rows`, or `nil` if no row passes the filter.
    public func selectedRow(in rows: some ListRows) -> Int? {
        if filter.isEmpty { return (0..<rows.count).contains(selected) ? selected : nil }
        let visible = visibleIndices(in: rows)
        return visible.indices.contains(selected) ? visible[selected] : nil
    }

    /// Selects `row` (an index into `rows`) if it passes the filter, as after a refresh.
    public mutating func select(row: Int, in rows: some ListRows) {
        if filter.isEmpty {
            if (0..<rows.count).contains(row) { selected = row }
        } else if let position = visibleIndices(in: rows).firstIndex(of: row) {
            selected = position
        }
    }

    /// Keeps `selected` inside `0..<count` and the offset where the selection is visible
    /// in `height` rows.
    public mutating func clamp(count: Int, height: Int) {
        selected = count == 0 ? 0 : min(max(0, selected), count - 1)
        guard height > 0 else { offset = selected; return }
        if selected < offset { offset = selected }
        if selected >= offset + height { offset = selected - height + 1 }
        offset = max(0, min(offset, count - height))
    }

    /// What the list keys do.
    public enum Action: Hashable, Sendable {
        case down, up, pageDown, pageUp, first, last, filter, clearFilter, activate
    }

    /// The list keys, as help lists them. Pass a copy with other descriptions (say, "Open note"
    /// for Enter) to ``handle(_:rows:bindings:)`` and list the same copy in help.
    public static let bindings = KeyBindings<Action>(group: "Lists", [
        .init([.up, .char("k")], .up, "Move up", keyLabel: "↑ / k"),
        .init([.down, .char("j")], .down, "Move down", keyLabel: "↓ / j"),
        .init([.pageUp], .pageUp, "Page up"),
        .init([.pageDown], .pageDown, "Page down"),
        .init([.home, .char("g")], .first, "First row"),
        .init([.end, .char("G")], .last, "Last row"),
        .init([.char("/")], .filter, "Filter the list"),
        .init([.escape], .clearFilter, "Clear the filter"),
        .init([.enter], .activate, "Open the selected row"),
    ])

    /// Applies a list key: movement (`j`/`k`, arrows, PgUp/PgDn, Home/End, `g`/`G`), `/` to
    /// filter, Esc to clear the filter, Enter to activate.
    public mutating func handle(_ key: Key, rows: some ListRows, bindings: KeyBindings<Action> = ListState.bindings) -> ListOutcome {
        if isEditingFilter, let outcome = handleFilterKey(key, rows: rows) { return outcome }
        guard let action = bindings.action(for: key) else { return .ignored }
        let count = filter.isEmpty ? rows.count : visibleIndices(in: rows).count
        switch action {
        case .down: return move(to: selected + 1, count: count)
        case .up: return move(to: selected - 1, count: count)
        case .pageDown: return move(to: selected + max(1, pageSize), count: count)
        case .pageUp: return move(to: selected - max(1, pageSize), count: count)
        case .first: return move(to: 0, count: count)
        case .last: return move(to: count - 1, count: count)
        case .filter:
            isEditingFilter = true
            return .filterChanged
        case .clearFilter:
            // With no filter, Esc belongs to whoever is below (closing a pane, say).
            guard !filter.isEmpty else { return .ignored }
            setFilter("", rows: rows)
            return .filterChanged
        case .activate:
            guard let row = selectedRow(in: rows) else { return .ignored }
            return .activated(row: row)
        }
    }

    /// What keys do while the filter is typed (any other character is added to it).
    public enum FilterAction: Hashable, Sendable {
        case accept, cancel, deleteBackward, deleteWord, clear
    }

    /// The keys of the filter line, for help.
    public static let filterBindings = KeyBindings<FilterAction>(group: "Filter", [
        .init([.enter], .accept, "Keep the filter and go back to the list"),
        .init([.escape], .cancel, "Clear the filter"),
        .init([.backspace], .deleteBackward, "Delete a character"),
        .init([.ctrl("w")], .deleteWord, "Delete a word"),
        .init([.ctrl("u")], .clear, "Delete the whole filter"),
    ])

    /// Keys while the filter is being typed; `nil` lets movement keys through.
    private mutating func handleFilterKey(_ key: Key, rows: some ListRows) -> ListOutcome? {
        if case .char(let c) = key {
            setFilter(filter + String(c), rows: rows)
            return .filterChanged
        }
        switch Self.filterBindings.action(for: key) {
        case .accept:
            isEditingFilter = false
        case .cancel:
            isEditingFilter = false
            setFilter("", rows: rows)
        case .deleteBackward:
            if filter.isEmpty { isEditingFilter = false } else { setFilter(String(filter.dropLast()), rows: rows) }
        case .deleteWord:
            var text = filter
            while text.last == " " { text.removeLast() }
            while let last = text.last, last != " " { text.removeLast() }
            setFilter(text, rows: rows)
        case .clear:
            setFilter("", rows: rows)
        case nil:
            return nil
        }
        return .filterChanged
    }

    /// Changes the filter, keeping the same row selected if it still passes.
    private mutating func setFilter(_ newFilter: String, rows: some ListRows) {
        let previous = selectedRow(in: rows)
        filter = newFilter
        selected = 0
        offset = 0
        if let previous { select(row: previous, in: rows) }
    }

    private mutating func move(to position: Int, count: Int) -> ListOutcome {
        selected = count == 0 ? 0 : min(max(0, position), count - 1)
        return .moved
    }
}
