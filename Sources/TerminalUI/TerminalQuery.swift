/// What a terminal answered to one of the questions in ``TerminalQuery``.
///
/// Answers arrive on stdin among the keys; ``KeyDecoder`` takes them out (they never become
/// keys) and hands them over through ``KeyDecoder/takeReplies()``.
public enum TerminalReply: Equatable, Sendable {
    /// The kitty graphics protocol's answer to `a=q` (`ESC _ G i=31;OK ESC \`): the id asked
    /// with, and whether it says `OK` (anything else is an error such as `ENOTSUPPORTED`).
    case kittyGraphics(id: Int?, ok: Bool)
    /// Primary device attributes (`ESC [ ? 62 ; 4 ; 22 c`): the numbers after `?`. `4` is sixel.
    case deviceAttributes([Int])
    /// `XTVERSION` (`ESC P > | kitty(0.35.2) ESC \`): the terminal's name and version.
    case version(String)
    /// The answer to `ESC [ 16 t` (`ESC [ 6 ; height ; width t`): one cell in pixels.
    case cellSize(width: Int, height: Int)
}

/// The questions asked at start-up, as bytes to write to the terminal.
///
/// Primary device attributes go last: every terminal answers them, and in order, so their
/// answer says the others are in (or never coming). See ``GraphicsDetection``.
public enum TerminalQuery {
    /// The kitty graphics query: a one-pixel RGB image sent with `a=q` (query only, nothing is
    /// stored or drawn); a terminal with the protocol answers `OK` or an error.
    public static let kittyGraphics = "\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\"
    /// `XTVERSION`: the terminal's name and version.
    public static let version = "\u{1B}[>q"
    /// The size of a cell in pixels (xterm's window operation 16).
    public static let cellSize = "\u{1B}[16t"
    /// Primary device attributes.
    public static let deviceAttributes = "\u{1B}[c"

    /// Every question, in the order they are written.
    public static let all = [kittyGraphics, version, cellSize, deviceAttributes]

    /// `sequence` wrapped for tmux's passthrough (`ESC P tmux ; … ESC \`, every ESC inside
    /// doubled), so tmux hands it to the terminal outside instead of reading it itself. tmux
    /// does so only with `allow-passthrough on`.
    public static func tmuxPassthrough(_ sequence: String) -> String {
        "\u{1B}Ptmux;" + sequence.replacingOccurrences(of: "\u{1B}", with: "\u{1B}\u{1B}") + "\u{1B}\\"
    }
}

extension TerminalReply {
    /// The reply in the body of an APC string (`ESC _ body ST`), if it is kitty's.
    static func apc(_ body: ArraySlice<UInt8>) -> TerminalReply? {
        guard body.first == UInt8(ascii: "G") else { return nil }
        let text = String(decoding: body.dropFirst(), as: UTF8.self)
        let parts = text.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
        var id: Int?
        for control in parts[0].split(separator: ",") where control.hasPrefix("i=") {
            id = Int(control.dropFirst(2))
        }
        let message = parts.count > 1 ? parts[1] : ""
        return .kittyGraphics(id: id, ok: message == "OK")
    }

    /// The reply in the body of a DCS string (`ESC P body ST`), if it is XTVERSION's.
    static func dcs(_ body: ArraySlice<UInt8>) -> TerminalReply? {
        guard body.starts(with: [UInt8(ascii: ">"), UInt8(ascii: "|")]) else { return nil }
        return .version(String(decoding: body.dropFirst(2), as: UTF8.self))
    }

    /// The reply a CSI sequence with parameters `parameters` and final byte `final` is, if any.
    static func csi(parameters: ArraySlice<UInt8>, final: UInt8) -> TerminalReply? {
        let isQuestion = parameters.first == UInt8(ascii: "?")
        let numbers = String(decoding: parameters.drop { $0 == UInt8(ascii: "?") }, as: UTF8.self)
            .split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
        switch final {
        case UInt8(ascii: "c") where isQuestion:
            return .deviceAttributes(numbers)
        case UInt8(ascii: "t") where !isQuestion && numbers.count >= 3 && numbers[0] == 6:
            return .cellSize(width: numbers[2], height: numbers[1])
        default:
            return nil
        }
    }
}
