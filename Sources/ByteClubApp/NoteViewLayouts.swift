import ClubKit
import Dispatch
import Synchronization
import Markdown
import TerminalUI

/// The rendered view's layouts of the open note, kept by what they were made from.
///
/// A note of up to ``synchronousLineLimit`` lines is laid out when it is drawn. A bigger one
/// would cost more than a frame (a 1 MiB note: about 55 ms to parse, 200 ms to lay out), so the
/// first frame shows a window of it laid out at once (from a blank line outside code before the
/// place the view opens at, a few screens long), while the whole note is laid out on a queue of
/// its own; it replaces the window when ready (``onReady``), the view keeping its place by
/// source line. In the window, what needs the whole note (footnotes defined further on,
/// reference links) may show unresolved for that moment.
@MainActor
final class NoteViewLayouts {
    static let synchronousLineLimit = 2_000

    /// A layout, and whether it is only a window of the note.
    struct Layout {
        var note: RenderedNote
        var isWindow: Bool
    }

    /// Called when a whole layout made off the UI queue is ready.
    var onReady: @MainActor () -> Void = {}
    private var whole: (key: String, note: RenderedNote)?
    private var window: (key: String, note: RenderedNote)?
    private var running: String?
    /// Where whole layouts are made: one thread for the process, giving way to the UI. Each
    /// time the view opens it has new layouts (its layer is made again), and with a queue each
    /// their whole layouts (200 ms of CPU for a 1 MiB note) ran side by side with the UI's at its
    /// priority: Alt-V after an edit took 100–130 ms to show the window it lays out in 10.
    private static let queue = YieldingThread(name: "byteclub.noteview")
    /// The key whose whole layout is wanted now, read on the queue: a layout queued behind one
    /// for a newer edit is skipped, not made for nothing, and so is one for a view now closed.
    private let wanted = WantedKey()
    /// How a layout made on ``queue`` reaches the UI queue.
    private let hop: UIHop

    init(hop: UIHop = .main) {
        self.hop = hop
    }

    /// The layout of `lines` under `key`: the whole note's if ready, else a window around
    /// `startLine` laid out now (the whole one started).
    func layout(key: String, lines: LineStore, startLine: Int, rows: Int, width: Int, options: RenderOptions) -> Layout {
        if let whole, whole.key == key { return Layout(note: whole.note, isWindow: false) }
        guard lines.count > Self.synchronousLineLimit else {
            let note = RenderedNote.layout(Self.join(lines[...]), width: width, options: options)
            whole = (key, note)
            return Layout(note: note, isWindow: false)
        }
        if running != key {
            running = key
            wanted.set(key)
            Self.queue.async { [weak self, wanted, hop] in
                guard wanted.is(key), self != nil else { return }
                let note = RenderedNote.layout(Self.join(lines[...]), width: width, options: options)
                hop {
                    guard let self, self.running == key else { return }
                    self.running = nil
                    self.whole = (key, note)
                    self.window = nil
                    self.onReady()
                }
            }
        }
        if let window, window.key == key { return Layout(note: window.note, isWindow: true) }
        // From the blank line before the start, so a window never opens as front matter (`---`).
        let first = max(0, Self.windowStart(lines, before: startLine) - 1)
        let last = min(lines.count, max(startLine, first) + max(300, rows * 4))
        var note = RenderedNote.layout(Self.join(lines[first..<last]), width: width, options: options)
        for index in note.lines.indices { note.lines[index].sourceLine += first }
        window = (key, note)
        return Layout(note: note, isWindow: true)
    }

    nonisolated static func join(_ lines: some Collection<[Character]>) -> String {
        var text = ""
        text.reserveCapacity(lines.count * 48)
        var first = true
        for line in lines {
            if !first { text.append("\n") }
            first = false
            text.append(contentsOf: line)
        }
        return text
    }

    /// A line to start a window at, a few lines before `line`: a blank one outside fenced
    /// code (so the window does not begin inside a block), else the note's start.
    nonisolated static func windowStart(_ lines: LineStore, before line: Int) -> Int {
        let target = max(0, min(line, lines.count) - 5)
        var inFence = false
        var start = 0
        for index in 0..<target {
            let text = lines[index].drop { $0 == " " }
            if text.starts(with: "```") || text.starts(with: "~~~") {
                inFence.toggle()
            } else if text.isEmpty, !inFence {
                start = index + 1
            }
        }
        // Inside a fence, `start` is still before its opening line (blank lines in code do not count).
        return start
    }
}

/// The key of the layout wanted now, shared by the UI queue (which sets it) and the layout
/// queue (which reads it).
final class WantedKey: Sendable {
    private let key = Mutex<String?>(nil)

    func set(_ newValue: String) { key.withLock { $0 = newValue } }
    func `is`(_ candidate: String) -> Bool { key.withLock { $0 == candidate } }
}
