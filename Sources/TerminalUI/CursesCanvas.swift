internal import CNcursesw
internal import CTerminalShim
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether curses owns the terminal, for the `atexit` hook, which may run on any thread.
private let cursesActive = Atomic<Bool>(false)

/// Ends curses if it is still active; safe to call more than once and from `atexit`.
///
/// `exit` can be called on any thread, but by then nothing else is drawing (every curses call
/// happens on the main queue, which is not running while `exit` runs atexit handlers there, and
/// elsewhere the process is going down); the atomic exchange makes sure only one caller ends curses.
func restoreTerminal() {
    guard cursesActive.exchange(false, ordering: .acquiringAndReleasing) else { return }
    bc_emergency_disarm()
    endwin()
    // Bracketed paste is not a curses mode, so endwin leaves it on; harmless if it never was.
    // Nor is mouse reporting once the app asked for it itself (see Terminal.mouseReportsOn).
    writeToTerminal(Terminal.bracketedPasteOff + Terminal.mouseReportsOff)
}

/// Writes control bytes straight to the terminal, outside curses (for modes it does not know).
func writeToTerminal(_ sequence: String) {
    var bytes = Array(sequence.utf8)
    _ = bytes.withUnsafeMutableBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
}

/// Registers ``restoreTerminal()`` with `atexit` once, however many canvases are made.
private let installExitHook: Void = {
    atexit { restoreTerminal() }
}()

/// Why the terminal could not be opened.
public enum TerminalError: Error, CustomStringConvertible {
    case notATerminal
    case cannotInitialize(term: String)

    public var description: String {
        switch self {
        case .notATerminal: return "standard input and output must be a terminal"
        case .cannotInitialize(let term): return "cannot open the terminal (TERM=\(term))"
        }
    }
}

/// The ncurses ``Canvas``: draws into `stdscr` and lets curses work out what changed.
///
/// Each frame is `werase`, draw, `wnoutrefresh`, `doupdate`; nothing calls `clear`, which
/// would repaint every cell, except ``forceRepaint()`` for Ctrl-L. Colors are reduced to the
/// terminal's ``ColorDepth`` and color pairs come from `alloc_pair`, cached here.
@MainActor
public final class CursesCanvas: Canvas {
    public private(set) var size: Size
    public var theme: Theme
    public let colorDepth: ColorDepth
    public var cursor: Point?

    private let window: UnsafeMutablePointer<WINDOW>
    private var pairs: [UInt64: Int32] = [:]
    private let pairLimit: Int
    private var cursorVisible: Int32 = -1
    private var characters: [wchar_t] = Array(repeating: 0, count: 8)

    /// Takes over the terminal: raw mode, no echo, keypad decoding, non-blocking reads,
    /// colors (unless `NO_COLOR`), and optionally mouse reports passed to the app's decoder.
    ///
    /// Raw mode rather than cbreak: the editor's Ctrl-S, Ctrl-Z and Ctrl-Y are flow control and
    /// job control in cbreak mode, and would never reach the app.
    init(mouse: Bool, escapeDelay: Int32) throws {
        guard isatty(STDIN_FILENO) != 0, isatty(STDOUT_FILENO) != 0 else { throw TerminalError.notATerminal }
        setlocale(LC_ALL, "")
        bc_emergency_save_terminal(STDIN_FILENO, STDOUT_FILENO)
        guard bc_newterm() != nil, let window = bc_stdscr() else {
            throw TerminalError.cannotInitialize(term: getenv("TERM").map { String(cString: $0) } ?? "")
        }
        self.window = window
        cursesActive.store(true, ordering: .releasing)
        _ = installExitHook

        raw()
        noecho()
        nonl()
        meta(window, true)
        keypad(window, true)
        nodelay(window, true)
        intrflush(window, false)
        _ = bc_set_escdelay(escapeDelay)
        if mouse { _ = bc_pass_mouse_reports() }

        var depth = ColorDepth.none
        let noColor = getenv("NO_COLOR").map { String(cString: $0) }
        if has_colors(), start_color() == bc_OK() {
            use_default_colors()
            depth = ColorDepth.detect(colors: Int(bc_COLORS()), noColor: noColor)
        }
        colorDepth = depth
        pairLimit = Int(bc_COLOR_PAIRS())
        theme = Theme.standard(for: depth)

        var rows: Int32 = 0, cols: Int32 = 0
        bc_getmaxyx(window, &rows, &cols)
        size = Size(width: Int(cols), height: Int(rows))

        bc_emergency_save_reset()
        bc_emergency_install()
    }

