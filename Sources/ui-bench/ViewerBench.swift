import Dispatch
import TerminalUI

/// `ui-bench viewer`: the photo viewer's pan step on a 16000×2000 panorama at 200×60 cells.
///
/// The picture is decoded once (here: made once, a synthetic gradient with stripes so chafa
/// has edges to find) and scaled once for the zoom; a pan step crops the visible 200×116-pixel
/// window and turns only that into cells, then copies the cells into the frame. The pixel
/// rows time the image of the window each protocol would be sent (cells of 10×20 pixels); the
/// app sends it so for iTerm2 and sixel, while kitty keeps the picture sent once and a step
/// only moves its placement (`ui-bench pictures`).
@MainActor
enum ViewerBench {
    static let columns = 200, rows = 60

    static func panorama(width: Int, height: Int) -> PixelImage {
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            let light = 255 - 160 * y / (height - 1)
            for x in 0..<width {
                let i = (y * width + x) * 3
                let stripe = (x / 40 + y / 40) % 5 == 0
                bytes[i] = UInt8(light * (x % 4000) / 4000)
                bytes[i + 1] = stripe ? 255 : UInt8(light * (3999 - x % 4000) / 4000)
                bytes[i + 2] = UInt8(light * y / (height - 1))
            }
        }
        return PixelImage(width: width, height: height, bytes: bytes)
    }

    static func run(iterations: Int) {
        let clock = ContinuousClock()
        var source: PixelImage?
        let made = clock.measure { source = panorama(width: 16000, height: 2000) }
        let picture = PanoramaPicture(source!)
        // The viewer's picture area: the screen less the position bar and the status line.
        var port = PanoramaViewport(imageWidth: 16000, imageHeight: 2000, columns: columns, rows: rows - 2)
        let canvas = GridCanvas(width: columns, height: rows, colorDepth: .truecolor)
        var first = CellImage(width: 0, height: 0, cells: [])
        let scaling = clock.measure { first = picture.cells(port, depth: .truecolor) }
        print("ui-bench viewer: 16000×2000 panorama at \(columns)×\(rows) cells (picture \(first.width)×\(first.height), zoomed picture \(port.contentColumns) columns)")
        print("made in \(ms(made)) ms; scaled once for the zoom and first window in \(ms(scaling)) ms")
        print("")
        print(Bench.pad("pan step (one key)", 34) + Bench.pad("median ms", 12, right: true) + Bench.pad("p99 ms", 12, right: true) + Bench.pad("max ms", 12, right: true))
        print(String(repeating: "─", count: 70))
        for depth in [ColorDepth.truecolor, .indexed256] {
            for renderer in CellImage.Renderer.allCases {
                let samples = measure(iterations) { i in
                    port.offset = (i * 20) % port.maxOffset
                    picture.cells(port, depth: depth, renderer: renderer).draw(into: canvas, at: Point(x: 0, y: 0))
                }
                Bench.report("symbols, \(renderer), \(depth)", samples)
            }
        }
        var pixels = PanoramaViewport(imageWidth: 16000, imageHeight: 2000, columns: columns, rows: rows - 2, cellWidth: 10, cellHeight: 20)
        var sent = 0
        for mode in [PixelMode.kitty, .iterm, .sixel] {
            let samples = measure(max(3, iterations / 25)) { i in
                pixels.offset = (i * 20) % pixels.maxOffset
                sent = picture.window(pixels).terminalSequence(mode: mode, columns: columns, rows: rows - 2, cellWidth: 10, cellHeight: 20)?.count ?? 0
            }
            Bench.report("\(mode), \(sent / 1_000_000).\(sent / 100_000 % 10) MB a step", samples)
        }
    }

    static func measure(_ iterations: Int, _ body: (Int) -> Void) -> [Double] {
        for i in 0..<min(5, iterations) { body(i) }
        let clock = ContinuousClock()
        return (0..<iterations).map { i in
            let elapsed = clock.measure { body(i) }
            return Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15
        }.sorted()
    }

    static func ms(_ duration: Duration) -> String {
        Bench.format(Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15)
    }
}
