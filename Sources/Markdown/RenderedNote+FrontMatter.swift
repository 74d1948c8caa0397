/// Front matter in the rendered view: its properties on a line (or a few, wrapped) above the
/// note, as `tags: trip, boat · aliases: Sailing`, never as a rule and a heading. Front matter
/// that does not parse is shown as it is, under a one-line warning.
extension RenderLayout {
    /// The rows for `matter`, and a blank row after them when there are any.
    mutating func frontMatter(_ matter: NoteFrontMatter, raw: String) {
        sourceLine = 0
        if let error = matter.error {
            // One row: cut at the width rather than wrapped.
            let warning = NoteFrontMatter.warning + error
            var row = cut(warning, into: max(1, width - 1)).first ?? ""
            if row.count < warning.count { row += "…" }
            emit([RenderedRun(row, style: .strong)], width: cells(row))
            let lines = raw.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).joined(separator: "\n")
            verbatim(lines, style: [.code, .muted], first: .empty, rest: .empty)
            emit([], width: 0)
            return
        }
        guard !matter.properties.isEmpty else { return }
        var atoms: [InlineAtom] = []
        for (index, property) in matter.properties.enumerated() {
            if index > 0 { atoms.append(InlineAtom(text: " · ", style: .muted)) }
            atoms.append(InlineAtom(text: property.key + ":", style: .muted))
            if !property.value.isEmpty { atoms.append(InlineAtom(text: " " + property.value, style: [])) }
        }
        paragraph(atoms, first: .empty, rest: .empty)
        emit([], width: 0)
    }
}
