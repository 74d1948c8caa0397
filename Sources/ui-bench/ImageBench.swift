import Dispatch
import TerminalUI
#if canImport(Glibc)
import Glibc
#endif

/// `ui-bench images`: how long a thumbnail takes to become cells, per back end and color depth.
///
/// The picture is a synthetic 256×64 gradient (hue across, brightness down, plus a diagonal
/// stripe so chafa has edges to find), rendered into a 32×8-cell area: with `fit` it becomes
/// 32×4 cells, with `fill` the middle is cropped to 32×8.
@MainActor
enum ImageBench {
    static func gradient(width: Int, height: Int) -> PixelImage {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let light = 255 - 160 * y / max(1, height - 1)
                let stripe = (x + y) / 8 % 4 == 0
                bytes += [
                    UInt8(light * x / max(1, width - 1)),
                    UInt8(stripe ? 255 : light * (width - 1 - x) / max(1, width - 1)),
                    UInt8(light * y / max(1, height - 1)),
                ]
            }
        }
        return PixelImage(width: width, height: height, bytes: bytes)
    }

    static func run(iterations: Int) {
        let image = gradient(width: 256, height: 64)
        print("ui-bench images: \(image.width)×\(image.height) gradient into 32×8 cells, \(iterations) renders per scenario")
        print("")
        print(Bench.pad("scenario", 34) + Bench.pad("cells", 8, right: true) + Bench.pad("median µs", 12, right: true) + Bench.pad("p99 µs", 12, right: true))
        print(String(repeating: "─", count: 66))
        for renderer in CellImage.Renderer.allCases {
            for depth in [ColorDepth.truecolor, .indexed256, .ansi8] {
                for fit in [CellImage.Fit.fit, .fill] {
                    var size = Size.zero
                    let samples = measure(iterations) {
                        size = CellImage.render(image, columns: 32, rows: 8, depth: depth, fit: fit, renderer: renderer).size
                    }
                    let name = "\(renderer), \(depth), \(fit)"
                    let median = samples[samples.count / 2], p99 = samples[min(samples.count - 1, samples.count * 99 / 100)]
                    print(Bench.pad(name, 34) + Bench.pad("\(size.width)×\(size.height)", 8, right: true)
                        + Bench.pad(String(Int(median.rounded())), 12, right: true) + Bench.pad(String(Int(p99.rounded())), 12, right: true))
                }
            }
        }
    }

    /// Sorted durations in microseconds.
    static func measure(_ iterations: Int, _ body: () -> Void) -> [Double] {
        for _ in 0..<min(20, iterations) { body() }
        let clock = ContinuousClock()
        var samples: [Double] = []
        samples.reserveCapacity(iterations)
        for _ in 0..<iterations {
            let elapsed = clock.measure(body)
            samples.append(Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12)
        }
        return samples.sorted()
    }
}

/// `ui-bench images demo`: thumbnails on the real terminal, both back ends side by side, so the
/// curses colors (truecolor with `TERM=xterm-direct`, 256 colors otherwise) can be checked by eye
/// or with `tmux capture-pane -e`. Every thumbnail differs, so the screen needs thousands of pairs.
@MainActor
final class ImageDemo: Layer {
    enum Action: Hashable, Sendable { case next, quit }

    static let keys = KeyBindings<Action>(group: "Images", [
        .init([.char(" ")], .next, "Other colors"),
        .init([.char("q"), .escape], .quit, "Quit"),
    ])

    let terminal: Terminal
    var shift = 0

    init(terminal: Terminal, shift: Int) {
        self.terminal = terminal
        self.shift = shift
    }

    /// Starts the demo at color set `shift` (a fresh start at N must look like N presses of Space,
    /// which checks that recycling color pairs on the way loses nothing).
    static func run(shift: Int) {
        do {
            let terminal = try Terminal()
            terminal.compositor.push(ImageDemo(terminal: terminal, shift: shift))
            terminal.start()
        } catch {
            let text = "ui-bench images demo: \(error)\n"
            _ = text.withCString { write(STDERR_FILENO, $0, strlen($0)) }
            exit(1)
        }
    }

    func render(into canvas: any Canvas, area: Rect) {
        let depth = terminal.canvas.colorDepth
        canvas.put("depth \(depth) · left chafa, right half-block · space: next colors · q quit", at: area.origin, style: .plain, clip: area)
        let base = ImageBench.gradient(width: 128, height: 64)
        var y = area.y + 1, index = shift
        while y + 8 <= area.maxY {
            var x = area.x
            while x + 16 <= area.maxX {
                let renderer: CellImage.Renderer = (x / 16) % 2 == 0 ? .chafa : .halfBlock
                let image = Self.tinted(base, by: index)
                CellImage.render(image, columns: 16, rows: 8, depth: depth, fit: .fill, renderer: renderer)
                    .draw(into: canvas, at: Point(x: x, y: y))
                x += 17
                index += 1
            }
            y += 9
        }
    }

    /// The gradient with its channels rotated and shifted, so each thumbnail has its own colors.
    static func tinted(_ image: PixelImage, by n: Int) -> PixelImage {
        var bytes = image.bytes
        let offset = UInt8(truncatingIfNeeded: n * 37)
        for i in stride(from: 0, to: bytes.count, by: 3) {
            let (r, g, b) = (bytes[i], bytes[i + 1], bytes[i + 2])
            let rotated = n % 3 == 0 ? (r, g, b) : n % 3 == 1 ? (g, b, r) : (b, r, g)
            bytes[i] = rotated.0 &+ offset
            bytes[i + 1] = rotated.1
            bytes[i + 2] = rotated.2 &+ offset / 2
        }
        return PixelImage(width: image.width, height: image.height, bytes: bytes)
    }

    func handle(_ key: Key, context: LayerContext) -> EventResult {
        switch Self.keys.action(for: key) {
        case .quit: terminal.quit()
        case .next:
            shift += 1
            context.setNeedsRedraw()
        case nil: return .ignored
        }
        return .consumed
    }

    func commands() -> [Command] { Self.keys.commands }
}
