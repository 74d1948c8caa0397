/// A centered dialog: title in the frame, wrapped body text, an optional progress bar with
/// `NN%`, a hint line and a row of buttons.
///
/// ```
/// ╭─ Uploading desk.jpg ─────────────────────────╮
/// │                                              │
/// │  ███████████████████▋░░░░░░░░░░░░░░░░   48%  │
/// │  1.2 MB / 2.5 MB · 3.1 MB/s · 0:01 left      │
/// │                                              │
/// │  Esc cancel · b background                   │
/// ╰──────────────────────────────────────────────╯
/// ```
/// Which button is selected is the caller's ``ModalState``.
public struct Modal: Sendable {
    public var title: String
    public var body: [String]
    public var buttons: [String]
    /// 0…1; `nil` shows no bar.
    public var progress: Double?
    /// A line under the bar, e.g. "1.2 MB / 2.5 MB · 3.1 MB/s · 0:01 left".
    public var progressDetail: String?
    /// A dimmed line of key hints, e.g. "Esc cancel · b background".
    public var hint: String?
    /// The preferred inner width; the dialog grows for long titles and button rows and shrinks
    /// to fit the screen.
    public var width: Int
    /// The text right of the bar (at most 4 columns); by default `progress` as a whole
    /// percentage rounded down. Set it when the caller counts percent more exactly.
    public var progressLabel: String?
    /// Draws the body in the error style, for a dialog that reports a failure.
    public var bodyIsError: Bool

    public init(
        title: String, body: [String] = [], buttons: [String] = [], progress: Double? = nil, progressDetail: String? = nil,
        hint: String? = nil, width: Int = 44, progressLabel: String? = nil, bodyIsError: Bool = false
    ) {
        self.title = title
        self.body = body
        self.buttons = buttons
        self.progress = progress
        self.progressDetail = progressDetail
        self.hint = hint
        self.width = width
        self.progressLabel = progressLabel
        self.bodyIsError = bodyIsError
    }

    /// Each button's accelerator (the letter that chooses it, underlined), in button order.
    public var accelerators: [Accelerator?] { Self.accelerators(for: buttons) }

    /// A button's accelerator: the letter that chooses it (lowercased) and where it is in the
    /// label (a `Character` offset), so that letter is the one underlined.
    public struct Accelerator: Hashable, Sendable {
        public var letter: Character
        public var offset: Int
    }

    /// Gives each button a letter no other button of the dialog has, so a letter never
    /// underlines two buttons and chooses only one: the first letter of its label when that is
    /// free, else the first letter of another word ("Save as copy": `a`, `c`), else any letter
    /// of the label. Earlier buttons choose first. A button whose letters are all taken has no
    /// accelerator (Tab and Enter still reach it).
    public static func accelerators(for buttons: [String]) -> [Accelerator?] {
        var taken = Set<Character>()
        return buttons.map { label in
            let characters = Array(label)
            func letter(at offset: Int) -> Character? {
                guard characters[offset].isLetter, let lower = characters[offset].lowercased().first,
                      characters[offset].lowercased().count == 1, !taken.contains(lower) else { return nil }
                return lower
            }
            let wordStarts = characters.indices.filter { $0 == 0 || characters[$0 - 1] == " " }
            let order = wordStarts + characters.indices.filter { !wordStarts.contains($0) }
            for offset in order {
                if let lower = letter(at: offset) {
                    taken.insert(lower)
                    return Accelerator(letter: lower, offset: offset)
                }
            }
            return nil
        }
    }

    /// The button row's text width, each button drawn as "[ Label ]" with two spaces between.
    var buttonsWidth: Int {
        buttons.isEmpty ? 0 : buttons.map { TextWidth.of($0) + 4 }.reduce(0, +) + 2 * (buttons.count - 1)
    }

    /// The lines inside the frame, with the inner width they were wrapped for.
    private func layout(in area: Rect) -> (inner: Int, body: [String]) {
        let wanted = max(width, TextWidth.of(title) + 6, buttonsWidth + 4)
        let inner = max(0, min(wanted, area.width - 4))
        let text = inner - 4
        let bodyLines = body.flatMap { TextWidth.wrap($0, width: max(1, text)) }
        return (inner, bodyLines)
    }

    /// The dialog's frame, centered in `area`.
    public func frame(in area: Rect) -> Rect {
        let (inner, bodyLines) = layout(in: area)
        var height = 2 + 1 + bodyLines.count  // frame, top margin, body
        if progress != nil { height += (bodyLines.isEmpty ? 0 : 1) + 1 + (progressDetail == nil ? 0 : 1) }
        if hint != nil { height += 2 }
        if !buttons.isEmpty { height += 2 }
        height += 1  // bottom margin
        return area.centered(width: inner + 2, height: height)
    }

    /// Where each button is drawn, for click hit-testing.
    public func buttonFrames(in area: Rect) -> [Rect] {
        let box = frame(in: area)
        guard !buttons.isEmpty, box.height >= 4 else { return [] }
        let y = box.maxY - 3
        var x = box.x + (box.width - buttonsWidth) / 2
        return buttons.map { label in
            let frame = Rect(x: x, y: y, width: TextWidth.of(label) + 4, height: 1)
            x += frame.width + 2
            return frame
        }
    }

