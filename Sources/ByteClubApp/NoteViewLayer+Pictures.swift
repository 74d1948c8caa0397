import Foundation
import Imaging
import Markdown
import Remote
import TerminalUI

extension NoteViewLayer {
    /// The club photos whose slots are on screen, fitted into their slots: placed in pixels on
    /// kitty and iTerm2 (under one key per photo, so kitty is sent the picture once and a scroll
    /// only moves it), else drawn in cells. A slot cut by the top or the bottom edge shows the
    /// part of the picture on screen, as the text around it scrolls, never blank rows. A photo
    /// still loading or not in the club keeps its stand-in row (the name).
    func drawPictures(_ note: RenderedNote, scroll: Int, in area: Rect, canvas: any Canvas) {
        for picture in note.pictures {
            let top = picture.line - scroll
            // Any row of the slot on screen: the slot is drawn from its own top, cut to the area.
            guard top < area.height, top + picture.rows > 0, note.lines.indices.contains(picture.line),
                  let entry = controller.photoEntry(picture.path) else { continue }
            let standIn = note.lines[picture.line].runs
            let indent = standIn.prefix { $0.link == nil }.reduce(0) { $0 + TextWidth.of($1.text) }
            // The slot's rows from the indent on are the picture's; a sized one takes its columns.
            let rows = Rect(x: area.x + indent, y: area.y + top, width: max(1, area.width - indent), height: picture.rows)
            let slot = Rect(x: rows.x, y: rows.y, width: min(rows.width, max(1, picture.columns ?? rows.width)), height: picture.rows)
            let shown = slot.intersection(area)
            guard !shown.isEmpty, case .ready(let image) = controller.pictures.image(for: entry) else { continue }
            controller.pictureRatios[picture.path.lowercased()] = (image.width, image.height)
            canvas.fill(rows.intersection(area), style: canvas.theme.text)
            let key = Thumbnails.key(entry, size: controller.pictures.size)
            if let graphics = controller.graphics, graphics.mode == .kitty || graphics.mode == .iterm, graphics.showsPixels(for: self) {
                let size = CellImage.size(ofImageWidth: image.width, height: image.height, columns: slot.width, rows: slot.height)
                let whole = Rect(origin: slot.origin, size: size)
                let visible = whole.intersection(area)
                guard !visible.isEmpty else { continue }
                if visible == whole {
                    graphics.place(key: "note\n" + key, at: whole) {
                        PixelImage(width: image.width, height: image.height, bytes: image.pixels)
                    }
                } else {
                    // The rows on screen of the picture's rows, as the same share of its pixels:
                    // kitty shows that part of the picture it holds already.
                    let source = Self.pixelRows(of: visible, in: whole, imageWidth: image.width, imageHeight: image.height)
                    graphics.place(key: "note\n" + key, source: source, at: visible) {
                        PixelImage(width: image.width, height: image.height, bytes: image.pixels)
                    }
                }
                continue
            }
            let depth = canvas.colorDepth
            let cellKey = key + "\n\(slot.width)x\(slot.height) \(depth)"
            let cells = CellImage.cached(in: &cellCache, key: cellKey, limit: 40, columns: slot.width, rows: slot.height, depth: depth) {
                PixelImage(width: image.width, height: image.height, bytes: image.pixels)
            }
            cells.draw(into: canvas, at: slot.origin, clip: shown)
        }
    }

    /// The pixels of an image drawn over `whole` (cells) that `visible` (a band of its rows)
    /// shows: the full width, and the same share of the height.
    static func pixelRows(of visible: Rect, in whole: Rect, imageWidth: Int, imageHeight: Int) -> Rect {
        guard whole.height > 0 else { return Rect(x: 0, y: 0, width: imageWidth, height: imageHeight) }
        let first = (visible.y - whole.y) * imageHeight / whole.height
        let end = (visible.maxY - whole.y) * imageHeight / whole.height
        return Rect(x: 0, y: first, width: imageWidth, height: max(1, end - first))
    }

    // MARK: What is known before the layout

    /// What is known of the pictures of `links` (a layout's image links) that changes their
    /// slots: one that cannot be drawn takes one row saying so (a format the app does not draw,
    /// a photo not in the club, a thumbnail that failed); one sized by its width alone, its
    /// aspect ratio once drawn. Fetches nothing: the pictures on screen fetch their own.
    func knownPictures(of links: [RenderedLink]) -> [String: KnownPicture] {
        var known: [String: KnownPicture] = [:]
        let photos = controller.context.state.photos
        for link in links {
            guard link.link.isImage, case .photo(let path) = link.target else { continue }
            let key = path.lowercased()
            guard known[key] == nil else { continue }
            let ext = (path as NSString).pathExtension.lowercased()
            guard PictureFormat.fileExtensions.contains(ext) else {
                known[key] = .undrawn(ext.isEmpty ? "not a picture" : "\(ext.uppercased()) pictures are not drawn")
                continue
            }
            guard photos.hasLoaded else { continue }
            guard let entry = controller.photoEntry(path) else {
                known[key] = .undrawn("not in the club")
                continue
            }
            if controller.pictures.failure(for: entry) != nil {
                known[key] = .undrawn(ByteFormat.size(entry.size) + " · cannot be drawn")
                continue
            }
            let size = link.link.syntax == .markdown ? NoteLinks.pictureSize(inAlt: link.link.text).size : link.link.size
            if let size, size.height == nil, let ratio = controller.pictureRatios[key] {
                known[key] = .size(width: ratio.width, height: ratio.height)
            }
        }
        return known
    }

    /// `known` as part of a layout's key, in a stable order.
    static func describe(_ known: [String: KnownPicture]) -> String {
        known.keys.sorted().map { key -> String in
            switch known[key]! {
            case .size(let width, let height): return "\n\(key)=\(width)x\(height)"
            case .undrawn(let why): return "\n\(key)!\(why)"
            }
        }.joined()
    }
}
