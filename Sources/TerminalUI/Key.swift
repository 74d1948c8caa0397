/// A key press (or click, or resize) after decoding.
public enum Key: Hashable, Sendable {
    /// A printable character, including CJK and emoji.
    case char(Character)
    case up, down, left, right
    case home, end, pageUp, pageDown
    case insert
    /// A function key, `F1` is `.f(1)`.
    case f(Int)
    case enter, tab, backTab, backspace, delete, escape
    /// A control-letter, always lowercase: Ctrl-S is `.ctrl("s")`.
    ///
    /// Ctrl-I, Ctrl-M and Ctrl-H arrive as `.tab`, `.enter` and `.backspace`, since terminals
    /// send the same byte for both.
    case ctrl(Character)
    /// A character typed with Alt (or after a lone ESC, which terminals cannot tell apart).
    case alt(Character)
    /// A left click (the button going down, no modifiers) at a cell.
    case mouse(x: Int, y: Int)
    /// Any other mouse report: the wheel, a release, a drag, another button, a modified click.
    case pointer(MouseEvent)
    /// Ctrl-← or Alt-← (`ESC[1;5D`, `ESC[1;3D`): one word back.
    case wordLeft
    /// Ctrl-→ or Alt-→ (`ESC[1;5C`, `ESC[1;3C`): one word forward.
    case wordRight
    /// Ctrl-Home (`ESC[1;5H`): the start of the document.
    case documentStart
    /// Ctrl-End (`ESC[1;5F`): the end of the document.
    case documentEnd
    /// A bracketed paste (`ESC[200~ … ESC[201~`) as one key: the pasted text, its line breaks
    /// (CR LF, CR) all turned into "\n".
    case paste(String)
    /// The terminal changed size.
    case resize
    /// A move key with Shift held (`ESC[1;2A`, `ESC[1;6C`, curses' `KEY_SLEFT`, `kUP2`): the
    /// move, extending the selection. Only moves are wrapped: `.shifted(.up)`,
    /// `.shifted(.wordLeft)`, `.shifted(.documentEnd)`, `.shifted(.pageDown)`.
    indirect case shifted(Key)
    /// Alt-Backspace (`ESC DEL`): delete the word before the cursor, as readline does.
    case altBackspace

    /// How the key is written in help and hints, e.g. `Ctrl-S`, `PgUp`, `Shift-Tab`, `↑`.
    public var label: String {
        switch self {
        case .char(" "): return "Space"
        case .char(let c): return String(c)
        case .up: return "↑"
        case .down: return "↓"
        case .left: return "←"
        case .right: return "→"
        case .home: return "Home"
        case .end: return "End"
        case .pageUp: return "PgUp"
        case .pageDown: return "PgDn"
        case .insert: return "Insert"
        case .f(let n): return "F\(n)"
        case .enter: return "Enter"
        case .tab: return "Tab"
        case .backTab: return "Shift-Tab"
        case .backspace: return "Backspace"
        case .delete: return "Delete"
        case .escape: return "Esc"
        case .ctrl(let c): return "Ctrl-" + String(c).uppercased()
        case .alt(let c): return "Alt-" + String(c)
        case .mouse(let x, let y): return "Click(\(x),\(y))"
        case .pointer(let event): return "Mouse(\(event))"
        case .wordLeft: return "Ctrl-←"
        case .wordRight: return "Ctrl-→"
        case .documentStart: return "Ctrl-Home"
        case .documentEnd: return "Ctrl-End"
        case .paste: return "Paste"
        case .resize: return "Resize"
        case .shifted(let key): return "Shift-" + key.label
        case .altBackspace: return "Alt-Backspace"
        }
    }
}

extension Key: CustomStringConvertible {
    public var description: String { label }
}
