import Remote
import TerminalUI

/// The full-screen photo viewer (`v`): a layer over the tabs that shows the panorama fitted to
/// the screen's height, a thin position bar and a status line.
///
/// It draws ``AppState/viewer`` and writes back only view state (zoom, pan, the list's
/// selection for `↑`/`↓`), as ``MainScreen`` does for its lists; `Enter` and closing go to
/// its delegate. In symbols mode the visible window becomes cells (``PanoramaPicture``); with
/// pixels (``TerminalGraphics``) the cells stay blank and the window is placed as an image
/// after curses has drawn.
@MainActor
final class ViewerLayer: Layer {
    enum Action: Hashable, Sendable {
        case left, right, screenLeft, screenRight, start, end, zoomIn, zoomOut, fit, previous, next, download, close
    }

    static let bindings = KeyBindings<Action>(group: "Viewer", [
        .init([.left, .char("h")], .left, "Pan left a tenth of the screen", keyLabel: "← h"),
        .init([.right, .char("l")], .right, "Pan right a tenth of the screen", keyLabel: "→ l"),
        .init([.char("H")], .screenLeft, "Pan left a whole screen"),
        .init([.char("L")], .screenRight, "Pan right a whole screen"),
        .init([.home], .start, "The left end"),
        .init([.end], .end, "The right end"),
        .init([.char("+"), .char("=")], .zoomIn, "Zoom in", keyLabel: "+"),
        .init([.char("-")], .zoomOut, "Zoom out"),
        .init([.char("0"), .char("f")], .fit, "Fit the whole panorama", keyLabel: "0 f"),
        .init([.up], .previous, "Previous photo"),
        .init([.down], .next, "Next photo"),
        .init([.enter], .download, "Download the photo"),
        .init([.escape, .char("q")], .close, "Close the viewer", keyLabel: "Esc q"),
    ])

    let model: AppModel
    let pictures: ViewerPictures
    let graphics: TerminalGraphics?
    /// `Enter`: download the photo shown (the list's selection is that photo).
    var onDownload: (@MainActor () -> Void)?

    /// The viewport of the last frame: what the keys move.
    private var viewport: PanoramaViewport?
    /// The last frame's cells, by what they show, so a frame that changes nothing renders nothing.
    private var cells: (key: String, image: CellImage)?
    /// The pictures kitty holds for the viewer: the photo shown, at each zoom's scale used so
    /// far (a zoom back re-places one already sent, within ``TerminalGraphics``' budget). Freed
    /// when the viewer moves to another photo or closes, so the terminal holds one photo's.
    private var kittyKeys: (photo: String, pictures: Set<String>)?

    init(model: AppModel, pictures: ViewerPictures, graphics: TerminalGraphics?) {
        self.model = model
        self.pictures = pictures
        self.graphics = graphics
    }

    /// Pixels only while nothing is drawn over the viewer (the transfer modal, help).
    private var mode: PixelMode {
        guard let graphics, graphics.showsPixels(for: self) else { return .symbols }
        return graphics.mode
    }

    // MARK: Drawing

    func render(into canvas: any Canvas, area: Rect) {
        let blank = Style(foreground: .default, background: .default)
        canvas.fill(area, style: blank)
        let (pictureArea, bottom) = area.splitBottom(2)
        let (bar, status) = bottom.splitTop(1)
        guard let viewer = model.state.viewer, let entry = model.state.viewerPhoto else {
            canvas.put("The photo is no longer in the list · Esc to close", in: pictureArea.row(pictureArea.height / 2), alignment: .center, style: canvas.theme.muted)
            return
        }
        let cell = mode.isPixels ? (graphics?.cellSize ?? Size(width: 10, height: 20)) : Size(width: 1, height: 2)
        let needed = Int(Double(pictureArea.height * cell.height) * max(1, viewer.zoom))
        var sizeText = ""
        switch pictures.picture(for: entry, neededHeight: needed) {
        case .loading:
            viewport = nil
            canvas.put("Loading \(TerminalSafe.escape(entry.name))…", in: pictureArea.row(pictureArea.height / 2), alignment: .center, style: canvas.theme.muted)
        case .failed(let why):
            viewport = nil
            canvas.put("✗ " + why, in: pictureArea.row(pictureArea.height / 2).inset(left: 1, right: 1), alignment: .center, style: canvas.theme.error)
        case .ready(let picture, let full):
            let source = picture.source
            var port = PanoramaViewport(imageWidth: source.width, imageHeight: source.height, columns: pictureArea.width, rows: pictureArea.height,
                                        cellWidth: cell.width, cellHeight: cell.height, zoom: viewer.zoom, offset: viewer.offset)
            port.clamp()
            viewport = port
            if port.zoom != viewer.zoom || port.offset != viewer.offset {
                model.updateQuietly { $0.viewer?.zoom = port.zoom; $0.viewer?.offset = port.offset }
            }
            draw(picture, port, key: Thumbnails.key(entry, size: pictures.renditions.size) + (full ? "full" : ""), in: pictureArea, canvas: canvas)
            drawPositionBar(port, in: bar, canvas: canvas)
            sizeText = "\(source.width)×\(source.height) px" + (full ? "" : " preview")
        }
        drawStatus(name: entry.name, size: sizeText, in: status, canvas: canvas)
    }

