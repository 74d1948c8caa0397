extension RenderedNote {
    /// The note as terminal text: SGR styles, and web links as OSC 8 hyperlinks (clickable
    /// where the terminal has them, invisible where not). What `byteclub cat --render` prints
    /// to a terminal.
    ///
    /// The note's own text never drives the terminal: control characters (ESC, C1, DEL) become
    /// U+FFFD, and a hyperlink's address is kept only if it is printable ASCII.
    public func ansiText(colors: Bool = true, hyperlinks: Bool = true) -> String {
        var out = ""
        for line in lines {
            var openLink: Int?
            for run in line.runs {
                let address = hyperlinks ? run.link.flatMap { webAddress(of: $0) } : nil
                let linkIndex = address == nil ? nil : run.link
                if openLink != linkIndex {
                    if openLink != nil { out += "\u{1B}]8;;\u{1B}\\" }
                    if let address { out += "\u{1B}]8;;" + address + "\u{1B}\\" }
                    openLink = linkIndex
                }
                let sgr = colors ? Self.sgr(run.style) : ""
                if !sgr.isEmpty { out += "\u{1B}[" + sgr + "m" }
                out += Self.printable(run.text)
                if !sgr.isEmpty { out += "\u{1B}[0m" }
            }
            if openLink != nil { out += "\u{1B}]8;;\u{1B}\\" }
            out += "\n"
        }
        return out
    }

    /// The http(s) address link `index` opens, if it is one safe to hand to a terminal.
    public func webAddress(of index: Int) -> String? {
        guard links.indices.contains(index), case .web(var address) = links[index].target else { return nil }
        if address.lowercased().hasPrefix("www.") { address = "https://" + address }
        guard address.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else { return nil }
        return address
    }

    static func sgr(_ style: RenderedStyle) -> String {
        var codes: [String] = []
        if style.contains(.heading) || style.contains(.strong) || style.contains(.tableHeader) { codes.append("1") }
        if style.contains(.muted) || style.contains(.border) { codes.append("2") }
        if style.contains(.emphasis) { codes.append("3") }
        if style.contains(.link) { codes.append("4") }
        if style.contains(.strikethrough) { codes.append("9") }
        if style.contains(.highlight) { codes.append("7") }
        if style.contains(.heading) {
            codes.append("35")
        } else if style.contains(.code) || style.contains(.codeBlock) || style.contains(.done) {
            codes.append("32")
        } else if style.contains(.link) {
            codes.append("34")
        } else if style.contains(.marker) {
            codes.append("33")
        } else if style.contains(.quote) {
            codes.append("36")
        } else if style.contains(.callout) {
            codes.append("33")
        }
        return codes.joined(separator: ";")
    }

    /// `text` with every control character as U+FFFD.
    static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { scalars.append(isControl(scalar) ? "\u{FFFD}" : scalar) }
        return String(scalars)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value < 0xA0)
    }
}
