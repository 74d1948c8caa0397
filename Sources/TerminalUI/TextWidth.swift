internal import CTerminalShim

/// One terminal cell's worth of text: a spacing character and the zero-width marks after it.
///
/// This is what curses stores in one `cchar_t`, which is why text is cut here rather than at
/// Swift's `Character` boundaries: a ZWJ emoji sequence is one `Character` but several spacing
/// characters, and ncurses gives each its own cell.
public struct CellCluster: Hashable, Sendable {
    /// The scalars drawn in the cell (a control character becomes U+FFFD).
    public var text: String
    /// 1 or 2 columns.
    public var width: Int
}

/// Display widths of text in terminal cells, from the C library's `wcwidth`.
///
/// Widths come from a UTF-8 locale whatever the process locale is, so tests and the live
/// terminal agree: CJK ideographs and most emoji take 2 cells, combining marks 0.
public enum TextWidth {
    /// The columns one scalar takes: 2, 1, 0 (combining, zero-width joiner) or -1 (control).
    ///
    /// Controls are C0, DEL and C1 (U+0080–U+009F, whose U+009B is CSI to some terminals),
    /// decided here rather than by the C library, whose answer depends on its locale data.
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v >= 0x20 && v < 0x7F { return 1 }
        if v < 0xA0 { return -1 }  // C0, DEL, C1
        // Bidi embeddings, overrides, isolates and marks: a terminal that lays out bidi text
        // would let one run the rest of the line backwards. Drawn as U+FFFD, as controls are.
        if (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) || v == 0x200E || v == 0x200F || v == 0x061C { return -1 }
        return Int(bc_wcwidth(v))
    }

    /// The columns `text` takes when drawn.
    public static func of<S: StringProtocol>(_ text: S) -> Int {
        var total = 0
        var hasBase = false
        for scalar in text.unicodeScalars {
            let w = of(scalar)
            if w > 0 {
                total += w
                hasBase = true
            } else if w < 0 {
                total += 1  // drawn as U+FFFD
                hasBase = true
            } else if !hasBase {
                continue  // a mark with nothing to sit on is not drawn
            }
        }
        return total
    }

    /// Calls `body` with each cell cluster of `text` in order; `body` returns false to stop.
    public static func forEachCluster<S: StringProtocol>(in text: S, _ body: (CellCluster) -> Bool) {
        let scalars = text.unicodeScalars
        var current: CellCluster?
        var marks = 0
        for scalar in scalars {
            var w = of(scalar)
            var s = scalar
            if w < 0 {
                s = "\u{FFFD}"
                w = 1
            }
            if w == 0 {
                // ncurses keeps at most four marks per cell; more would be dropped there, so drop them here too.
                if current != nil, marks < 4 {
                    current!.text.unicodeScalars.append(s)
                    marks += 1
                }
                continue
            }
            if let c = current, !body(c) { return }
            current = CellCluster(text: String(s), width: w)
            marks = 0
        }
        if let c = current { _ = body(c) }
    }

    /// The cell clusters of `text`.
    public static func clusters<S: StringProtocol>(of text: S) -> [CellCluster] {
        var result: [CellCluster] = []
        forEachCluster(in: text) { result.append($0); return true }
        return result
    }

    /// The longest prefix of `text`, in whole `Character`s, that fits in `width` columns.
    public static func prefix(of text: String, fitting width: Int) -> (text: Substring, width: Int) {
        var used = 0
        var end = text.startIndex
        for index in text.indices {
            let w = of(text[index...index])
            if used + w > width { break }
            used += w
            end = text.index(after: index)
        }
        return (text[..<end], used)
    }

    /// `text` cut to `width` columns, ending in "…" when it had to be cut.
    public static func truncate(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        if of(text) <= width { return text }
        return String(prefix(of: text, fitting: width - 1).text) + "…"
    }

    /// `text` truncated or padded with spaces to exactly `width` columns.
    public static func pad(_ text: String, to width: Int, alignment: Alignment = .left) -> String {
        let cut = truncate(text, to: width)
        let gap = max(0, width - of(cut))
        switch alignment {
        case .left: return cut + String(repeating: " ", count: gap)
        case .right: return String(repeating: " ", count: gap) + cut
        case .center: return String(repeating: " ", count: gap / 2) + cut + String(repeating: " ", count: gap - gap / 2)
        }
    }

    /// Horizontal placement of text in a wider space.
    public enum Alignment: Sendable { case left, right, center }

    /// `text` broken into lines of at most `width` columns, at spaces where possible.
    ///
    /// Explicit newlines are kept; a word longer than a line is split.
    public static func wrap(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            var lineWidth = 0
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: false) {
                var word = String(word)
                var wordWidth = of(word)
                let separator = line.isEmpty ? 0 : 1
                if lineWidth + separator + wordWidth <= width {
                    if separator == 1 { line += " " }
                    line += word
                    lineWidth += separator + wordWidth
                    continue
                }
                if !line.isEmpty { lines.append(line) }
                while wordWidth > width {
                    let (head, headWidth) = prefix(of: word, fitting: width)
                    if head.isEmpty { break }  // a 2-column character in a 1-column line
                    lines.append(String(head))
                    word = String(word[head.endIndex...])
                    wordWidth -= headWidth
                }
                line = word
                lineWidth = wordWidth
            }
            lines.append(line)
        }
        return lines
    }
}
