/// A dialog that asks for one line of text (a new name, a path), as a layer.
///
/// ```
/// ╭─ Rename note ────────────────────────────────╮
/// │                                              │
/// │  New name for “club-rules.md”:               │
/// │  club-rules-2026.md▏                         │
/// │                                              │
/// │  Enter rename · Esc cancel                   │
/// ╰──────────────────────────────────────────────╯
/// ```
/// It takes every key while open and reports the text (or `nil` for Esc) once, after removing
/// itself. `validate` may refuse a value by returning a message, which is shown in the error style.
@MainActor
public final class PromptLayer: Layer {
    public var title: String
    public var body: [String]
    public var input: TextInputState
    public var placeholder: String
    public var hint: String
    /// An error from `validate`, shown until the next edit.
    public private(set) var error: String?
    private let validate: @MainActor (String) -> String?
    private let onResult: @MainActor (String?) -> Void

    public init(
        title: String, body: [String] = [], text: String = "", placeholder: String = "",
        hint: String = "Enter OK · Esc cancel",
        validate: @escaping @MainActor (String) -> String? = { _ in nil },
        onResult: @escaping @MainActor (String?) -> Void
    ) {
        self.title = title
        self.body = body
        self.input = TextInputState(text: text)
        self.placeholder = placeholder
        self.hint = hint
        self.validate = validate
        self.onResult = onResult
    }

    public func render(into canvas: any Canvas, area: Rect) {
        let area = area.intersection(canvas.bounds)
        let theme = canvas.theme
        let width = min(area.width - 4, max(50, TextWidth.of(title) + 8))
        let bodyLines = body.flatMap { TextWidth.wrap($0, width: max(1, width - 6)) }
        let height = 2 + 1 + bodyLines.count + 1 + 1 + (error == nil ? 0 : 1) + 1 + 1
        let box = area.centered(width: width, height: height)
        guard box.width >= 8, box.height >= 3 else { return }
        canvas.fill(box, style: theme.panel)
        canvas.drawBox(box, style: theme.border, title: title, titleStyle: theme.title)
        let content = box.inset(top: 2, left: 3, bottom: 1, right: 3)
        var y = content.y
        for line in bodyLines where y < content.maxY {
            canvas.put(line, in: content.row(y - content.y), alignment: .left, style: theme.text)
            y += 1
        }
        if y < content.maxY {
            TextInput(placeholder: placeholder).render(into: canvas, area: content.row(y - content.y), state: &input)
        }
        y += 1
        if let error, y < content.maxY {
            canvas.put(error, in: content.row(y - content.y), alignment: .left, style: theme.error)
            y += 1
        }
        y += 1
        if y < content.maxY { canvas.put(hint, in: content.row(y - content.y), alignment: .left, style: theme.muted) }
    }

    public func handle(_ key: Key, context: LayerContext) -> EventResult {
        switch input.handle(key) {
        case .submitted:
            if let message = validate(input.text) {
                error = message
                return .consumed
            }
            context.dismiss()
            onResult(input.text)
        case .cancelled:
            context.dismiss()
            onResult(nil)
        case .edited:
            error = nil
        case .moved:
            break
        case .ignored:
            if case .ctrl = key { return .ignored }
            if case .f = key { return .ignored }
        }
        return .consumed
    }

    public func commands() -> [Command] { TextInputState.bindings.commands }
}