    /// Draws the dialog and returns its frame.
    @MainActor
    @discardableResult
    public func render(into canvas: any Canvas, area: Rect, state: ModalState = ModalState()) -> Rect {
        let area = area.intersection(canvas.bounds)
        let theme = canvas.theme
        let box = frame(in: area)
        guard box.width >= 2, box.height >= 2 else { return box }
        canvas.fill(box, style: theme.panel)
        canvas.drawBox(box, style: theme.border, title: title, titleStyle: theme.title)
        let content = box.inset(top: 2, left: 3, bottom: 1, right: 3)
        var y = content.y
        func line(_ text: String, _ style: Style) {
            if y < content.maxY { canvas.put(text, in: content.row(y - content.y), alignment: .left, style: style) }
            y += 1
        }
        let (_, bodyLines) = layout(in: area)
        for text in bodyLines { line(text, bodyIsError ? theme.error : theme.text) }
        if let progress {
            if !bodyLines.isEmpty { y += 1 }
            if y < content.maxY { drawProgress(canvas, fraction: progress, in: content.row(y - content.y)) }
            y += 1
            if let progressDetail { line(progressDetail, theme.muted) }
        }
        if let hint {
            y += 1
            line(hint, theme.muted)
        }
        let accelerators = self.accelerators
        for (index, frame) in buttonFrames(in: area).enumerated() where frame.y < box.maxY - 1 {
            let isSelected = index == state.selected
            let style = isSelected ? theme.buttonSelected : theme.button
            let label = Array(buttons[index])
            canvas.fill(frame, style: style)
            var x = canvas.put("[ ", at: frame.origin, style: style, clip: frame)
            // The letter that chooses the button is underlined, and only that one.
            let underlined = accelerators[index]?.offset ?? -1
            x = canvas.put(String(label.prefix(max(0, underlined))), at: Point(x: x, y: frame.y), style: style, clip: frame)
            if label.indices.contains(underlined) {
                x = canvas.put(String(label[underlined]), at: Point(x: x, y: frame.y), style: style.adding(.underline), clip: frame)
                x = canvas.put(String(label[(underlined + 1)...]), at: Point(x: x, y: frame.y), style: style, clip: frame)
            } else if underlined < 0 {
                x = canvas.put(String(label), at: Point(x: x, y: frame.y), style: style, clip: frame)
            }
            canvas.put(" ]", at: Point(x: x, y: frame.y), style: style, clip: frame)
        }
        return box
    }

    /// A bar of full blocks with an eighth-block edge, then the percentage.
    @MainActor
    private func drawProgress(_ canvas: any Canvas, fraction: Double, in row: Rect) {
        let fraction = fraction.isFinite ? min(max(fraction, 0), 1) : 0
        let percent = progressLabel ?? String(Int((fraction * 100).rounded(.down))) + "%"
        let label = String(repeating: " ", count: max(0, 4 - percent.count)) + percent
        let barWidth = max(0, row.width - 6)
        let eighths = Int((fraction * Double(barWidth * 8)).rounded(.down))
        let full = eighths / 8, part = eighths % 8
        let partials = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
        var filled = String(repeating: "█", count: full)
        if part > 0 { filled += partials[part] }
        let empty = String(repeating: "░", count: max(0, barWidth - full - (part > 0 ? 1 : 0)))
        var x = canvas.put(filled, at: row.origin, style: canvas.theme.progressFilled, clip: row)
        x = canvas.put(empty, at: Point(x: x, y: row.y), style: canvas.theme.progressEmpty, clip: row)
        canvas.put(label, in: Rect(x: row.maxX - 4, y: row.y, width: 4, height: 1), alignment: .right, style: canvas.theme.text.bold)
    }
}

/// What a key did to a dialog's buttons.
public enum ModalOutcome: Hashable, Sendable {
    case ignored
    /// The selected button changed.
    case moved
    /// A button was chosen (Enter, its accelerator letter, or a click).
    case chosen(Int)
    /// Esc.
    case cancelled

    public var eventResult: EventResult { self == .ignored ? .ignored : .consumed }
}

/// The selected button of a ``Modal``.
public struct ModalState: Hashable, Sendable {
    public var selected: Int

    public init(selected: Int = 0) { self.selected = selected }

    /// What the dialog keys do.
    public enum Action: Hashable, Sendable { case next, previous, choose, cancel }

    /// The dialog keys, for help; a button's accelerator letter (``Modal/accelerators``) also chooses it.
    public static let bindings = KeyBindings<Action>(group: "Dialog", [
        .init([.right, .tab], .next, "Next button"),
        .init([.left, .backTab], .previous, "Previous button"),
        .init([.enter], .choose, "Choose the selected button"),
        .init([.escape], .cancel, "Cancel"),
    ])

    /// Applies a dialog key for `buttons`; with no buttons only Esc does anything.
    public mutating func handle(_ key: Key, buttons: [String], bindings: KeyBindings<Action> = ModalState.bindings) -> ModalOutcome {
        if let action = bindings.action(for: key) {
            switch action {
            case .next where !buttons.isEmpty:
                selected = (selected + 1) % buttons.count
                return .moved
            case .previous where !buttons.isEmpty:
                selected = (selected + buttons.count - 1) % buttons.count
                return .moved
            case .choose where !buttons.isEmpty:
                return .chosen(min(max(0, selected), buttons.count - 1))
            case .cancel:
                return .cancelled
            default:
                return .ignored
            }
        }
        if case .char(let c) = key, let letter = c.lowercased().first,
           let index = Modal.accelerators(for: buttons).firstIndex(where: { $0?.letter == letter }) {
            selected = index
            return .chosen(index)
        }
        return .ignored
    }
}
