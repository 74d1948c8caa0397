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
///
/// A bracketed paste (`ESC[200~`, the text, `ESC[201~`) becomes one ``Key/paste(_:)``. The
/// text usually arrives over many reads (and, through curses, one character at a time); it is
/// collected until the end marker comes, whatever ``flush()`` says in between, and is scanned
/// for the marker once, so a paste of megabytes costs time in proportion to its length.
///
/// The terminal's answers to ``TerminalQuery`` (kitty's `ESC _ G … ESC \`, `XTVERSION`'s
/// `ESC P > | … ESC \`, device attributes `ESC [ ? … c`, the cell size `ESC [ 6 ; h ; w t`)
/// come in among the keys; they are taken out into ``takeReplies()`` and never become keys.
/// While ``awaitingReplies`` is set, an answer cut in two by the reads is held until its end
/// comes, even across ``flush()``.
public struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []
    /// The bytes of the bracketed paste under way, or `nil` outside one.
    private var pasted: [UInt8]?
    /// How far `pasted` has been searched for the end marker.
    private var pasteScanned = 0
    /// Answers decoded so far and not yet taken.
    private var replies: [TerminalReply] = []

    /// Whether questions to the terminal are outstanding: an unfinished `ESC P`, `ESC _` or
    /// `ESC [` at the end of the input is then held (it is likely the start of an answer)
    /// instead of being read as Alt-P, Alt-_ or dropped.
    public var awaitingReplies = false

    public init() {}

    /// The terminal's answers decoded since the last call, oldest first.
    public mutating func takeReplies() -> [TerminalReply] {
        defer { replies.removeAll() }
        return replies
    }

    /// Whether bytes are held waiting for the rest of a sequence or of a paste.
    public var hasPending: Bool { !pending.isEmpty || pasted != nil }

    /// Drops a lone ESC held at the end of the input and says whether there was one: curses
    /// hands a key code after it (ESC then its KEY_BACKSPACE is Alt-Backspace).
    public mutating func takeLoneEscape() -> Bool {
        guard pasted == nil, pending == [Self.esc] else { return false }
        pending.removeAll(keepingCapacity: true)
        return true
    }

    /// Whether a bracketed paste has begun and its end marker has not arrived yet.
    public var isInPaste: Bool { pasted != nil }

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
            if pasted != nil {
                // Inside a paste even at the end of the input: the rest of it is still on its way.
                guard let paste = continuePaste(from: start) else { return keys }
                keys.append(paste)
                start = 0  // `pending` now holds what followed the end marker
                continue
            }
            switch Self.decodeOne(pending[start...], atEnd: atEnd, awaiting: awaitingReplies) {
            case .needMore:
                pending.removeFirst(start)
                return keys
            case .key(let key, let length):
                if let key { keys.append(key) }
                start += length
            case .reply(let reply, let length):
                if let reply { replies.append(reply) }
                start += length
            case .pasteStart(let length):
                start += length
                pasted = []
                pasteScanned = 0
            }
        }
        pending.removeAll(keepingCapacity: true)
        return keys
    }

    /// The bracketed-paste end marker, `ESC [ 2 0 1 ~`.
    private static let pasteEnd: [UInt8] = [0x1B, 0x5B, 0x32, 0x30, 0x31, 0x7E]

    /// Moves `pending[start...]` into the paste; returns the paste key once its end marker is
    /// in, leaving the bytes after the marker in `pending`.
    private mutating func continuePaste(from start: Int) -> Key? {
        pasted!.append(contentsOf: pending[start...])
        pending.removeAll(keepingCapacity: true)
        let bytes = pasted!
        // The marker may have begun in bytes already searched, so back up by its length less one.
        var i = max(0, pasteScanned - (Self.pasteEnd.count - 1))
        while let escape = bytes[i...].firstIndex(of: Self.esc) {
            if bytes.count - escape < Self.pasteEnd.count {
                // A partial marker at the end: search again from here when more arrives.
                pasteScanned = escape
                return nil
            }
            if bytes[escape..<(escape + Self.pasteEnd.count)].elementsEqual(Self.pasteEnd) {
                pending = Array(bytes[(escape + Self.pasteEnd.count)...])
                pasted = nil
                pasteScanned = 0
                return .paste(Self.pasteText(bytes[..<escape]))
            }
            i = escape + 1
        }
        pasteScanned = bytes.count
        return nil
    }

    /// Pasted bytes as text: invalid UTF-8 becomes U+FFFD, and CR LF and lone CRs become LF
    /// (terminals send a pasted line break as CR).
    static func pasteText(_ bytes: ArraySlice<UInt8>) -> String {
        guard bytes.contains(0x0D) else { return String(decoding: bytes, as: UTF8.self) }
        var normalised: [UInt8] = []
        normalised.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let byte = bytes[i]
            if byte == 0x0D {
                normalised.append(0x0A)
                if i + 1 < bytes.endIndex, bytes[i + 1] == 0x0A { i += 1 }
            } else {
                normalised.append(byte)
            }
            i += 1
        }
        return String(decoding: normalised, as: UTF8.self)
    }

    private enum Step {
        /// A key (or nothing, for a sequence we recognise and ignore) taking `length` bytes.
        case key(Key?, length: Int)
        /// `ESC[200~`, `length` bytes: what follows is pasted text.
        case pasteStart(length: Int)
        /// An answer from the terminal (or a string sequence we ignore), `length` bytes.
        case reply(TerminalReply?, length: Int)
        case needMore
    }

    private static let esc: UInt8 = 0x1B

    private static func decodeOne(_ b: ArraySlice<UInt8>, atEnd: Bool, awaiting: Bool) -> Step {
        let i = b.startIndex
        let first = b[i]
        if first == esc { return decodeEscape(b, atEnd: atEnd, awaiting: awaiting) }
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
        // Ctrl-\ ] ^ _ (0x1C–0x1F): the raw terminal sends them as keys, not signals.
        case 0x1C: return .ctrl("\\")
        case 0x1D: return .ctrl("]")
        case 0x1E: return .ctrl("^")
        case 0x1F: return .ctrl("_")
        default: return nil
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

    private static func decodeEscape(_ b: ArraySlice<UInt8>, atEnd: Bool, awaiting: Bool) -> Step {
        let i = b.startIndex
        // While answers are awaited a lone ESC may begin one; the Terminal flushes it when the
        // wait ends, so an Esc key pressed meanwhile is late, not lost.
        guard b.count >= 2 else { return atEnd && !awaiting ? .key(.escape, length: 1) : .needMore }
        let second = b[i + 1]
        switch second {
        case UInt8(ascii: "["):
            return decodeCSI(b, atEnd: atEnd, awaiting: awaiting)
        case UInt8(ascii: "_"), UInt8(ascii: "P"):
            switch TerminalReplyScanner.scanString(b, atEnd: atEnd, awaiting: awaiting) {
            case .reply(let reply, let length): return .reply(reply, length: length)
            case .needMore: return .needMore
            case .notAReply: return .key(.alt(Character(Unicode.Scalar(second))), length: 2)
            }
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
            case UInt8(ascii: "c"): key = .wordRight  // rxvt's Ctrl-→
            case UInt8(ascii: "d"): key = .wordLeft   // rxvt's Ctrl-←
            default: key = nil
            }
            return .key(key, length: 3)
        case esc:
            // rxvt's Alt-←/→ put an ESC before the arrow's own `ESC [ D`/`ESC [ C`.
            let bracket = UInt8(ascii: "["), right = UInt8(ascii: "C"), left = UInt8(ascii: "D")
            if b.count >= 4, b[i + 2] == bracket, b[i + 3] == right || b[i + 3] == left {
                return .key(b[i + 3] == right ? .wordRight : .wordLeft, length: 4)
            }
            if !atEnd, b.count < 4, b.count == 2 || b[i + 2] == bracket { return .needMore }
            return .key(.escape, length: 1)
        case 0x20..<0x7F:
            return .key(.alt(Character(Unicode.Scalar(second))), length: 2)
        case 0x80...:
            switch decodeUTF8(b[(i + 1)...], atEnd: atEnd) {
            case .needMore: return .needMore
            case .key(.char(let c), let length): return .key(.alt(c), length: 1 + length)
            case .key(_, let length): return .key(nil, length: 1 + length)
            case .pasteStart, .reply: return .key(nil, length: 1)  // decodeUTF8 makes neither
            }
        case 0x7F, 0x08:
            return .key(.altBackspace, length: 2)
        default:
            // ESC then another control key (Alt-Enter): report both keys on their own.
            return .key(.escape, length: 1)
        }
    }

    /// `ESC [` parameters (0x30–0x3F) … intermediates (0x20–0x2F) … one final byte (0x40–0x7E).
    private static func decodeCSI(_ b: ArraySlice<UInt8>, atEnd: Bool, awaiting: Bool) -> Step {
        let i = b.startIndex
        var j = i + 2
        // X10 mouse report: ESC [ M Cb Cx Cy, each offset by 32.
        if j < b.endIndex, b[j] == UInt8(ascii: "M") {
            guard b.endIndex - j >= 4 else { return atEnd ? .key(nil, length: b.count) : .needMore }
            // A cell past 223 does not fit in a byte; such reports (and wrapped ones) are dropped.
            let x = Int(b[j + 2]) - 33, y = Int(b[j + 3]) - 33
            let event = x >= 0 && y >= 0 ? MouseEvent.decode(code: Int(b[j + 1]) - 32, x: x, y: y, isRelease: false) : nil
            return .key(event.map(Self.mouseKey), length: 6)
        }
        while j < b.endIndex, (0x20...0x3F).contains(b[j]) { j += 1 }
        // An answer cut by the reads: hold it while answers are expected, or it would end as keys.
        guard j < b.endIndex else { return atEnd && !awaiting ? .key(nil, length: b.count) : .needMore }
        let final = b[j]
        let length = j - i + 1
        guard (0x40...0x7E).contains(final) else {
            // Not a CSI after all: report ESC-[ as Alt-[ and decode the rest on its own.
            return .key(.alt("["), length: 2)
        }
        let paramBytes = b[(i + 2)..<j]
        if let reply = TerminalReplyScanner.csiReply(parameters: paramBytes, final: final) {
            return .reply(reply, length: length)
        }
        let isPrivate = paramBytes.first == UInt8(ascii: "<")
        let params = String(decoding: paramBytes.filter { $0 != UInt8(ascii: "<") }, as: UTF8.self)
            .split(separator: ";", omittingEmptySubsequences: false)
            .map { Int($0) ?? 0 }
        let p1 = params.first ?? 0
        // xterm's modifier parameter is 1 + a bit set: Shift 1, Alt 2, Ctrl 4 (`ESC[1;5C` is Ctrl-→).
        let modifiers = params.count >= 2 ? max(0, params[1] - 1) : 0
        let isWordMove = modifiers & (2 | 4) != 0
        let isCtrl = modifiers & 4 != 0

        // Shift (bit 1) selects: the move is wrapped in `.shifted`.
        let isShift = modifiers & 1 != 0
        func move(_ key: Key) -> Step { .key(isShift ? .shifted(key) : key, length: length) }

        switch final {
        case UInt8(ascii: "A"): return move(.up)
        case UInt8(ascii: "B"): return move(.down)
        case UInt8(ascii: "C"): return move(isWordMove ? .wordRight : .right)
        case UInt8(ascii: "D"): return move(isWordMove ? .wordLeft : .left)
        case UInt8(ascii: "H"): return move(isCtrl ? .documentStart : .home)
        case UInt8(ascii: "F"): return move(isCtrl ? .documentEnd : .end)
        // rxvt's Shift-arrows: `ESC [ a` … `ESC [ d`.
        case UInt8(ascii: "a"): return .key(.shifted(.up), length: length)
        case UInt8(ascii: "b"): return .key(.shifted(.down), length: length)
        case UInt8(ascii: "c"): return .key(.shifted(.right), length: length)
        case UInt8(ascii: "d"): return .key(.shifted(.left), length: length)
        case UInt8(ascii: "Z"): return .key(.backTab, length: length)
        case UInt8(ascii: "P"): return .key(.f(1), length: length)
        case UInt8(ascii: "Q"): return .key(.f(2), length: length)
        case UInt8(ascii: "R"): return .key(.f(3), length: length)
        case UInt8(ascii: "S"): return .key(.f(4), length: length)
        case UInt8(ascii: "M") where isPrivate, UInt8(ascii: "m") where isPrivate:
            // SGR mouse: ESC [ < button ; x ; y M (press) or m (release), 1-based.
            return .key(sgrMouse(paramBytes.dropFirst(), isRelease: final == UInt8(ascii: "m")), length: length)
        case UInt8(ascii: "~"):
            let key: Key?
            switch p1 {
            case 1, 7: return move(isCtrl ? .documentStart : .home)
            case 2: key = .insert
            case 3: key = .delete
            case 4, 8: return move(isCtrl ? .documentEnd : .end)
            case 5: return move(.pageUp)
            case 6: return move(.pageDown)
            case 11...15: key = .f(p1 - 10)
            case 17...21: key = .f(p1 - 11)
            case 23, 24: key = .f(p1 - 12)
            case 200: return .pasteStart(length: length)
            default: key = nil  // a stray paste end (201) and the like
            }
            return .key(key, length: length)
        default:
            return .key(nil, length: length)  // focus reports, kitty's CSI u, …
        }
    }
}
