import Remote
import TerminalUI

/// Drawing the two tabs: the notes list with the editor pane, and the photos with their
/// thumbnails, transfer lines and the preview pane.
extension MainScreen {
    func emptyHint(_ tab: Tab) -> String {
        let listing = model.state[tab]
        switch (tab, listing.hasLoaded) {
        case (_, false) where listing.error == nil: return "Loading \(tab.noun)…"
        case (_, false): return "Nothing loaded yet. Press r to try again."
        case (.notes, true): return "No notes yet. Press n to write one."
        case (.photos, true): return "No photos in \(configuration.layout.photosFolder) yet. Press u to upload one."
        }
    }

    /// Draws the notes list and the editor; true when the list (with its relative times) shows.
    @discardableResult
    func renderNotes(into canvas: any Canvas, pane: Rect) -> Bool {
        // The session's scalars only: the editor itself is drawn in place below.
        let session = model.state.note.map { NoteGlance(stage: $0.stage, isSaving: $0.isSaving, name: $0.entry?.name ?? "", isModified: $0.isModified, banner: $0.banner) }
        var listArea = pane, editorArea = Rect.zero
        if session != nil {
            if pane.width >= 90 {
                let listWidth = max(30, pane.width * 36 / 100)
                listArea = Rect(x: pane.x, y: pane.y, width: listWidth, height: pane.height)
                editorArea = Rect(x: pane.x + listWidth + 1, y: pane.y, width: pane.width - listWidth - 1, height: pane.height)
                for y in pane.y..<pane.maxY { canvas.put("│", at: Point(x: pane.x + listWidth, y: y), style: canvas.theme.border) }
            } else {
                // Too narrow for both: the editor takes the pane (the list while loading).
                if session?.stage != .loading { listArea = .zero }
                editorArea = session?.stage == .loading ? listArea.splitBottom(1).bottom : pane
                if session?.stage == .loading { listArea = listArea.splitBottom(1).rest }
            }
        }
        if !listArea.isEmpty {
            var list = model.state.notes.list
            ListView(columns: Self.notesColumns(in: model.state.notesFolder), rows: model.noteListing.rows, emptyHint: emptyHint(.notes),
                     isFocused: session == nil || session?.stage == .loading)
                .render(into: canvas, area: listArea, state: &list)
            // Drawing clamps the selection and learns the page size; keep that without a redraw.
            if list != model.state.notes.list { model.updateQuietly { $0.notes.list = list } }
        } else if model.state.notes.list.rowsFrame != .zero {
            // Hidden behind the editor: no clicks land on it.
            model.updateQuietly { $0.notes.list.rowsFrame = .zero }
        }
        let listShown = !listArea.isEmpty
        guard let session, !editorArea.isEmpty else { return listShown }
        if session.stage == .loading {
            canvas.fill(editorArea, style: canvas.theme.text)
            let spinner = StatusBar.spinnerFrames[tick() % StatusBar.spinnerFrames.count]
            let name = TerminalSafe.escape(session.name)
            canvas.put("\(spinner) Opening \"\(name)\"… Esc stops", in: editorArea.row(editorArea.height / 2).inset(left: 1, right: 1),
                       alignment: .center, style: canvas.theme.muted)
            return listShown
        }
        if model.state.note?.merge != nil {
            // The merge view, in place of the editor while a merge has conflicts.
            model.updateQuietly { state in
                guard let note = state.note, note.merge != nil else { return }
                MergeView(title: note.editor.title.text, isModified: session.isModified, isSaving: session.isSaving)
                    .render(into: canvas, area: editorArea, merge: &state.note!.merge!)
            }
            return listShown
        }
        // A banner may name a member or a note (the server's words): escaped, as messages are.
        var banner = session.banner.map(TerminalSafe.escape)
        if session.isSaving { banner = "Saving…" + (banner.map { " · " + $0 } ?? "") }
        // Drawn in place (it learns its scroll position), without a copy of the note or a new frame.
        // Asked with a borrow of the note, not a copy kept across the drawing below.
        let lineStyles = model.state.note.flatMap { markdown.lineStyles(for: $0, syntax: canvas.theme.syntax) }
        model.updateQuietly { state in
            guard state.note != nil else { return }
            var editor = NoteEditor(isModified: session.isModified, banner: banner, lineStyles: lineStyles)
            editor.showsLineNumbers = state.editorSettings.lineNumbers
            editor.softWrap = state.editorSettings.softWrap
            // Which of the open notes this is, when there are several (Alt-1…Alt-9).
            if let index = state.shownNoteIndex, case let count = state.buffers.parked.count + 1, count > 1 {
                editor.position = "\(index + 1)/\(count)"
            }
            if let live = state.note?.live, live.isJoined, let body = state.note?.editor.body {
                let others = live.members.enumerated().filter { $0.element != live.me }
                editor.others = others.compactMap { index, name in
                    // A name the server sent: escaped before it reaches the terminal.
                    live.cursors[name].map { NoteEditor.OtherCursor(name: TerminalSafe.escape(name), position: body.position(ofUTF16: $0), colour: index) }
                }
            }
            editor.render(into: canvas, area: editorArea, state: &state.note!.editor)
        }
        return listShown
    }