    private func draw(_ picture: PanoramaPicture, _ port: PanoramaViewport, key: String, in area: Rect, canvas: any Canvas) {
        let origin = Point(x: area.x + (area.width - port.shownColumns) / 2, y: area.y + (area.height - port.shownRows) / 2)
        let rect = Rect(origin: origin, size: Size(width: port.shownColumns, height: port.shownRows))
        if mode == .kitty, let graphics {
            // kitty keeps the whole picture (at the screen's scale for this zoom) and shows the
            // part asked for: a pan step only moves the source rectangle.
            let size = port.rendition(maxSide: TerminalGraphics.kittyMaxSide)
            let pictureKey = "viewer\n" + key + "\n\(size.width)x\(size.height)"
            if let kittyKeys, kittyKeys.photo != key { releasePictures() }
            kittyKeys = (key, (kittyKeys?.pictures ?? []).union([pictureKey]))
            graphics.place(key: pictureKey, source: port.sourceRect(in: size), at: rect) { picture.rendition(size) }
            return
        }
        if mode.isPixels, let graphics {
            // The cells stay blank; the picture goes over them once curses has drawn.
            graphics.place(key: key + "\n\(port.offset) \(port.zoom) \(rect)", at: rect) { picture.window(port) }
            return
        }
        let cellKey = key + "\n\(port.offset) \(port.zoom) \(rect.size) \(canvas.colorDepth)"
        let image: CellImage
        if let cells, cells.key == cellKey {
            image = cells.image
        } else {
            image = picture.cells(port, depth: canvas.colorDepth)
            cells = (cellKey, image)
        }
        image.draw(into: canvas, at: origin, clip: area)
    }

    private func releasePictures() {
        for key in kittyKeys?.pictures ?? [] { graphics?.release(key: key) }
        kittyKeys = nil
    }

    /// A thin track across the screen with the shown part in the accent color.
    private func drawPositionBar(_ port: PanoramaViewport, in bar: Rect, canvas: any Canvas) {
        guard bar.width > 0 else { return }
        let (start, end) = port.shownFraction
        let first = Int((start * Double(bar.width)).rounded(.down))
        let last = max(first + 1, min(bar.width, Int((end * Double(bar.width)).rounded(.up))))
        for x in 0..<bar.width {
            let inside = x >= first && x < last
            canvas.put(inside ? "━" : "─", at: Point(x: bar.x + x, y: bar.y), style: inside ? canvas.theme.accent : canvas.theme.muted)
        }
    }

    private func drawStatus(name: String, size: String, in status: Rect, canvas: any Canvas) {
        canvas.fill(status, style: canvas.theme.statusBar)
        var parts = [TerminalSafe.escape(name)]
        if !size.isEmpty { parts.append(size) }
        if let port = viewport {
            parts.append(port.showsWholeWidth && port.zoom <= port.fitWholeZoom + 0.001 ? "whole" : "zoom \(Int((port.zoom * 100).rounded()))%")
        }
        let hint = "←→ pan · +- zoom · f fit · ↑↓ photo · Enter download · Esc close"
        let left = parts.joined(separator: " · ")
        let room = status.width - 2
        let text = TextWidth.of(left) + 3 + TextWidth.of(hint) <= room ? left + " · " + hint : left
        canvas.put(text, in: status.inset(left: 1, right: 1), alignment: .left, style: canvas.theme.statusBar)
    }

    // MARK: Keys

    func handle(_ key: Key, context: LayerContext) -> EventResult {
        switch key {
        case .char("?"), .f(1), .ctrl("l"), .ctrl("c"), .resize:
            return .ignored  // help, redraw and interrupt stay the compositor's
        default:
            break
        }
        // The wheel pans (up and left go towards the start), one step a notch, like ←/→.
        let wheel = key.wheelColumns ?? key.wheelRows
        guard let action = Self.bindings.action(for: key) ?? wheel.map({ $0 < 0 ? .left : .right }) else { return .consumed }
        var port = viewport
        let columns = port?.columns ?? 10
        let step = max(1, columns / 10)
        switch action {
        case .left: port?.pan(by: -step)
        case .right: port?.pan(by: step)
        case .screenLeft: port?.pan(by: -columns)
        case .screenRight: port?.pan(by: columns)
        case .start: port?.panToStart()
        case .end: port?.panToEnd()
        case .zoomIn: port?.zoom(in: true)
        case .zoomOut: port?.zoom(in: false)
        case .fit: port?.fitWhole()
        case .previous, .next:
            move(action == .next ? .down : .up)
            return .consumed
        case .download:
            onDownload?()
            return .consumed
        case .close:
            close(context)
            return .consumed
        }
        if let port {
            // Kept too, so keys pressed before the next frame build on this one.
            viewport = port
            model.update { $0.viewer?.zoom = port.zoom; $0.viewer?.offset = port.offset }
        }
        return .consumed
    }

    /// `↑`/`↓`: the list's selection moves, and the viewer shows the photo it lands on, fitted.
    private func move(_ key: Key) {
        var list = model.state.photos.list
        let rows = model.state.photoRows
        _ = list.handle(key, rows: rows)
        let items = model.state.photoItems
        guard let index = list.selectedRow(in: rows), items.indices.contains(index), case .photo(let entry) = items[index] else { return }
        model.update {
            $0.photos.list = list
            $0.viewer = PhotoViewer(pathLower: entry.pathLower)
        }
    }

    private func close(_ context: LayerContext) {
        releasePictures()
        // The viewer goes from the screen as it goes from the state.
        model.update { $0.viewer = nil }
    }

    func commands() -> [Command] {
        var commands = Self.bindings.commands
        if graphics?.tmuxWithoutPassthrough == true {
            commands.append(Command(keys: [], description: "Real pixels inside tmux: tmux set -g allow-passthrough on, then reopen",
                                    group: "Viewer", keyLabel: "tmux"))
        }
        return commands
    }
}
