/// Turns terminal input into ``Key``s: raw bytes (escape sequences, UTF-8) and what curses'
/// `wget_wch` returns.
///
/// The live path lets ncurses decode the sequences its terminfo knows (`keypad`) and passes key
/// codes to ``key(cursesKeyCode:)``; the characters it returns go through ``feed(scalar:)``,
/// which still understands escape sequences, because curses hands back, byte by byte, the ones
/// terminfo does not list (modified arrows such as `\e[1;5C`, SGR mouse reports, Alt-letters).
///
/// An ESC at the end of the input so far may start a sequence or be the Esc key; it is held
/// until more bytes arrive or ``flush()`` says the input went quiet.
public struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []

    public init() {}

    /// Whether bytes are held waiting for the rest of a sequence.
    public var hasPending: Bool { !pending.isEmpty }

    /// Decodes `bytes`, holding back an incomplete sequence at the end.
    public mutating func feed<S: Sequence>(_ bytes: S) -> [Key] where S.Element == UInt8 {
        pending.append(contentsOf: bytes)
        return drain(atEnd: false)
    }

    /// Decodes one character returned by `wget_wch`.
    public mutating func feed(scalar: Unicode.Scalar) -> [Key] {
        feed(Array(String(scalar).utf8))
    }

    /// Decodes what is held as if no more input will follow: a lone ESC becomes `.escape`.
    public mutating func flush() -> [Key] { drain(atEnd: true) }

    /// Decodes a complete chunk of input, such as one `read(2)`.
    public static func decode<S: Sequence>(_ bytes: S) -> [Key] where S.Element == UInt8 {
        var decoder = KeyDecoder()
        return decoder.feed(bytes) + decoder.flush()
    }

    /// Decodes a complete chunk of input given as a string (escape sequences written as `\u{1B}`).
    public static func decode(_ text: String) -> [Key] { decode(Array(text.utf8)) }

    private mutating func drain(atEnd: Bool) -> [Key] {
        var keys: [Key] = []
        var start = 0
        while start < pending.count {
            switch Self.decodeOne(pending[start...], atEnd: atEnd) {
            case .needMore:
                pending.removeFirst(start)
                return keys
            case .key(let key, let length):
                if let key { keys.append(key) }
                start += length
            }
        }
        pending.removeAll(keepingCapacity: true)
        return keys
    }

    private enum Step {
        /// A key (or nothing, for a sequence we recognise and ignore) taking `length` bytes.
        case key(Key?, length: Int)
        case needMore
    }

    private static let esc: UInt8 = 0x1B

    private static func decodeOne(_ b: ArraySlice<UInt8>, atEnd: Bool) -> Step {
        let i = b.startIndex
        let first = b[i]
        if first == esc { return decodeEscape(b, atEnd: atEnd) }
        if first < 0x20 || first == 0x7F { return .key(controlKey(first), length: 1) }
        if first < 0x80 { return .key(.char(Character(Unicode.Scalar(first))), length: 1) }
        return decodeUTF8(b, atEnd: atEnd)
    }

    private static func controlKey(_ byte: UInt8) -> Key? {
        switch byte {
        case 0x0D, 0x0A: return .enter
        case 0x09: return .tab
        case 0x7F, 0x08: return .backspace
        case 0x1B: return .escape
        case 0x00: return .ctrl(" ")
        case 0x01...0x1A: return .ctrl(Character(Unicode.Scalar(byte + 0x60)))
        default: return nil  // Ctrl-\ ] ^ _: nothing the app binds
        }
    }

    private static func decodeUTF8(_ b: ArraySlice<UInt8>, atEnd: Bool) -> Step {
        let i = b.startIndex
        let lead = b[i]
        let length: Int
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return .key(nil, length: 1)  // a stray continuation byte or invalid lead
        }
        var available = 1
        while available < length, i + available < b.endIndex, b[i + available] & 0xC0 == 0x80 { available += 1 }
        if available < length {
            // Incomplete: wait if the input may still bring the rest, else drop what we have.
            if i + available == b.endIndex, !atEnd { return .needMore }
            return .key(nil, length: available)
        }
        var decoder = UTF8()
        var iterator = b[i..<(i + length)].makeIterator()
        if case .scalarValue(let scalar) = decoder.decode(&iterator) {
            return .key(.char(Character(scalar)), length: length)
        }
        return .key(nil, length: length)
    }

    private static func decodeEscape(_ b: ArraySlice<UInt8>, atEnd: Bool) -> Step {
        let i = b.startIndex
        guard b.count >= 2 else { return atEnd ? .key(.escape, length: 1) : .needMore }
        let second = b[i + 1]
        switch second {
        case UInt8(ascii: "["):
            return decodeCSI(b, atEnd: atEnd)
        case UInt8(ascii: "O"):
            guard b.count >= 3 else { return atEnd ? .key(.alt("O"), length: 2) : .needMore }
            let key: Key?
            switch b[i + 2] {
            case UInt8(ascii: "A"): key = .up
            case UInt8(ascii: "B"): key = .down
            case UInt8(ascii: "C"): key = .right
            case UInt8(ascii: "D"): key = .left
            case UInt8(ascii: "H"): key = .home
            case UInt8(ascii: "F"): key = .end
            case UInt8(ascii: "M"): key = .enter
            case UInt8(ascii: "P"): key = .f(1)
            case UInt8(ascii: "Q"): key = .f(2)
            case UInt8(ascii: "R"): key = .f(3)
            case UInt8(ascii: "S"): key = .f(4)
            default: key = nil
            }
            return .key(key, length: 3)
        case esc:
            return .key(.escape, length: 1)
        case 0x20..<0x7F:
            return .key(.alt(Character(Unicode.Scalar(second))), length: 2)
        case 0x80...:
            switch decodeUTF8(b[(i + 1)...], atEnd: atEnd) {
            case .needMore: return .needMore
            case .key(.char(let c), let length): return .key(.alt(c), length: 1 + length)
            case .key(_, let length): return .key(nil, length: 1 + length)
            }
        default:
            // ESC then a control key (Alt-Backspace, Alt-Enter): report both keys on their own.
            return .key(.escape, length: 1)
        }
    }

    /// `ESC [` parameters (0x30–0x3F) … intermediates (0x20–0x2F) … one final byte (0x40–0x7E).
    private static func decodeCSI(_ b: ArraySlice<UInt8>, atEnd: Bool) -> Step {
        let i = b.startIndex
        var j = i + 2
        // X10 mouse report: ESC [ M Cb Cx Cy, each offset by 32.
        if j < b.endIndex, b[j] == UInt8(ascii: "M") {
            guard b.endIndex - j >= 4 else { return atEnd ? .key(nil, length: b.count) : .needMore }
            let button = Int(b[j + 1]) - 32, x = Int(b[j + 2]) - 33, y = Int(b[j + 3]) - 33
            let key: Key? = button & 3 == 0 && button & 32 == 0 ? .mouse(x: x, y: y) : nil
            return .key(key, length: 6)
        }
        while j < b.endIndex, (0x20...0x3F).contains(b[j]) { j += 1 }
        guard j < b.endIndex else { return atEnd ? .key(nil, length: b.count) : .needMore }
        let final = b[j]
        let length = j - i + 1
        guard (0x40...0x7E).contains(final) else {
            // Not a CSI after all: report ESC-[ as Alt-[ and decode the rest on its own.
            return .key(.alt("["), length: 2)
        }
        let paramBytes = b[(i + 2)..<j]
        let isPrivate = paramBytes.first == UInt8(ascii: "<")
        let params = String(decoding: paramBytes.filter { $0 != UInt8(ascii: "<") }, as: UTF8.self)
            .split(separator: ";", omittingEmptySubsequences: false)
            .map { Int($0) ?? 0 }
        let p1 = params.first ?? 0

        switch final {
        case UInt8(ascii: "A"): return .key(.up, length: length)
        case UInt8(ascii: "B"): return .key(.down, length: length)
        case UInt8(ascii: "C"): return .key(.right, length: length)
        case UInt8(ascii: "D"): return .key(.left, length: length)
        case UInt8(ascii: "H"): return .key(.home, length: length)
        case UInt8(ascii: "F"): return .key(.end, length: length)
        case UInt8(ascii: "Z"): return .key(.backTab, length: length)
        case UInt8(ascii: "P"): return .key(.f(1), length: length)
        case UInt8(ascii: "Q"): return .key(.f(2), length: length)
        case UInt8(ascii: "R"): return .key(.f(3), length: length)
        case UInt8(ascii: "S"): return .key(.f(4), length: length)
        case UInt8(ascii: "M") where isPrivate, UInt8(ascii: "m") where isPrivate:
            // SGR mouse: ESC [ < button ; x ; y M (press) or m (release), 1-based.
            guard final == UInt8(ascii: "M"), params.count >= 3 else { return .key(nil, length: length) }
            let button = params[0]
            let isLeftPress = button & 3 == 0 && button & (32 | 64) == 0
            return .key(isLeftPress ? .mouse(x: params[1] - 1, y: params[2] - 1) : nil, length: length)
        case UInt8(ascii: "~"):
            let key: Key?
            switch p1 {
            case 1, 7: key = .home
            case 2: key = .insert
            case 3: key = .delete
            case 4, 8: key = .end
            case 5: key = .pageUp
            case 6: key = .pageDown
            case 11...15: key = .f(p1 - 10)
            case 17...21: key = .f(p1 - 11)
            case 23, 24: key = .f(p1 - 12)
            default: key = nil  // bracketed-paste markers (200/201) and the like
            }
            return .key(key, length: length)
        default:
            return .key(nil, length: length)  // focus reports, kitty's CSI u, …
        }
    }
}

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
    }

    /// The key for an ncurses key code; `nil` for codes the app has no use for (and for
    /// `KEY_MOUSE`, whose event the caller must fetch with `getmouse`).
    ///
    /// `name` is curses' `keyname` for the code; it lets terminfo's extended keys with
    /// modifiers (`kRIT5` for Ctrl-Right, `kDC3`, …) count as their plain key.
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
        case (K.f0 + 1)...(K.f0 + 63): return .f(Int(code - K.f0))
        default: break
        }
        guard let name else { return nil }
        let prefixes: [(String, Key)] = [
            ("kUP", .up), ("kDN", .down), ("kLFT", .left), ("kRIT", .right), ("kHOM", .home),
            ("kEND", .end), ("kDC", .delete), ("kIC", .insert), ("kNXT", .pageDown), ("kPRV", .pageUp),
        ]
        for (prefix, key) in prefixes where name.hasPrefix(prefix) {
            if name.dropFirst(prefix.count).allSatisfy(\.isNumber) { return key }
        }
        return nil
    }
}