    /// Gives the terminal back (`endwin`); drawing after this is undefined.
    func shutdown() { restoreTerminal() }

    /// Adopts a new terminal size after SIGWINCH; returns whether it changed.
    func resize(rows: Int, columns: Int) -> Bool {
        guard rows != size.height || columns != size.width else { return false }
        resizeterm(Int32(rows), Int32(columns))
        var r: Int32 = 0, c: Int32 = 0
        bc_getmaxyx(window, &r, &c)
        size = Size(width: Int(c), height: Int(r))
        return true
    }

    /// Makes the next frame repaint every cell (Ctrl-L, after the screen was scribbled on).
    public func forceRepaint() { bc_force_repaint() }

    /// Starts a frame: an empty window in the default colors.
    func beginFrame() {
        if pairs.count > pairLimit * 3 / 4 {
            // Out of pairs (thumbnails in 24-bit color use many): start over. Cells on screen
            // still name the old pair numbers, so the frame must repaint everything.
            reset_color_pairs()
            pairs.removeAll(keepingCapacity: true)
            bc_force_repaint()
        }
        werase(window)
        cursor = nil
    }

    /// Ends a frame: places the cursor and sends the difference to the terminal.
    func endFrame() {
        let visible: Int32 = cursor == nil ? 0 : 1
        if visible != cursorVisible {
            curs_set(visible)
            cursorVisible = visible
        }
        if let cursor { wmove(window, Int32(cursor.y), Int32(cursor.x)) }
        wnoutrefresh(window)
        doupdate()
    }

    public func setCell(x: Int, y: Int, cluster: CellCluster, style: Style) {
        guard y >= 0, y < size.height, x >= 0, x + cluster.width <= size.width else { return }
        var count = 0
        for scalar in cluster.text.unicodeScalars where count < characters.count - 1 {
            characters[count] = wchar_t(bitPattern: scalar.value)
            count += 1
        }
        characters[count] = 0
        let attrs = attributes(style.attributes)
        let pair = pair(for: style)
        _ = characters.withUnsafeBufferPointer { buffer in
            bc_put_cell(window, Int32(y), Int32(x), buffer.baseAddress, attrs, pair)
        }
    }

    public func fill(_ rect: Rect, style: Style) {
        let r = rect.intersection(bounds)
        guard !r.isEmpty else { return }
        let attrs = attributes(style.attributes)
        let pair = pair(for: style)
        for y in r.minY..<r.maxY {
            _ = bc_fill_row(window, Int32(y), Int32(r.minX), Int32(r.width), attrs, pair)
        }
    }

    private func attributes(_ a: TextAttributes) -> attr_t {
        var result = bc_A_NORMAL()
        if a.contains(.bold) { result |= bc_A_BOLD() }
        if a.contains(.reverse) { result |= bc_A_REVERSE() }
        if a.contains(.underline) { result |= bc_A_UNDERLINE() }
        if a.contains(.dim) { result |= bc_A_DIM() }
        if a.contains(.italic) { result |= bc_A_ITALIC() }
        return result
    }

    /// The color pair for a style's colors, allocated on first use.
    private func pair(for style: Style) -> Int32 {
        guard colorDepth != .none else { return 0 }
        let fg = colorNumber(style.foreground), bg = colorNumber(style.background)
        if fg == -1 && bg == -1 { return 0 }
        let key = UInt64(UInt32(bitPattern: fg)) << 32 | UInt64(UInt32(bitPattern: bg))
        if let pair = pairs[key] { return pair }
        let pair = max(0, alloc_pair(fg, bg))
        pairs[key] = pair
        return pair
    }

    /// The curses color number: -1 for default, a palette index, or in direct-color mode
    /// 0xRRGGBB (where, as terminfo's `setaf` for direct color reads it, 0–7 are still the
    /// ANSI colors, so an RGB value that small is nudged to 8).
    private func colorNumber(_ color: Color) -> Int32 {
        guard let reduced = color.reduced(to: colorDepth) else { return -1 }
        switch reduced {
        case .default: return -1
        case .ansi(let n) where n < 8: return Int32(n)
        case .indexed(let n) where n < 8: return Int32(n)
        case .ansi(let n), .indexed(let n):
            guard colorDepth == .truecolor else { return Int32(n) }
            let (r, g, b) = Color.rgbComponents(ofIndex: n)
            return Self.packed(r, g, b)
        case .rgb(let r, let g, let b):
            return Self.packed(r, g, b)
        }
    }

    private static func packed(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int32 {
        max(8, Int32(r) << 16 | Int32(g) << 8 | Int32(b))
    }
}
