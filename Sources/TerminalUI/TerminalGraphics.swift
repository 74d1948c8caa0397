/// Which pictures a terminal can show, learnt by asking it (never from its name).
///
/// A value-type state machine, as the app's other policies: ``Terminal`` writes ``questions``
/// at start-up, feeds every ``TerminalReply`` to ``receive(_:)`` and calls ``timeOut()`` when
/// the start-up deadline passes. Device attributes are asked last and every terminal answers
/// them, in order, so their answer finishes the detection at once; a terminal that answers
/// nothing is given up on at the deadline and gets symbols.
public struct GraphicsDetection: Sendable, Equatable {
    /// Whether the app runs inside tmux, and whether tmux lets escape sequences through to the
    /// terminal outside (`allow-passthrough on`). Without it, tmux would swallow or mangle the
    /// pictures, so inside tmux pixels are used only with passthrough.
    public let inTmux: Bool
    public let tmuxPassthrough: Bool
    /// Whether the kitty query was answered `OK` (nil: no answer).
    public private(set) var kitty: Bool?
    /// Whether the device attributes listed 4 (sixel).
    public private(set) var sixel = false
    /// XTVERSION's answer, such as `kitty(0.35.2)` or `iTerm2 3.5.0`.
    public private(set) var version: String?
    /// A cell in pixels: from `TIOCGWINSZ` if the kernel knows, or the answer to `ESC [ 16 t`.
    public private(set) var cellSize: Size?
    public private(set) var isFinished = false

    public init(inTmux: Bool = false, tmuxPassthrough: Bool = false, cellSize: Size? = nil) {
        self.inTmux = inTmux
        self.tmuxPassthrough = tmuxPassthrough
        self.cellSize = cellSize
    }

    /// Whether sequences for the terminal must be wrapped for tmux's passthrough.
    public var wrapsForTmux: Bool { inTmux && tmuxPassthrough }

    /// The questions to write, wrapped for tmux when it passes them through.
    public var questions: String {
        let all = TerminalQuery.all.joined()
        return wrapsForTmux ? TerminalQuery.tmuxPassthrough(all) : all
    }

    /// Takes one answer; returns whether the detection finished with it.
    public mutating func receive(_ reply: TerminalReply) -> Bool {
        guard !isFinished else { return false }
        switch reply {
        case .kittyGraphics(_, let ok): kitty = ok
        case .version(let text): version = text
        case .cellSize(let width, let height):
            // An absurd answer would overflow the picture's pixel arithmetic: keep the default.
            if (1...1000).contains(width), (1...1000).contains(height) { cellSize = Size(width: width, height: height) }
        case .deviceAttributes(let attributes):
            sixel = attributes.dropFirst().contains(4)
            isFinished = true
            return true
        }
        return false
    }

    /// The deadline passed: what has been answered is all there is. Returns whether this
    /// finished the detection (false if it had finished already).
    public mutating func timeOut() -> Bool {
        guard !isFinished else { return false }
        isFinished = true
        return true
    }

    /// The best mode the answers allow: kitty, then iTerm2's images, then sixel, else symbols.
    public var mode: PixelMode {
        if inTmux && !tmuxPassthrough { return .symbols }
        if kitty == true { return .kitty }
        if let version, ["iTerm2", "WezTerm", "mintty"].contains(where: { version.contains($0) }) { return .iterm }
        if sixel { return .sixel }
        return .symbols
    }
}

/// Pictures drawn in real pixels over the curses screen, declared afresh every frame.
///
/// A layer that wants pixels calls ``place(key:at:image:)`` while it renders (and draws blank
/// cells there); after curses has written the frame, ``Terminal`` asks ``endFrame()`` for the
/// bytes to write. Nothing is sent while the placements stay the same, so spinners and other
/// redraws cost nothing. kitty keeps what it is sent: each picture is transmitted once under
/// an id and then only placed, moved and removed (``KittyPlacements``), so a scroll or a pan
/// step sends no pixels. A sixel or iTerm2 image that must go away makes curses repaint every
/// cell (they have no delete). A resize sends sixel and iTerm2 pictures again and re-places
/// kitty's; `Ctrl-L` sends everything again.
@MainActor
public final class TerminalGraphics {
    /// One picture: what it shows (a key that changes when the picture does) and where.
    public struct Placement: Equatable, Sendable {
        public var key: String
        public var rect: Rect
    }

    /// What a frame asks of the terminal once curses has drawn it.
    public struct FrameOutput: Equatable, Sendable {
        /// Bytes to write after curses' own.
        public var bytes: [UInt8] = []
        /// Whether curses must repaint every cell (an old sixel or iTerm2 image to erase) and
        /// draw another frame, which then places the pictures.
        public var needsRepaint = false

        public init(bytes: [UInt8] = [], needsRepaint: Bool = false) {
            self.bytes = bytes
            self.needsRepaint = needsRepaint
        }
    }

    /// How pictures are drawn; ``PixelMode/symbols`` means no pixels at all.
    public var mode: PixelMode {
        didSet { if mode != oldValue { invalidate(); onChange?() } }
    }
    /// A cell in pixels (sixels are drawn at this size).
    public var cellSize: Size
    /// Whether every sequence goes through tmux's passthrough.
    public var wrapsForTmux = false
    /// Inside tmux without passthrough (help says how to turn it on).
    public var tmuxWithoutPassthrough = false
    /// Called when ``mode`` changes (the app draws again).
    public var onChange: (@MainActor () -> Void)?
    /// The top layer of this frame (set by ``Terminal``): pictures sit above every cell, so
    /// only the top layer may place them, or they would hide a dialog drawn over them.
    public weak var topLayer: (any Layer)?

