import CCmarkGFM

extension RenderLayout {
    /// A GFM table in box lines, each column as wide as its widest cell (in cells, so CJK text
    /// lines up) and aligned as the delimiter row says. Cells are not wrapped: a table wider
    /// than the note keeps its width and its rows are marked to scroll sideways.
    mutating func table(_ node: OpaquePointer, first: Prefix, rest: Prefix) {
        let columns = Int(cmark_gfm_extensions_get_table_columns(node))
        guard columns > 0 else { return }
        var alignments = [UInt8](repeating: 0, count: columns)
        if let raw = cmark_gfm_extensions_get_table_alignments(node) {
            for i in 0..<columns { alignments[i] = raw[i] }
        }
        var rows: [(header: Bool, cells: [[RenderedRun]], widths: [Int])] = []
        var row = cmark_node_first_child(node)
        while let rowNode = row {
            row = cmark_node_next(rowNode)
            let header = cmark_gfm_extensions_get_table_row_is_header(rowNode) != 0
            var cellRuns: [[RenderedRun]] = []
            var widths: [Int] = []
            var cell = cmark_node_first_child(rowNode)
            while let cellNode = cell, cellRuns.count < columns {
                cell = cmark_node_next(cellNode)
                let runs = tableCell(inlines(of: cellNode, style: header ? .tableHeader : []))
                cellRuns.append(runs)
                widths.append(runs.reduce(0) { $0 + cells($1.text) })
            }
            while cellRuns.count < columns {
                cellRuns.append([])
                widths.append(0)
            }
            rows.append((header, cellRuns, widths))
        }
        var columnWidths = [Int](repeating: 1, count: columns)
        for row in rows {
            for i in 0..<columns { columnWidths[i] = max(columnWidths[i], row.widths[i]) }
        }
        let total = columnWidths.reduce(1) { $0 + $1 + 3 }
        let scrolls = rest.width + total > width
        func edge(_ left: String, _ middle: String, _ right: String) -> RenderedRun {
            RenderedRun(left + columnWidths.map { Self.repeated("─", $0 + 2) }.joined(separator: middle) + right, style: .border)
        }
        emit(first.runs + [edge("┌", "┬", "┐")], width: first.width + total, scrolls: scrolls)
        for (index, row) in rows.enumerated() {
            var runs = rest.runs
            for i in 0..<columns {
                let spare = columnWidths[i] - row.widths[i]
                let before: Int
                switch alignments[i] {
                case UInt8(ascii: "r"): before = spare
                case UInt8(ascii: "c"): before = spare / 2
                default: before = 0
                }
                runs.append(RenderedRun(i == 0 ? "│ " : " │ ", style: .border))
                if before > 0 { runs.append(RenderedRun(Self.repeated(" ", before))) }
                runs += row.cells[i]
                if spare - before > 0 { runs.append(RenderedRun(Self.repeated(" ", spare - before))) }
            }
            runs.append(RenderedRun(" │", style: .border))
            emit(runs, width: rest.width + total, scrolls: scrolls)
            if row.header, index + 1 < rows.count {
                emit(rest.runs + [edge("├", "┼", "┤")], width: rest.width + total, scrolls: scrolls)
            }
        }
        emit(rest.runs + [edge("└", "┴", "┘")], width: rest.width + total, scrolls: scrolls)
    }

    /// A cell's atoms as runs on one row: breaks become spaces, a photo its name.
    private func tableCell(_ atoms: [InlineAtom]) -> [RenderedRun] {
        var runs: [RenderedRun] = []
        for atom in atoms {
            var text = atom.text
            var style = atom.style
            switch atom.kind {
            case .hardBreak: text = " "
            case .picture: style.insert(.muted)
                text = "[" + (atom.text.isEmpty ? "photo" : atom.text) + "]"
            case .embed: style.insert([.muted, .link])
                text = "⧉ " + atom.text
            case .text: break
            }
            if let last = runs.last, last.style == style, last.link == atom.link {
                runs[runs.count - 1].text += text
            } else {
                runs.append(RenderedRun(text, style: style, link: atom.link))
            }
        }
        return runs
    }
}
