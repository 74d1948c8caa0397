import Foundation

/// Copying to the system clipboard with OSC 52, the escape sequence terminals (xterm, kitty,
/// iTerm2, WezTerm, foot, Windows Terminal) and tmux understand, so it works over ssh too.
extension Terminal {
    /// Puts `text` on the clipboard of the terminal the app runs in.
    ///
    /// Inside tmux (`$TMUX` set), the plain sequence is for tmux itself: with `set-clipboard on`
    /// it becomes tmux's newest paste buffer and goes on to the outer terminal. A second copy
    /// wrapped in tmux's DCS passthrough reaches the outer terminal where tmux leaves app
    /// sequences alone (`set-clipboard external`, its default) but `allow-passthrough` is on.
    public func copyToClipboard(_ text: String) {
        writeBytes(Self.clipboardSequence(text, insideTmux: ProcessInfo.processInfo.environment["TMUX"].map { !$0.isEmpty } ?? false))
    }

    /// The bytes `copyToClipboard` writes: `ESC ] 52 ; c ; <base64> BEL`, and inside tmux the
    /// same again as `ESC P tmux; <it, each ESC doubled> ESC \`.
    public static func clipboardSequence(_ text: String, insideTmux: Bool) -> [UInt8] {
        let osc = Array("\u{1B}]52;c;\(Data(text.utf8).base64EncodedString())\u{07}".utf8)
        guard insideTmux else { return osc }
        var wrapped = Array("\u{1B}Ptmux;".utf8)
        for byte in osc {
            if byte == 0x1B { wrapped.append(0x1B) }
            wrapped.append(byte)
        }
        wrapped += Array("\u{1B}\\".utf8)
        return osc + wrapped
    }
}