    var requested: [(placement: Placement, source: Rect?, image: () -> PixelImage?)] = []
    /// This frame's OSC 8 hyperlinks (TerminalGraphics+Hyperlinks.swift).
    var hyperlinks: [Hyperlink] = []
    private var shown: [Placement] = []
    /// Set when what the terminal shows is unknown (resize, Ctrl-L, a new mode).
    private var stale = false
    /// What kitty holds of ours (kitty mode only).
    var kitty = KittyPlacements()
    /// How many pictures have been written (tests and the benchmark read it).
    public internal(set) var imagesWritten = 0
    /// How many kitty placements of pictures already sent have been written.
    public internal(set) var placementsWritten = 0
    /// How many raw bytes of pictures off the screen kitty may keep for us, least recently
    /// shown freed first (``KittyPlacements/unplacedBudget``).
    public var kittyUnplacedBudget: Int {
        get { kitty.unplacedBudget }
        set { kitty.unplacedBudget = newValue }
    }

    public init(mode: PixelMode = .symbols, cellSize: Size = Size(width: 10, height: 20)) {
        self.mode = mode
        self.cellSize = cellSize
    }

    /// Asks for `image` in `rect` this frame. `image` is called only when the picture must be
    /// sent (its key or place changed), so a frame that changes nothing makes no pixels.
    public func place(key: String, at rect: Rect, image: @escaping () -> PixelImage?) {
        guard mode.isPixels, !rect.isEmpty else { return }
        requested.append((Placement(key: key, rect: rect), nil, image))
    }

    /// Asks for the part `source` (in the image's pixels) of the image `key` in `rect`, for
    /// kitty, which keeps the image and shows the part asked for: a viewer that pans sends its
    /// whole picture once and then only moves the source rectangle. `image` is called only when
    /// the terminal does not hold `key` yet. In other modes the part is cut out and sent.
    public func place(key: String, source: Rect, at rect: Rect, image: @escaping () -> PixelImage?) {
        guard mode.isPixels, !rect.isEmpty, !source.isEmpty else { return }
        if mode == .kitty {
            requested.append((Placement(key: key, rect: rect), source, image))
        } else {
            let placement = Placement(key: key + "\n\(source)", rect: rect)
            requested.append((placement, nil, { image()?.cropped(x: source.x, y: source.y, width: source.width, height: source.height) }))
        }
    }

    /// The owner of the picture `key` will not show it again soon (the viewer closed, or moved
    /// to another photo or zoom): kitty frees its copy at the next frame.
    public func release(key: String) {
        kitty.release(key)
    }

    /// Starts a frame: nothing is placed until layers say so.
    public func beginFrame() {
        requested.removeAll(keepingCapacity: true)
        hyperlinks.removeAll(keepingCapacity: true)
    }

    /// Whether `layer` should draw its pictures as pixels this frame: the mode has pixels and
    /// nothing is drawn over the layer (without a ``topLayer``, as in tests, any layer may).
    public func showsPixels(for layer: any Layer) -> Bool {
        mode.isPixels && (topLayer == nil || topLayer === layer)
    }

    /// Forgets what the terminal shows, so the next frame sends every picture again.
    public func invalidate() {
        stale = true
        kitty.placementsLost()
    }

    /// Curses has just repainted every cell (Ctrl-L), which erased sixel and iTerm2 images.
    public func screenWasRepainted() {
        shown = []
        stale = true
        kitty.imagesLost()
    }

    /// kitty's "delete every visible placement" (the images stay), without an answer.
    static let kittyDeleteAll = "\u{1B}_Ga=d,q=2\u{1B}\\"

    /// The bytes that bring the terminal from what it shows to what this frame placed.
    public func endFrame() -> FrameOutput {
        if mode == .kitty { return kittyFrame() }
        let wanted = requested.map(\.placement)
        var output = FrameOutput()
        // Left kitty mode: free what it holds.
        if kitty.holdsImages { output.bytes += kittyBytes(kitty.exit()) }
        guard stale || wanted != shown else { return output }
        switch mode {
        case .iterm, .sixel:
            // They have no delete: only curses repainting the cells removes them, unless each
            // new picture covers an old one exactly.
            if !shown.isEmpty, stale || wanted.map(\.rect) != shown.map(\.rect) {
                shown = []
                stale = false
                output.needsRepaint = true
                return output
            }
        case .kitty, .symbols:
            break
        }
        stale = false
        shown = wanted
        for (placement, _, make) in requested {
            guard let image = make(),
                  let sequence = image.terminalSequence(mode: mode, columns: placement.rect.width, rows: placement.rect.height,
                                                        cellWidth: cellSize.width, cellHeight: cellSize.height)
            else { continue }
            // Save the cursor, go to the picture's top-left, draw, and put the cursor back where
            // curses believes it is.
            output.bytes += Array("\u{1B}7\u{1B}[\(placement.rect.y + 1);\(placement.rect.x + 1)H".utf8)
            output.bytes += wrapsForTmux ? Array(TerminalQuery.tmuxPassthrough(String(decoding: sequence, as: UTF8.self)).utf8) : sequence
            output.bytes += Array("\u{1B}8".utf8)
            imagesWritten += 1
        }
        return output
    }

    /// The bytes that remove every picture on the way out (kitty; the others go with the
    /// alternate screen).
    public func exitBytes() -> [UInt8] {
        shown = []
        return kittyBytes(kitty.exit())
    }

    func wrap(_ sequence: String) -> [UInt8] {
        Array((wrapsForTmux ? TerminalQuery.tmuxPassthrough(sequence) : sequence).utf8)
    }
}
