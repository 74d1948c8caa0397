/// Finds the terminal's answers to ``TerminalQuery`` in its input, where they arrive among the
/// keys: kitty's `ESC _ G … ESC \`, `XTVERSION`'s `ESC P > | … ESC \` (either may end with BEL
/// instead), and the CSI answers (`ESC [ ? … c`, `ESC [ 6 ; h ; w t`).
///
/// ``KeyDecoder`` asks it about every `ESC _`, `ESC P` and complete CSI sequence, and turns
/// whatever is not an answer into keys. Only the shapes of the answers asked for count, and
/// their bodies are printable ASCII, so keys typed after an Alt-P are not swallowed for long.
public enum TerminalReplyScanner {
    /// What the bytes at the start of the input are.
    public enum Scan: Equatable, Sendable {
        /// An answer taking `length` bytes; `nil` for a string of an answer's shape that says
        /// nothing we read (it is dropped all the same: it is no key).
        case reply(TerminalReply?, length: Int)
        /// The start of what may be an answer: wait for more input.
        case needMore
        /// Not an answer: the bytes are keys.
        case notAReply
    }

    /// The longest answer string held while waiting for its end; past it, the bytes are keys.
    public static let maxStringLength = 4096

    private static let esc: UInt8 = 0x1B

    /// Scans an APC (`ESC _`) or DCS (`ESC P`) string at the start of `bytes`, up to its
    /// terminator (`ESC \` or BEL).
    ///
    /// - Parameters:
    ///   - atEnd: no more input follows for now (the input went quiet).
    ///   - awaiting: questions are outstanding, so an unfinished answer is held even at the end.
    public static func scanString(_ bytes: ArraySlice<UInt8>, atEnd: Bool, awaiting: Bool) -> Scan {
        let i = bytes.startIndex
        guard bytes.count >= 2, bytes[i] == esc,
              bytes[i + 1] == UInt8(ascii: "_") || bytes[i + 1] == UInt8(ascii: "P") else { return .notAReply }
        let isAPC = bytes[i + 1] == UInt8(ascii: "_")
        let introducer: [UInt8] = isAPC ? [UInt8(ascii: "G")] : [UInt8(ascii: ">"), UInt8(ascii: "|")]
        let start = i + 2
        let known = bytes[start...].prefix(introducer.count)
        guard known.elementsEqual(introducer.prefix(known.count)) else { return .notAReply }
        if known.count < introducer.count {
            // Too short to tell: wait for more, unless the input went quiet and nothing was asked.
            return atEnd && !awaiting ? .notAReply : .needMore
        }
        var j = start
        while j < bytes.endIndex, j - i < maxStringLength {
            let byte = bytes[j]
            if byte == 0x07 {
                return .reply(reply(isAPC: isAPC, body: bytes[start..<j]), length: j - i + 1)
            }
            if byte == esc {
                guard j + 1 < bytes.endIndex else { return atEnd && !awaiting ? .notAReply : .needMore }
                guard bytes[j + 1] == UInt8(ascii: "\\") else { return .notAReply }
                return .reply(reply(isAPC: isAPC, body: bytes[start..<j]), length: j - i + 2)
            }
            guard (0x20...0x7E).contains(byte) else { return .notAReply }
            j += 1
        }
        // Quiet input with nothing asked: keys that looked like the start of an answer (Alt-_ G…).
        return j - i >= maxStringLength || (atEnd && !awaiting) ? .notAReply : .needMore
    }

    /// The answer a complete CSI sequence is, given its parameter bytes and final byte; `nil`
    /// when it is not one (then it is a key, or nothing).
    public static func csiReply(parameters: ArraySlice<UInt8>, final: UInt8) -> TerminalReply? {
        TerminalReply.csi(parameters: parameters, final: final)
    }

    private static func reply(isAPC: Bool, body: ArraySlice<UInt8>) -> TerminalReply? {
        isAPC ? TerminalReply.apc(body) : TerminalReply.dcs(body)
    }
}
