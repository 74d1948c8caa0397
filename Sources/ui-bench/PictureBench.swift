import TerminalUI

/// `ui-bench pictures`: the bytes kitty pictures cost, before (each change resent the pictures
/// through chafa's `a=T`) and now (each picture sent once under an id, then only placed).
///
/// The viewer: ten pan steps (a tenth of the screen each), one zoom step in and back on the 16000×2000
/// panorama of `ui-bench viewer`, at 140×40 and 200×60 cells of 10×20 pixels. The photo list:
/// 128×32-pixel thumbnails in 24×3 cells, one every five rows, as the app lays them out;
/// scrolling one row brings one thumbnail in and moves the rest.
@MainActor
enum PictureBench {
    static let cell = Size(width: 10, height: 20)

    static func run() {
        print("ui-bench pictures: bytes written to a kitty terminal (cells of \(cell.width)×\(cell.height) pixels)")
        print("")
        print(Bench.pad("step", 46) + Bench.pad("before", 14, right: true) + Bench.pad("now", 14, right: true))
        print(String(repeating: "─", count: 74))
        let picture = PanoramaPicture(ViewerBench.panorama(width: 16000, height: 2000))
        for (columns, rows) in [(140, 40), (200, 60)] { viewer(picture, columns: columns, rows: rows) }
        thumbnails()
    }

    /// The viewer's picture area at `columns × rows` (less the position bar and status line).
    static func viewer(_ picture: PanoramaPicture, columns: Int, rows: Int) {
        var port = PanoramaViewport(imageWidth: picture.source.width, imageHeight: picture.source.height, columns: columns, rows: rows - 2,
                                    cellWidth: cell.width, cellHeight: cell.height)
        let rect = Rect(x: 0, y: 0, width: columns, height: rows - 2)
        let graphics = TerminalGraphics(mode: .kitty, cellSize: cell)
        func frame() -> Int {
            graphics.beginFrame()
            let size = port.rendition(maxSide: TerminalGraphics.kittyMaxSide)
            let key = "panorama \(size.width)x\(size.height)"
            graphics.place(key: key, source: port.sourceRect(in: size), at: rect) { picture.rendition(size) }
            return graphics.endFrame().bytes.count
        }
        func before() -> Int {
            picture.window(port).terminalSequence(mode: .kitty, columns: columns, rows: rows - 2, cellWidth: cell.width, cellHeight: cell.height)?.count ?? 0
        }
        let firstBefore = before(), firstNow = frame()
        var stepsBefore = 0, stepsNow = 0
        for _ in 0..<10 {
            port.pan(by: max(1, columns / 10))
            stepsBefore += before()
            stepsNow += frame()
        }
        port.zoom(in: true)
        let zoomBefore = before(), zoomNow = frame()
        port.zoom(in: false)
        let backBefore = before(), backNow = frame()
        let name = "viewer \(columns)×\(rows)"
        print(Bench.pad(name + ": first picture", 46) + Bench.pad(size(firstBefore), 14, right: true) + Bench.pad(size(firstNow), 14, right: true))
        print(Bench.pad(name + ": ten pan steps", 46) + Bench.pad(size(stepsBefore), 14, right: true) + Bench.pad(size(stepsNow), 14, right: true))
        print(Bench.pad(name + ": one pan step", 46) + Bench.pad(size(stepsBefore / 10), 14, right: true) + Bench.pad(size(stepsNow / 10), 14, right: true))
        print(Bench.pad(name + ": a zoom step (+, sent again)", 46) + Bench.pad(size(zoomBefore), 14, right: true) + Bench.pad(size(zoomNow), 14, right: true))
        print(Bench.pad(name + ": zoom back (−, kept)", 46) + Bench.pad(size(backBefore), 14, right: true) + Bench.pad(size(backNow), 14, right: true))
    }

    /// The photo list: nine thumbnails on the screen of a 50-photo list, scrolled one row down
    /// and back up.
    static func thumbnails() {
        let thumbnails = (0..<50).map { i in
            let image = ImageBench.gradient(width: 128, height: 32)
            // Each a little different, as photos are.
            return PixelImage(width: 128, height: 32, bytes: image.bytes.map { $0 &+ UInt8(i) })
        }
        let graphics = TerminalGraphics(mode: .kitty, cellSize: cell)
        let shown = 9
        func frame(from first: Int) -> Int {
            graphics.beginFrame()
            for (row, index) in (first..<(first + shown)).enumerated() {
                graphics.place(key: "thumbnail \(index)", at: Rect(x: 2, y: 1 + row * 5, width: 24, height: 3)) { thumbnails[index] }
            }
            return graphics.endFrame().bytes.count
        }
        // Before: any change deleted every placement and sent every thumbnail on the screen again.
        func before(from first: Int) -> Int {
            (first..<(first + shown)).reduce(12) { sum, index in
                // The picture, and the cursor saved, moved and restored around it.
                sum + 12 + (thumbnails[index].terminalSequence(mode: .kitty, columns: 24, rows: 3, cellWidth: cell.width, cellHeight: cell.height)?.count ?? 0)
            }
        }
        let firstBefore = before(from: 0), firstNow = frame(from: 0)
        let downBefore = before(from: 1), downNow = frame(from: 1)
        let upBefore = before(from: 0), upNow = frame(from: 0)
        print(Bench.pad("photo list: first screen (\(shown) thumbnails)", 46) + Bench.pad(size(firstBefore), 14, right: true) + Bench.pad(size(firstNow), 14, right: true))
        print(Bench.pad("photo list: scroll one row down (1 new)", 46) + Bench.pad(size(downBefore), 14, right: true) + Bench.pad(size(downNow), 14, right: true))
        print(Bench.pad("photo list: scroll one row back up (0 new)", 46) + Bench.pad(size(upBefore), 14, right: true) + Bench.pad(size(upNow), 14, right: true))
    }

    /// Bytes as B, KB or MB (decimal).
    static func size(_ bytes: Int) -> String {
        if bytes < 10_000 { return "\(bytes) B" }
        if bytes < 10_000_000 { return "\(bytes / 1000) KB" }
        return "\(bytes / 1_000_000).\(bytes / 100_000 % 10) MB"
    }
}
