// Keys as curses decodes them from terminfo (`keypad`): key codes and the names of extended keys.

extension KeyDecoder {
    /// ncurses key codes (`KEY_CODE_YES` results of `wget_wch`), as defined in `<curses.h>`.
    ///
    /// The values are the X/Open ones ncurses has always used, so they are spelled out here and
    /// the decoder stays testable without a terminal.
    public enum CursesKeyCode {
        public static let down: Int32 = 0o402
        public static let up: Int32 = 0o403
        public static let left: Int32 = 0o404
        public static let right: Int32 = 0o405
        public static let home: Int32 = 0o406
        public static let backspace: Int32 = 0o407
        public static let f0: Int32 = 0o410
        public static let delete: Int32 = 0o512
        public static let insert: Int32 = 0o513
        public static let pageDown: Int32 = 0o522
        public static let pageUp: Int32 = 0o523
        public static let enter: Int32 = 0o527
        public static let backTab: Int32 = 0o541
        public static let end: Int32 = 0o550
        public static let mouse: Int32 = 0o631
        public static let resize: Int32 = 0o632
        /// Shifted keys terminfo names (`kri`, `kind`, `kLFT`, …): selection moves.
        public static let shiftDown: Int32 = 0o520
        public static let shiftUp: Int32 = 0o521
        public static let shiftEnd: Int32 = 0o602
        public static let shiftHome: Int32 = 0o607
        public static let shiftLeft: Int32 = 0o611
        public static let shiftPageDown: Int32 = 0o614
        public static let shiftPageUp: Int32 = 0o616
        public static let shiftRight: Int32 = 0o622
    }

    /// The key for an ncurses key code; `nil` for codes the app has no use for (and for
    /// `KEY_MOUSE`, whose event the caller must fetch with `getmouse`).
    ///
    /// `name` is curses' `keyname` for the code; it lets terminfo's extended keys with
    /// modifiers count: Ctrl- or Alt-arrows (`kRIT5`, `kLFT3`) are word moves, Ctrl-Home and
    /// Ctrl-End (`kHOM5`, `kEND5`) go to the document's ends, and any other (`kDC3`, `kUP2`)
    /// counts as its plain key.
    public static func key(cursesKeyCode code: Int32, name: String? = nil) -> Key? {
        typealias K = CursesKeyCode
        switch code {
        case K.down: return .down
        case K.up: return .up
        case K.left: return .left
        case K.right: return .right
        case K.home: return .home
        case K.end: return .end
        case K.backspace: return .backspace
        case K.delete: return .delete
        case K.insert: return .insert
        case K.pageDown: return .pageDown
        case K.pageUp: return .pageUp
        case K.enter: return .enter
        case K.backTab: return .backTab
        case K.resize: return .resize
        case K.shiftDown: return .shifted(.down)
        case K.shiftUp: return .shifted(.up)
        case K.shiftEnd: return .shifted(.end)
        case K.shiftHome: return .shifted(.home)
        case K.shiftLeft: return .shifted(.left)
        case K.shiftPageDown: return .shifted(.pageDown)
        case K.shiftPageUp: return .shifted(.pageUp)
        case K.shiftRight: return .shifted(.right)
        case (K.f0 + 1)...(K.f0 + 63): return .f(Int(code - K.f0))
        default: break
        }
        guard let name else { return nil }
        let prefixes: [(String, Key)] = [
            ("kUP", .up), ("kDN", .down), ("kLFT", .left), ("kRIT", .right), ("kHOM", .home),
            ("kEND", .end), ("kDC", .delete), ("kIC", .insert), ("kNXT", .pageDown), ("kPRV", .pageUp),
        ]
        for (prefix, key) in prefixes where name.hasPrefix(prefix) {
            let suffix = name.dropFirst(prefix.count)
            guard suffix.allSatisfy(\.isNumber) else { continue }
            // The digit is xterm's modifier parameter: 3 Alt, 5 Ctrl, 7 Ctrl-Alt (2, 4, 6 add Shift).
            let modifiers = max(0, (Int(suffix) ?? 1) - 1)
            let moved: Key
            switch key {
            case .left where modifiers & (2 | 4) != 0: moved = .wordLeft
            case .right where modifiers & (2 | 4) != 0: moved = .wordRight
            case .home where modifiers & 4 != 0: moved = .documentStart
            case .end where modifiers & 4 != 0: moved = .documentEnd
            default: moved = key
            }
            let isMove = moved != .delete && moved != .insert
            return modifiers & 1 != 0 && isMove ? .shifted(moved) : moved
        }
        return nil
    }
}
