import TerminalUI

/// Frame times of whole screens rendered into a ``GridCanvas``.
///
/// The grid is the backend tests use; with curses, a frame costs this plus `doupdate`'s diff,
/// which only sends the cells that changed. Build in release (`swift run -c release ui-bench`).
@MainActor
enum Bench {
    static let width = 120, height = 40

    static func run(iterations: Int) {
        let rows = (0..<10_000).map { i in
            ListRow([
                "note-\(i)-" + ["fizzbuzz", "kata", "challenge", "reply", "你好 Grüße 🎉", "desk-photo"][i % 6] + ".txt",
                "\(i * 37 % 99_000) B",
                "2026-11-\(10 + i % 18) \(10 + i % 12):\(10 + i % 50)",
            ])
        }
        let columns = [
            ListColumn("Title"),
            ListColumn("Size", width: .fixed(9), alignment: .right, isSecondary: true),
            ListColumn("Modified", width: .fixed(16), isSecondary: true),
        ]
        print("ui-bench: \(rows.count)-row list, \(width)×\(height) GridCanvas, \(iterations) frames per scenario")
        print("")
        print(pad("scenario", 34) + pad("median ms", 12, right: true) + pad("p99 ms", 12, right: true) + pad("max ms", 12, right: true))
        print(String(repeating: "─", count: 70))

        var state = ListState()
        report("list, scrolling 1 row per frame", measure(iterations) { canvas, i in
            state.selected = i % rows.count
            screen(canvas, rows: rows, columns: columns, state: &state)
        })

        var filtered = ListState()
        filtered.filter = "kata"
        filtered.isEditingFilter = true
        report("list filtered (live, 1,667 hits)", measure(iterations) { canvas, i in
            filtered.selected = i % 1_667
            screen(canvas, rows: rows, columns: columns, state: &filtered)
        })

        var typing = ListState()
        let letters = Array("challenge")
        report("filter typed, 1 key per frame", measure(iterations) { canvas, i in
            if i % (letters.count + 1) == letters.count {
                _ = typing.handle(.escape, rows: rows)
                _ = typing.handle(.char("/"), rows: rows)
            } else {
                if !typing.isEditingFilter { _ = typing.handle(.char("/"), rows: rows) }
                _ = typing.handle(.char(letters[i % (letters.count + 1)]), rows: rows)
            }
            screen(canvas, rows: rows, columns: columns, state: &typing)
        })

        let help = HelpOverlay(commands: ListState.bindings.commands + TextInputState.bindings.commands + ModalState.bindings.commands)
        let modal = Modal(title: "Uploading pano.jpg", progress: 0.42, progressDetail: "3.3 MB / 7.9 MB · 1.2 MB/s", hint: "Esc cancel · b background")
        var overlaid = ListState()
        report("list + help + progress modal", measure(iterations) { canvas, i in
            overlaid.selected = i % rows.count
            screen(canvas, rows: rows, columns: columns, state: &overlaid)
            help.render(into: canvas, area: canvas.bounds)
            modal.render(into: canvas, area: canvas.bounds)
        })
    }

    /// The note editor on a 1 MiB note of 20,000 lines, cursor in the middle: each frame is one
    /// key followed by a full redraw of the editor into a 120×36 grid.
    static func runEditor(iterations: Int) {
        let (editorWidth, editorHeight) = (120, 36)
        var text = ""
        for i in 0..<20_000 {
            if i > 0 { text += "\n" }
            text += "\(i): " + ["Grüße 你好 🎉 fizzbuzz in one line, ", "the quick brown fox jumps over the lazy dog; "][i % 2]
        }
        while text.utf8.count < 1 << 20 { text += "padding " }
        let bytes = text.utf8.count
        print("ui-bench editor: \(bytes / 1024) KiB note, 20,000 lines, \(editorWidth)×\(editorHeight) GridCanvas, \(iterations) keys per scenario")
        print("")
        print(pad("scenario", 34) + pad("median ms", 12, right: true) + pad("p99 ms", 12, right: true) + pad("max ms", 12, right: true))
        print(String(repeating: "─", count: 70))

        func scenario(_ name: String, _ key: (Int) -> Key) {
            var state = NoteEditorState(title: "big-note.txt", body: text, isNew: false)
            state.body.moveCursor(to: TextBuffer.Position(line: 10_000, offset: 10))
            let editor = NoteEditor(isModified: true)
            let canvas = GridCanvas(width: editorWidth, height: editorHeight)
            func frame(_ i: Int) {
                _ = state.handle(key(i))
                canvas.clear()
                editor.render(into: canvas, area: canvas.bounds, state: &state)
            }
            for i in 0..<min(50, iterations) { frame(i) }  // warm up
            let clock = ContinuousClock()
            var samples: [Double] = []
            samples.reserveCapacity(iterations)
            for i in 0..<iterations {
                // Timed inline: a `clock.measure` closure would carry the main-actor state off it.
                let start = clock.now
                frame(i)
                let elapsed = start.duration(to: clock.now)
                samples.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1e3)
            }
            report(name, samples.sorted())
        }

        let letters = Array("hello world ")
        scenario("insert 1 character + redraw") { .char(letters[$0 % letters.count]) }
        scenario("Enter (split a line) + redraw") { _ in .enter }
        scenario("Backspace + redraw") { _ in .backspace }
        scenario("PgDn/PgUp + redraw") { $0 % 40 < 20 ? .pageDown : .pageUp }
    }

    /// One frame: clear (as `werase`), tab bar, list, status bar.
    static func screen(_ canvas: GridCanvas, rows: [ListRow], columns: [ListColumn], state: inout ListState) {
        canvas.clear()
        let (top, rest) = canvas.bounds.splitTop(1)
        let (middle, bottom) = rest.splitBottom(1)
        TabBar(titles: ["Notes", "PanoPhotos"], active: 0, trailing: "byteclub").render(into: canvas, area: top)
        ListView(columns: columns, rows: rows).render(into: canvas, area: middle, state: &state)
        StatusBar(backend: "embedded", isBusy: true, tick: state.selected, message: StatusMessage("10,000 notes"), progress: "↑ 42%", hint: "? help")
            .render(into: canvas, area: bottom)
    }

    static func measure(_ iterations: Int, _ frame: (GridCanvas, Int) -> Void) -> [Double] {
        let canvas = GridCanvas(width: width, height: height)
        for i in 0..<min(50, iterations) { frame(canvas, i) }  // warm up
        let clock = ContinuousClock()
        var samples: [Double] = []
        samples.reserveCapacity(iterations)
        for i in 0..<iterations {
            let elapsed = clock.measure { frame(canvas, i) }
            samples.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1e3)
        }
        return samples.sorted()
    }

    static func report(_ name: String, _ sorted: [Double]) {
        guard !sorted.isEmpty else { return }
        let median = sorted[sorted.count / 2]
        let p99 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
        print(pad(name, 34) + pad(format(median), 12, right: true) + pad(format(p99), 12, right: true) + pad(format(sorted.last!), 12, right: true))
    }

    static func format(_ ms: Double) -> String {
        let hundredths = Int((ms * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    static func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
        TextWidth.pad(s, to: width, alignment: right ? .right : .left)
    }
}
