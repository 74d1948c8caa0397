/// A ``Modal`` with buttons as a layer: it takes every key while open, and reports the
/// chosen button (or `nil` for Esc) once, after removing itself.
///
/// ```swift
/// compositor.push(DialogLayer(Modal(title: "Unsaved changes", body: ["Save \"x.txt\"?"],
///                                   buttons: ["Save", "Discard", "Cancel"])) { choice in … })
/// ```
@MainActor
public final class DialogLayer: Layer {
    public var modal: Modal
    public var state: ModalState
    private let onChoice: @MainActor (Int?) -> Void

    public init(_ modal: Modal, selected: Int = 0, onChoice: @escaping @MainActor (Int?) -> Void) {
        self.modal = modal
        self.state = ModalState(selected: selected)
        self.onChoice = onChoice
    }

    private var lastArea = Rect.zero

    public func render(into canvas: any Canvas, area: Rect) {
        lastArea = area
        modal.render(into: canvas, area: area, state: state)
    }

    public func handle(_ key: Key, context: LayerContext) -> EventResult {
        var outcome = state.handle(key, buttons: modal.buttons)
        if case .mouse(let x, let y) = key,
           let index = modal.buttonFrames(in: lastArea).firstIndex(where: { $0.contains(Point(x: x, y: y)) }) {
            state.selected = index
            outcome = .chosen(index)
        }
        switch outcome {
        case .chosen(let index):
            context.dismiss()
            onChoice(index)
        case .cancelled:
            context.dismiss()
            onChoice(nil)
        case .moved:
            break
        case .ignored:
            // Control and function keys (Ctrl-C, Ctrl-L, F1) still reach the global bindings;
            // anything else stops here so the screen under the dialog does not act on it.
            switch key {
            case .ctrl, .f: return .ignored
            default: break
            }
        }
        return .consumed
    }

    /// Only control and function keys get past a dialog (see ``handle(_:context:)``).
    public func letsThrough(_ key: Key?) -> Bool {
        switch key {
        case .ctrl?, .f?: return true
        default: return false
        }
    }

    public func commands() -> [Command] {
        var commands = ModalState.bindings.commands
        if !modal.buttons.isEmpty {
            let letters = modal.accelerators.compactMap { $0.map { String($0.letter) } }
            commands.append(Command(
                keys: letters.map { .char(Character($0)) },
                description: "Choose " + modal.buttons.joined(separator: " / "),
                group: "Dialog",
                keyLabel: letters.joined(separator: " / ")
            ))
        }
        return commands
    }
}