    func renderPhotos(into canvas: any Canvas, pane: Rect) {
        var listArea = pane
        var previewArea = Rect.zero
        if model.state.showsPreview, pane.width >= 60 {
            let listWidth = max(40, pane.width / 2)
            listArea = Rect(x: pane.x, y: pane.y, width: listWidth, height: pane.height)
            previewArea = Rect(x: pane.x + listWidth + 1, y: pane.y, width: pane.width - listWidth - 1, height: pane.height)
            for y in pane.y..<pane.maxY { canvas.put("│", at: Point(x: pane.x + listWidth, y: y), style: canvas.theme.border) }
        }
        var list = model.state.photos.list
        let items = model.state.photoItems
        let rows = model.state.photoRows(items)
        let theme = canvas.theme
        canvas.fill(listArea, style: theme.text)
        var body = listArea
        if list.isFiltering { body = body.splitBottom(1).rest }
        let visible = list.visibleIndices(in: rows)
        let perPage = max(1, body.height / (Self.photoRowHeight + 1))
        list.pageSize = perPage
        list.clamp(count: visible.count, height: perPage)
        list.rowsFrame = body
        list.rowPitch = Self.photoRowHeight + 1
        if visible.isEmpty {
            let hint = rows.isEmpty ? emptyHint(.photos) : "No matches for “\(list.filter)”"
            canvas.put(hint, in: body.row(body.height / 2), alignment: .center, style: theme.muted)
        }
        var shown: [RemoteEntry] = []
        let depth = canvas.colorDepth
        for position in list.offset..<min(visible.count, list.offset + perPage) {
            let item = items[visible[position]]
            let entry: RemoteEntry
            switch item {
            case .photo(let photo): entry = photo
            case .album(let album):
                if let cover = album.cover { shown.append(cover) }
                drawAlbum(album, at: body.y + (position - list.offset) * (Self.photoRowHeight + 1), in: body, selected: position == list.selected,
                          canvas: canvas, depth: depth)
                continue
            }
            shown.append(entry)
            let rowTop = body.y + (position - list.offset) * (Self.photoRowHeight + 1)
            let row = Rect(x: body.x, y: rowTop, width: body.width, height: Self.photoRowHeight)
            let selected = position == list.selected
            let textStyle = selected ? theme.selection : theme.text
            let thumbArea = Rect(x: row.x + 1, y: row.y, width: min(Self.thumbnailColumns, max(0, row.width - 2)), height: row.height)
            let textArea = Rect(x: thumbArea.maxX + 2, y: row.y, width: max(0, row.maxX - thumbArea.maxX - 3), height: row.height)
            if selected { canvas.fill(Rect(x: textArea.x - 1, y: row.y, width: textArea.width + 2, height: row.height), style: textStyle) }
            drawThumbnail(entry, in: thumbArea, canvas: canvas, depth: depth)
            canvas.put(entry.name, in: textArea.row(0), alignment: .left, style: textStyle.bold)
            let format = configuration.format
            canvas.put("\(ByteFormat.size(entry.size)) · \(format.day(entry.modified))", in: textArea.row(1), alignment: .left,
                       style: selected ? textStyle : theme.muted)
            if let status = transferLine(for: entry) {
                canvas.put(status, in: textArea.row(2), alignment: .left, style: selected ? textStyle : theme.accent)
            }
        }
        thumbnails.keepOnly(shown)
        if list.isFiltering {
            ListView(columns: [ListColumn("Name")], rows: rows).drawFilterLine(canvas, listArea.splitBottom(1).bottom, state: list,
                                                                                matches: visible.count)
        }
        if list != model.state.photos.list { model.updateQuietly { $0.photos.list = list } }
        if !previewArea.isEmpty {
            var selected: RemoteEntry?
            if let row = list.selectedRow(in: rows) {
                switch items[row] {
                case .photo(let entry): selected = entry
                case .album(let album): selected = album.cover
                }
            }
            renderPreview(into: canvas, area: previewArea, entry: selected)
        }
    }

