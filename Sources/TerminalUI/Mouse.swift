/// A mouse report other than a plain left click (which is ``Key/mouse(x:y:)``): the wheel,
/// releases, drags, the other buttons and clicks with modifiers.
///
/// Cells count from 0 at the top left, as everywhere in TerminalUI; the terminal's reports
/// count from 1 and ``KeyDecoder`` converts them.
public struct MouseEvent: Hashable, Sendable, CustomStringConvertible {
    /// Which button a press, release or drag is about.
    public enum Button: Hashable, Sendable {
        case left, middle, right
        /// Buttons 8 to 11 (back, forward and the like); the number is xterm's.
        case other(Int)
    }

    /// What happened.
    public enum Action: Hashable, Sendable {
        case press(Button)
        /// A button went up; SGR says which, X10 does not (then `nil`).
        case release(Button?)
        /// The pointer moved with a button held (reported under mode 1002 only).
        case drag(Button)
        /// One notch of the wheel: up and down, or left and right on a tilting wheel.
        case wheelUp, wheelDown, wheelLeft, wheelRight
    }

    /// The modifier keys held, as the report's bits say.
    public struct Modifiers: OptionSet, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let shift = Modifiers(rawValue: 1)
        public static let alt = Modifiers(rawValue: 2)
        public static let ctrl = Modifiers(rawValue: 4)
    }

    public var action: Action
    public var x: Int
    public var y: Int
    public var modifiers: Modifiers

    public init(_ action: Action, x: Int, y: Int, modifiers: Modifiers = []) {
        self.action = action
        self.x = x
        self.y = y
        self.modifiers = modifiers
    }

    public var point: Point { Point(x: x, y: y) }

    /// Rows the wheel moves a list or a text for one notch; what most terminal apps use.
    public static let wheelRows = 3

    public var description: String { "\(action)@\(x),\(y)\(modifiers.isEmpty ? "" : "+\(modifiers.rawValue)")" }

    /// The event for xterm's button code (the `Cb` of both encodings, without X10's offset of
    /// 32) at a 0-based cell; `nil` for codes no terminal sends.
    ///
    /// The low two bits are the button (3 is "released" in X10), 4, 8 and 16 are Shift, Alt
    /// (Meta) and Ctrl, 32 is motion, 64 the wheel and 128 the extra buttons.
    static func decode(code: Int, x: Int, y: Int, isRelease: Bool) -> MouseEvent? {
        guard (0...255).contains(code) else { return nil }
        var modifiers: Modifiers = []
        if code & 4 != 0 { modifiers.insert(.shift) }
        if code & 8 != 0 { modifiers.insert(.alt) }
        if code & 16 != 0 { modifiers.insert(.ctrl) }
        let low = code & 3
        let isMotion = code & 32 != 0
        let action: Action
        switch code & (64 | 128) {
        case 0:
            let buttons: [Button?] = [.left, .middle, .right, nil]
            if isRelease || buttons[low] == nil {
                // Motion with no button held comes only under mode 1003, which is never asked for.
                guard !isMotion || buttons[low] != nil else { return nil }
                action = .release(buttons[low])
            } else if let button = buttons[low] {
                action = isMotion ? .drag(button) : .press(button)
            } else {
                return nil
            }
        case 64:
            // The wheel has no release; a terminal that reports one is ignored.
            guard !isRelease, !isMotion else { return nil }
            action = [Action.wheelUp, .wheelDown, .wheelLeft, .wheelRight][low]
        default:
            let button = Button.other(8 + low + (code & 64 != 0 ? 4 : 0))
            action = isRelease ? .release(button) : (isMotion ? .drag(button) : .press(button))
        }
        return MouseEvent(action, x: x, y: y, modifiers: modifiers)
    }
}

extension Key {
    /// Where a mouse key happened, or `nil` for other keys.
    public var mousePoint: Point? {
        switch self {
        case .mouse(let x, let y): return Point(x: x, y: y)
        case .pointer(let event): return event.point
        default: return nil
        }
    }

    /// Whether this is a mouse report of any kind.
    public var isMouse: Bool { mousePoint != nil }

    /// Rows the wheel asks to scroll: negative up, positive down; `nil` for anything but the
    /// vertical wheel.
    public var wheelRows: Int? {
        guard case .pointer(let event) = self else { return nil }
        switch event.action {
        case .wheelUp: return -MouseEvent.wheelRows
        case .wheelDown: return MouseEvent.wheelRows
        default: return nil
        }
    }

    /// Columns the wheel asks to pan sideways (a tilting wheel, or Shift with the wheel, which
    /// many terminals send for horizontal scrolling): negative left, positive right.
    public var wheelColumns: Int? {
        guard case .pointer(let event) = self else { return nil }
        switch event.action {
        case .wheelLeft: return -MouseEvent.wheelRows
        case .wheelRight: return MouseEvent.wheelRows
        case .wheelUp where event.modifiers.contains(.shift): return -MouseEvent.wheelRows
        case .wheelDown where event.modifiers.contains(.shift): return MouseEvent.wheelRows
        default: return nil
        }
    }
}
