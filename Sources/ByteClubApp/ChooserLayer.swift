import Foundation
import TerminalUI

/// A list to choose one row from, in a box above everything else: Enter hands the row's item
/// back, Esc (or `q`) closes with nil, `/` filters. "Insert a photo" (``PhotoChooserLayer``) and
/// the new note's templates (``TemplateChooserLayer``) are this with their own rows and words.
@MainActor
class ChooserLayer<Item>: Layer {
    /// What the box says: its title, columns, hint line, and the keys help lists.
    struct Look {
        var title: String
        var columns: [ListColumn]
        var emptyHint: String
        var hint: String
        var width: Int
        var bindings: KeyBindings<ListState.Action>
    }

    private let look: Look
    private let items: [Item]
    private let rows: [ListRow]
    private var list = ListState()
    private let onChoice: @MainActor (Item?) -> Void

    init(_ look: Look, items: [Item], rows: [ListRow], onChoice: @escaping @MainActor (Item?) -> Void) {
        self.look = look
        self.items = items
        self.rows = rows
        self.onChoice = onChoice
    }

    func render(into canvas: any Canvas, area: Rect) {
        let box = area.centered(width: min(area.width - 4, look.width), height: min(area.height - 4, max(8, items.count + 5)))
        guard box.width >= 10, box.height >= 5 else { return }
        canvas.fill(box, style: canvas.theme.panel)
        canvas.drawBox(box, style: canvas.theme.border, title: look.title, titleStyle: canvas.theme.title)
        let inner = box.inset(top: 1, left: 1, bottom: 1, right: 1)
        let (listArea, hint) = inner.splitBottom(1)
        ListView(columns: look.columns, rows: rows, emptyHint: look.emptyHint).render(into: canvas, area: listArea, state: &list)
        canvas.put(look.hint, in: hint, alignment: .left, style: canvas.theme.muted)
    }

    func handle(_ key: Key, context: LayerContext) -> EventResult {
        switch key {
        case .f(1), .ctrl("l"), .resize: return .ignored
        default: break
        }
        let wasFiltering = list.isFiltering
        switch list.handle(key, rows: rows) {
        case .activated(let row):
            context.dismiss()
            onChoice(items.indices.contains(row) ? items[row] : nil)
        case .ignored where key == .escape && !wasFiltering, .ignored where key == .char("q"):
            context.dismiss()
            onChoice(nil)
        default:
            break
        }
        context.setNeedsRedraw()
        return .consumed
    }

    func claimsTyping() -> Bool { list.isEditingFilter }

    func commands() -> [Command] { look.bindings.commands + MainScreen.listBindings(group: look.bindings.group).commands }
}
