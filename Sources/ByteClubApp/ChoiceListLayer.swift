import Foundation
import TerminalUI

/// A list to choose one item from, over the screen: "Insert a photo" (`Alt-I`), "Move to
/// folder" (`m`), "Switch note" (`Alt-O`, where a row's digit chooses it too). Enter hands the
/// chosen item back, Esc (or `q`) closes with nil; `/` filters.
@MainActor
final class ChoiceListLayer<Item: Sendable>: Layer {
    private let title: String
    private let items: [Item]
    private let columns: [ListColumn]
    private let rows: [ListRow]
    private let hint: String
    private let emptyHint: String
    private let bindings: KeyBindings<ListState.Action>
    /// `1`…`9` choose the row of that number.
    private let digitsChoose: Bool
    private var list = ListState()
    private let onChoice: @MainActor (Item?) -> Void

    init(title: String, items: [Item], columns: [ListColumn], row: (Item) -> ListRow, enterDoes: String, hint: String,
         emptyHint: String, selected: Int = 0, digitsChoose: Bool = false, onChoice: @escaping @MainActor (Item?) -> Void) {
        self.title = title
        self.items = items
        self.columns = columns
        rows = items.map(row)
        self.hint = hint
        self.emptyHint = emptyHint
        bindings = KeyBindings(group: title, [
            .init([.enter], .activate, enterDoes),
            .init([.escape], .clearFilter, "Close (or clear the filter)"),
        ])
        self.onChoice = onChoice
        self.digitsChoose = digitsChoose
        list.selected = selected
    }

    func render(into canvas: any Canvas, area: Rect) {
        let box = area.centered(width: min(area.width - 4, 60), height: min(area.height - 4, max(8, items.count + 5)))
        guard box.width >= 10, box.height >= 5 else { return }
        canvas.fill(box, style: canvas.theme.panel)
        canvas.drawBox(box, style: canvas.theme.border, title: title, titleStyle: canvas.theme.title)
        let inner = box.inset(top: 1, left: 1, bottom: 1, right: 1)
        let (listArea, hintArea) = inner.splitBottom(1)
        ListView(columns: columns, rows: rows, emptyHint: emptyHint).render(into: canvas, area: listArea, state: &list)
        canvas.put(hint, in: hintArea, alignment: .left, style: canvas.theme.muted)
    }

    func handle(_ key: Key, context: LayerContext) -> EventResult {
        switch key {
        case .f(1), .ctrl("l"), .resize: return .ignored
        case .char(let c) where digitsChoose && !list.isEditingFilter && c.wholeNumberValue.map({ (1...9).contains($0) && $0 <= items.count }) == true:
            context.dismiss()
            onChoice(items[(c.wholeNumberValue ?? 1) - 1])
            return .consumed
        default: break
        }
        let wasFiltering = list.isFiltering
        switch list.handle(key, rows: rows) {
        case .activated(let row):
            context.dismiss()
            onChoice(items.indices.contains(row) ? items[row] : nil)
        case .ignored where key == .escape && !wasFiltering, .ignored where key == .char("q") && !list.isEditingFilter:
            context.dismiss()
            onChoice(nil)
        default:
            break
        }
        context.setNeedsRedraw()
        return .consumed
    }

    func claimsTyping() -> Bool { list.isEditingFilter }

    func commands() -> [Command] { bindings.commands + MainScreen.listBindings(group: title).commands }
}