    /// An album's row: its first photo's thumbnail, its name and how many photos it holds.
    private func drawAlbum(_ album: AlbumItem, at top: Int, in body: Rect, selected: Bool, canvas: any Canvas, depth: ColorDepth) {
        let theme = canvas.theme
        let row = Rect(x: body.x, y: top, width: body.width, height: Self.photoRowHeight)
        let textStyle = selected ? theme.selection : theme.text
        let thumbArea = Rect(x: row.x + 1, y: row.y, width: min(Self.thumbnailColumns, max(0, row.width - 2)), height: row.height)
        let textArea = Rect(x: thumbArea.maxX + 2, y: row.y, width: max(0, row.maxX - thumbArea.maxX - 3), height: row.height)
        if selected { canvas.fill(Rect(x: textArea.x - 1, y: row.y, width: textArea.width + 2, height: row.height), style: textStyle) }
        if album.isParent {
            canvas.put(FolderItem.upMark + " .. (all albums)", in: textArea.row(0), alignment: .left, style: textStyle.bold)
            return
        }
        if let cover = album.cover { drawThumbnail(cover, in: thumbArea, canvas: canvas, depth: depth) }
        canvas.put(FolderItem.mark + " " + TerminalSafe.escape(album.name) + "/", in: textArea.row(0), alignment: .left, style: textStyle.bold)
        canvas.put("Album · \(album.count) photo\(album.count == 1 ? "" : "s")", in: textArea.row(1), alignment: .left,
                   style: selected ? textStyle : theme.muted)
    }

    /// "paused 42%", "↓ 37%", "↑ 12%" under a photo's name, or that its delete waits in the outbox.
    private func transferLine(for entry: RemoteEntry) -> String? {
        // Photos are only ever deleted through the outbox (uploads wait as files, not rows).
        if model.state.offline.isPending(entry) { return "⇡ delete waits in the outbox" }
        if let running = model.state.transfers.active.first(where: { $0.remotePath.lowercased() == entry.pathLower }) {
            return (running.progress.direction == .upload ? "↑ " : "↓ ") + running.progress.percentText
        }
        if let paused = model.state.paused[entry.pathLower] {
            return "paused \(paused.percent)% · Enter resumes"
        }
        return nil
    }

