import Markdown
import Remote
import TerminalUI

extension NoteViewLayer {
    /// The club photos whose slots are wholly on screen, fitted into their slots: placed in
    /// pixels on kitty and iTerm2 (under one key per photo, so kitty is sent the picture once
    /// and a scroll only moves it), else drawn in cells. A slot cut by the edge, or a photo
    /// still loading or not in the club, keeps its stand-in row (the name).
    func drawPictures(_ note: RenderedNote, scroll: Int, in area: Rect, canvas: any Canvas) {
        for picture in note.pictures {
            let top = picture.line - scroll
            guard top >= 0, top + picture.rows <= area.height, let entry = controller.photoEntry(picture.path) else { continue }
            let standIn = note.lines[picture.line].runs
            let indent = standIn.prefix { $0.link == nil }.reduce(0) { $0 + TextWidth.of($1.text) }
            let slot = Rect(x: area.x + indent, y: area.y + top, width: max(1, area.width - indent), height: picture.rows)
            guard case .ready(let image) = controller.pictures.image(for: entry) else { continue }
            canvas.fill(slot, style: canvas.theme.text)
            let key = Thumbnails.key(entry, size: controller.pictures.size)
            if let graphics = controller.graphics, graphics.mode == .kitty || graphics.mode == .iterm, graphics.showsPixels(for: self) {
                let size = CellImage.size(ofImageWidth: image.width, height: image.height, columns: slot.width, rows: slot.height)
                graphics.place(key: "note\n" + key, at: Rect(origin: slot.origin, size: size)) {
                    PixelImage(width: image.width, height: image.height, bytes: image.pixels)
                }
                continue
            }
            let depth = canvas.colorDepth
            let cellKey = key + "\n\(slot.width)x\(slot.height) \(depth)"
            let cells = CellImage.cached(in: &cellCache, key: cellKey, limit: 40, columns: slot.width, rows: slot.height, depth: depth) {
                PixelImage(width: image.width, height: image.height, bytes: image.pixels)
            }
            cells.draw(into: canvas, at: slot.origin, clip: slot)
        }
    }
}
