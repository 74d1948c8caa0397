/// OSC 8 hyperlinks over text curses has drawn.
///
/// curses keeps no hyperlinks in its cells, so a link is written again after the frame, as
/// pictures are: the cursor saved, the same text in the same style at the same place wrapped
/// in `ESC ] 8 ; ; URL ST` … `ESC ] 8 ; ; ST`, the cursor (and its attributes) restored. The
/// cells hold the same characters either way, so curses' picture of the screen stays true; a
/// terminal without OSC 8 shows the text as it was.
extension TerminalGraphics {
    struct Hyperlink: Equatable {
        var address: String
        var text: String
        var at: Point
        var style: Style
    }

    /// Makes `text`, drawn at `point` in `style` this frame, a link to `address`. Only the top
    /// layer's links are written (a dialog over them must not be written over), and only an
    /// address of printable ASCII (nothing in it can end the sequence early).
    public func hyperlink(_ address: String, text: String, at point: Point, style: Style, for layer: any Layer) {
        guard topLayer == nil || topLayer === layer, !address.isEmpty,
              address.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }),
              !text.unicodeScalars.contains(where: { $0.value < 0x20 || ($0.value >= 0x7F && $0.value < 0xA0) }) else { return }
        hyperlinks.append(Hyperlink(address: address, text: text, at: point, style: style))
    }

    /// The bytes of this frame's hyperlinks, written after curses' own.
    public func hyperlinkBytes() -> [UInt8] {
        guard !hyperlinks.isEmpty else { return [] }
        var out = "\u{1B}7"
        for link in hyperlinks {
            out += "\u{1B}[\(link.at.y + 1);\(link.at.x + 1)H\u{1B}[0;\(Self.sgr(link.style))m"
            out += "\u{1B}]8;;" + link.address + "\u{1B}\\" + link.text + "\u{1B}]8;;\u{1B}\\"
        }
        out += "\u{1B}8"
        return Array(out.utf8)
    }

    /// SGR parameters for `style` (the curses attributes a link's style uses, and its colors).
    static func sgr(_ style: Style) -> String {
        var codes: [String] = []
        if style.attributes.contains(.bold) { codes.append("1") }
        if style.attributes.contains(.dim) { codes.append("2") }
        if style.attributes.contains(.italic) { codes.append("3") }
        if style.attributes.contains(.underline) { codes.append("4") }
        if style.attributes.contains(.reverse) { codes.append("7") }
        codes.append(color(style.foreground, base: 30))
        codes.append(color(style.background, base: 40))
        return codes.joined(separator: ";")
    }

    private static func color(_ color: Color, base: Int) -> String {
        switch color {
        case .default: return "\(base + 9)"
        case .ansi(let n): return n < 8 ? "\(base + Int(n))" : "\(base + 60 + Int(n) - 8)"
        case .indexed(let n): return "\(base + 8);5;\(n)"
        case .rgb(let r, let g, let b): return "\(base + 8);2;\(r);\(g);\(b)"
        }
    }
}