    private func drawThumbnail(_ entry: RemoteEntry, in area: Rect, canvas: any Canvas, depth: ColorDepth) {
        guard !area.isEmpty else { return }
        switch thumbnails.image(for: entry) {
        case .loading:
            canvas.fill(area, style: canvas.theme.muted)
            canvas.put("…", in: area.row(area.height / 2), alignment: .center, style: canvas.theme.muted)
        case .failed:
            canvas.put("✗ no preview", in: area.row(area.height / 2), alignment: .center, style: canvas.theme.error)
        case .ready(let image):
            // Kitty and iTerm2 take many small pictures well: the thumbnail is placed in pixels
            // (its cells stay blank) and sent only when the visible rows change, at a scroll.
            // Sixel terminals keep the symbols: a sixel cannot be deleted, so each scroll would
            // repaint the screen before resending every picture (docs/photos.md).
            if let graphics = configuration.graphics, graphics.mode == .kitty || graphics.mode == .iterm, graphics.showsPixels(for: self) {
                let size = CellImage.size(ofImageWidth: image.width, height: image.height, columns: area.width, rows: area.height)
                let rect = Rect(x: area.x + (area.width - size.width) / 2, y: area.y + (area.height - size.height) / 2,
                                width: size.width, height: size.height)
                // The decoded pixels are Thumbnails' own (decoded once per key); the closure runs only when sent.
                graphics.place(key: "thumbnail\n" + Thumbnails.key(entry, size: thumbnails.size), at: rect) {
                    PixelImage(width: image.width, height: image.height, bytes: image.pixels)
                }
                return
            }
            let key = Thumbnails.key(entry, size: thumbnails.size) + "\(area.width)x\(area.height)\(depth)"
            let cells = CellImage.cached(in: &cellCache, key: key, limit: 600, columns: area.width, rows: area.height, depth: depth) {
                PixelImage(width: image.width, height: image.height, bytes: image.pixels)
            }
            cells.draw(into: canvas, centeredIn: area)
        }
    }

    private func renderPreview(into canvas: any Canvas, area: Rect, entry: RemoteEntry?) {
        canvas.fill(area, style: canvas.theme.text)
        // Only the selected photo's preview is worth fetching; scrolled-past ones are dropped.
        previews.keepOnly(entry.map { [$0] } ?? [])
        guard let entry else { return }
        let (picture, caption) = area.inset(left: 1, right: 1).splitBottom(1)
        canvas.put(entry.name, in: caption, alignment: .center, style: canvas.theme.muted)
        switch previews.image(for: entry) {
        case .loading:
            canvas.put("Loading the preview…", in: picture.row(picture.height / 2), alignment: .center, style: canvas.theme.muted)
        case .failed(let why):
            canvas.put("✗ " + why, in: picture.row(picture.height / 2), alignment: .center, style: canvas.theme.error)
        case .ready(let image):
            // Kitty and iTerm2 take one picture cheaply; sixels would need a repaint at each
            // change of the list, so sixel terminals keep the symbols here (docs/photos.md).
            if let graphics = configuration.graphics, graphics.mode == .kitty || graphics.mode == .iterm, graphics.showsPixels(for: self) {
                let size = CellImage.size(ofImageWidth: image.width, height: image.height, columns: picture.width, rows: picture.height)
                let rect = Rect(x: picture.x + (picture.width - size.width) / 2, y: picture.y + (picture.height - size.height) / 2,
                                width: size.width, height: size.height)
                graphics.place(key: "preview\n" + Thumbnails.key(entry, size: previews.size), at: rect) {
                    PixelImage(width: image.width, height: image.height, bytes: image.pixels)
                }
                return
            }
            let depth = canvas.colorDepth
            let key = "preview\n" + Thumbnails.key(entry, size: previews.size) + "\(picture.width)x\(picture.height)\(depth)"
            let cells = cellCache[key] ?? CellImage.render(PixelImage(width: image.width, height: image.height, bytes: image.pixels),
                                                           columns: picture.width, rows: picture.height, depth: depth)
            cellCache[key] = cells
            cells.draw(into: canvas, centeredIn: picture)
        }
    }
}

/// What drawing needs of the open note besides its editor, copied out so that the editor can
/// be drawn in place without copying the note.
private struct NoteGlance {
    var stage: NoteSession.Stage
    var isSaving: Bool
    var name: String
    var isModified: Bool
    var banner: String?
}
