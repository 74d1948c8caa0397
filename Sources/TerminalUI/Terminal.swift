import Dispatch
internal import CNcursesw
internal import CTerminalShim
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The live terminal: curses, the event loop on the main queue, and a ``Compositor``.
///
/// Everything runs on `DispatchQueue.main`, which the executable drives with `dispatchMain()`:
/// - keys come from a read source on stdin that drains `wget_wch` until it has nothing more;
/// - SIGWINCH comes from a signal source (libdispatch owns the signal, so curses' own
///   `KEY_RESIZE` is not relied on): `TIOCGWINSZ`, then `resizeterm`, then a frame;
/// - SIGINT, SIGTERM and SIGHUP restore the terminal and exit;
/// - frames are coalesced: any number of ``setNeedsRedraw()`` calls in one turn of the queue
///   make one frame.
///
/// The terminal is restored on every way out: ``quit(status:)``, those signals, an `atexit`
/// hook for a plain `exit`, and for crashes (SIGSEGV, SIGILL, SIGABRT, …) a handler that
/// writes the saved reset sequence and termios with async-signal-safe calls before letting
/// the crash proceed.
///
/// ```swift
/// let terminal = try Terminal()
/// terminal.compositor.push(MainScreen(terminal: terminal))
/// terminal.start()
/// dispatchMain()
/// ```
@MainActor
public final class Terminal {
    /// Settings fixed when the terminal opens.
    public struct Options: Sendable {
        /// Report the mouse: left clicks as ``Key/mouse(x:y:)``, the wheel and the rest as
        /// ``Key/pointer(_:)`` (terminal text selection then needs Shift).
        public var mouse = true
        /// How long a lone ESC waits for the rest of a sequence, in milliseconds.
        public var escapeDelay = 25
        /// How often ``Terminal/tick`` advances while ``Terminal/isAnimating``.
        public var animationInterval: DispatchTimeInterval = .milliseconds(100)
        /// How pictures are drawn: asked of the terminal (`auto`), or forced (`--images`).
        public var images: ImagesOption = .auto
        /// How long start-up waits for the terminal's answers before settling on symbols.
        public var queryDeadline: DispatchTimeInterval = .milliseconds(400)

        public init() {}
    }

    public let compositor: Compositor
    public let canvas: CursesCanvas
    let options: Options
    /// Pictures in real pixels over the cells (kitty, iTerm2, sixel), once the terminal said
    /// it has them; see Terminal+Graphics.swift.
    public let graphics = TerminalGraphics()
    /// The answers to the start-up questions so far (nil when none were asked).
    public internal(set) var detection: GraphicsDetection?
    /// Called once the detection has settled (the mode is in ``graphics``).
    public var onGraphicsDetected: (@MainActor (GraphicsDetection?) -> Void)?

    /// Called once before the terminal is restored and the process exits, with the exit status
    /// (save drafts here). Not called on crashes.
    public var onExit: (@MainActor (Int32) -> Void)?

    /// Whether the animation timer runs, advancing ``tick`` and redrawing (for spinners).
    public var isAnimating = false {
        didSet { if isAnimating != oldValue { updateAnimationTimer() } }
    }
    /// The animation counter, also in ``Compositor/tick``.
    public private(set) var tick = 0
    /// Frames drawn so far.
    public private(set) var frameCount = 0

    private var sources: [any DispatchSourceProtocol] = []
    private var animationTimer: (any DispatchSourceTimer)?
    private var redrawScheduled = false
    var decoder = KeyDecoder()
    private var emptyWakeups = 0
    private var started = false

    /// Signals that end the app; they arrive through libdispatch, not a handler.
    private static let exitSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Opens the terminal. Call once, on the main thread, before anything starts threads that
    /// should not receive SIGWINCH/SIGINT/SIGTERM/SIGHUP (their mask is inherited).
    public init(compositor: Compositor = Compositor(), options: Options = Options()) throws {
        self.compositor = compositor
        self.options = options
        // Block and ignore before curses starts: curses then installs no handlers of its own for
        // these (it only replaces SIG_DFL), and a signal that arrives before start() waits for
        // libdispatch's signal sources instead of killing the process with the terminal in raw mode.
        let signals = [SIGWINCH] + Self.exitSignals
        signals.withUnsafeBufferPointer { bc_block_signals($0.baseAddress, Int32($0.count)) }
        for signal in signals { _ = Glibc.signal(signal, SIG_IGN) }
        self.canvas = try CursesCanvas(mouse: options.mouse, escapeDelay: Int32(options.escapeDelay))
        compositor.onNeedsRedraw = { [weak self] in self?.setNeedsRedraw() }
        compositor.onForceRedraw = { [weak self] in self?.forceRedraw() }
        compositor.onInterrupt = { [weak self] in
            guard let self else { return }
            self.quit(status: 130)
        }
    }

    /// Installs the input, resize and signal sources and draws the first frame. The caller then
    /// runs the main queue with `dispatchMain()`.
    public func start() {
        guard !started else { return }
        started = true

        let input = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO, queue: .main)
        input.setEventHandler { [weak self] in
            // The source's queue is .main, the main actor's executor. (After dispatchMain() on
            // Linux, worker threads drain the main queue; it stays serial, which is what counts.)
            MainActor.assumeIsolated { self?.readInput() }
        }
        sources.append(input)

        let resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .main)
        resize.setEventHandler { [weak self] in
            MainActor.assumeIsolated { self?.updateSize() }
        }
        sources.append(resize)

        for signal in Self.exitSignals {
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .main)
            source.setEventHandler { [weak self] in
                MainActor.assumeIsolated {
                    guard let self else { return }
                    self.quit(status: 128 + signal)
                }
            }
            sources.append(source)
        }
        for source in sources { source.resume() }

        // Pastes arrive as one Key.paste instead of as typed keys (Enter would otherwise act on
        // each pasted line). Every way out turns it off again (see restoreTerminal and the
        // emergency reset bytes).
        writeToTerminal(Self.bracketedPasteOn)
        if options.mouse { writeToTerminal(Self.mouseReportsOn) }
        startGraphicsDetection()

        // The size may have changed between opening curses and now.
        updateSize()
        redrawNow()
    }

    /// Turns bracketed paste on and off (xterm's mode 2004).
    nonisolated static let bracketedPasteOn = "\u{1B}[?2004h"
    nonisolated static let bracketedPasteOff = "\u{1B}[?2004l"

    /// Mouse reports: presses, releases, the wheel and motion while a button is held (xterm's
    /// modes 1000 and 1002, the drag that selects in the editor), as SGR (1006), whose decimal
    /// cells have no 223-column limit. Not 1003: motion with no button held is of no use, and
    /// the fewer reports, the less a slow link carries. Terminals (xterm, tmux, kitty, VTE) keep
    /// Shift-drag for their own text selection under these modes.
    nonisolated static let mouseReportsOn = "\u{1B}[?1000h\u{1B}[?1002h\u{1B}[?1006h"
    /// Every mouse mode off, 1002 too in case something else turned it on; the crash path
    /// writes the same (CTerminalShim's emergency reset).
    nonisolated static let mouseReportsOff = "\u{1B}[?1000l\u{1B}[?1002l\u{1B}[?1006l"

    /// Asks for a frame at the end of this turn of the main queue.
    public func setNeedsRedraw() {
        guard !redrawScheduled else { return }
        redrawScheduled = true
        DispatchQueue.main.async { [weak self] in
            MainActor.assumeIsolated { self?.redrawNow() }
        }
    }

    /// Draws a frame now.
    public func redrawNow() {
        redrawScheduled = false
        graphics.beginFrame()
        graphics.topLayer = compositor.top
        canvas.beginFrame()
        compositor.render(into: canvas)
        canvas.endFrame()
        frameCount += 1
        // Pictures go after curses has written the frame, so it never draws over them.
        let pictures = graphics.endFrame()
        if !pictures.bytes.isEmpty { writeBytes(pictures.bytes) }
        writeBytes(graphics.hyperlinkBytes())
        if pictures.needsRepaint {
            canvas.forceRepaint()
            setNeedsRedraw()
        }
    }

    /// Repaints every cell on the next frame (Ctrl-L).
    public func forceRedraw() {
        canvas.forceRepaint()
        graphics.screenWasRepainted()
        setNeedsRedraw()
    }

    /// Delivers `key` as if it had been typed.
    public func send(_ key: Key) {
        switch key {
        case .resize:
            updateSize()
        default:
            compositor.handle(key)
        }
        setNeedsRedraw()
    }

    /// Restores the terminal and exits with `status`, after ``onExit``.
    public func quit(status: Int32 = 0) -> Never {
        let hook = onExit
        onExit = nil
        hook?(status)
        for source in sources { source.cancel() }
        sources.removeAll()
        animationTimer?.cancel()
        writeBytes(graphics.exitBytes())
        canvas.shutdown()
        exit(status)
    }

    private func readInput() {
        // A read source that fires with nothing to read means the terminal is gone (EOF or
        // hang-up); it would fire forever, so leave. Two in a row, to tolerate one spurious wake.
        if bc_bytes_available(STDIN_FILENO) == 0 {
            emptyWakeups += 1
            if emptyWakeups >= 2 { quit(status: 129) }
            return
        }
        emptyWakeups = 0

        var keys: [Key] = []
        var value: wint_t = 0
        let window = bc_stdscr()
        while true {
            let status = wget_wch(window, &value)
            if status == bc_ERR() { break }
            if status == bc_KEY_CODE_YES() {
                let code = Int32(value)
                // curses turns the DEL of ESC DEL into KEY_BACKSPACE: with the ESC held, Alt-Backspace.
                if code == KeyDecoder.CursesKeyCode.backspace, decoder.takeLoneEscape() {
                    keys.append(.altBackspace)
                    continue
                }
                // Inside a paste, flush holds the text back until its end marker arrives.
                keys += decoder.flush()
                if let key = KeyDecoder.key(cursesKeyCode: code, name: keyname(code).map { String(cString: $0) }) {
                    keys.append(key)
                }
            } else if let scalar = Unicode.Scalar(UInt32(value)) {
                keys += decoder.feed(scalar: scalar)
            }
        }
        // curses has already waited ESCDELAY for more bytes, so what is held is complete.
        keys += decoder.flush()
        handleReplies(decoder.takeReplies())
        for key in keys { send(key) }
    }

    private func updateSize() {
        var rows: Int32 = 0, cols: Int32 = 0
        guard bc_window_size(STDOUT_FILENO, &rows, &cols) != 0, rows > 0 || cols > 0 else { return }
        if canvas.resize(rows: Int(rows), columns: Int(cols)) {
            updateCellSize()
            graphics.invalidate()
            setNeedsRedraw()
        }
    }

    private func updateAnimationTimer() {
        animationTimer?.cancel()
        animationTimer = nil
        guard isAnimating else { return }
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now() + options.animationInterval, repeating: options.animationInterval)
        timer.setEventHandler { [weak self] in
            MainActor.assumeIsolated {
                guard let self else { return }
                self.tick &+= 1
                self.compositor.tick = self.tick
                self.setNeedsRedraw()
            }
        }
        timer.resume()
        animationTimer = timer
    }
}
