import Dispatch
import TerminalUI
#if canImport(Glibc)
import Glibc
#endif

/// `ui-bench demo`: the widgets on the real terminal, shaped like the app (tabs, lists, dialogs,
/// a fake transfer with progress), so the curses path can be checked by hand or through tmux.
@MainActor
enum Demo {
    static func run() {
        do {
            let terminal = try Terminal()
            terminal.compositor.push(DemoScreen(terminal: terminal))
            terminal.start()
        } catch {
            let text = "ui-bench demo: \(error)\n"
            _ = text.withCString { write(STDERR_FILENO, $0, strlen($0)) }
            exit(1)
        }
    }
}

/// The demo's main screen.
@MainActor
final class DemoScreen: Layer {
    enum Action: Hashable, Sendable {
        case nextTab, previousTab, notesTab, photosTab, refresh, quit
        case newNote, deleteItem, renameNote, upload
    }

    static let global = KeyBindings<Action>(group: "Global", [
        .init([.tab, .backTab], .nextTab, "Switch tabs", keyLabel: "Tab / Shift-Tab"),
        .init([.char("1")], .notesTab, "Notes tab"),
        .init([.char("2")], .photosTab, "PanoPhotos tab"),
        .init([.char("r")], .refresh, "Refresh"),
        .init([.char("q")], .quit, "Quit"),
    ])
    static let notesKeys = KeyBindings<Action>(group: "Notes", [
        .init([.char("n")], .newNote, "New note"),
        .init([.char("d"), .delete], .deleteItem, "Delete note"),
        .init([.char("R")], .renameNote, "Rename note"),
    ])
    static let photosKeys = KeyBindings<Action>(group: "PanoPhotos", [
        .init([.char("u")], .upload, "Upload a photo"),
        .init([.char("d"), .delete], .deleteItem, "Delete photo"),
    ])

    let terminal: Terminal
    var tab = 0
    var notes: [ListRow]
    var photos: [ListRow]
    var notesState = ListState()
    var photosState = ListState()
    var message: StatusMessage? = StatusMessage("Welcome — press ? for help")
    var refreshing = 0
    var transfer: FakeTransfer?

    init(terminal: Terminal) {
        self.terminal = terminal
        let topics = ["fizzbuzz", "kata-roman-numerals", "challenge-42", "reply-to-anna", "club-rules", "你好-世界", "Grüße", "meetup 🎉"]
        notes = (0..<200).map { i in
            ListRow(["\(topics[i % topics.count])-\(i).txt", Self.size(Int64(300 + i * 97 % 9000)), "2026-11-\(21 - i % 20) 1\(i % 10):\(10 + i % 49)"])
        }
        photos = (0..<30).map { i in
            ListRow(["desk-\(["anna", "bo", "chen", "dev"][i % 4])-\(i).jpg", Self.size(Int64(2_000_000 + i * 313_771)), "2026-10-\(10 + i % 18)"])
        }
    }

    static func size(_ bytes: Int64) -> String {
        if bytes < 1000 { return "\(bytes) B" }
        if bytes < 1_000_000 { return "\(bytes / 1000).\(bytes % 1000 / 100) KB" }
        return "\(bytes / 1_000_000).\(bytes % 1_000_000 / 100_000) MB"
    }

    private var tabBar: TabBar { TabBar(titles: ["Notes", "PanoPhotos"], active: tab, trailing: "byteclub demo") }

    func render(into canvas: any Canvas, area: Rect) {
        let (top, rest) = area.splitTop(1)
        let (middle, bottom) = rest.splitBottom(1)
        tabBar.render(into: canvas, area: top)
        if tab == 0 {
            ListView(columns: [
                ListColumn("Title"),
                ListColumn("Size", width: .fixed(8), alignment: .right, isSecondary: true),
                ListColumn("Modified", width: .fixed(16), isSecondary: true),
            ], rows: notes, emptyHint: "No notes yet — press n to write one").render(into: canvas, area: middle, state: &notesState)
        } else {
            ListView(columns: [
                ListColumn("Name"),
                ListColumn("Size", width: .fixed(8), alignment: .right, isSecondary: true),
                ListColumn("Date", width: .fixed(10), isSecondary: true),
            ], rows: photos, emptyHint: "No photos yet — press u to upload one").render(into: canvas, area: middle, state: &photosState)
        }
        var progress: String?
        if let transfer, transfer.isBackground { progress = transfer.compact }
        StatusBar(backend: "embedded", isBusy: refreshing > 0 || transfer != nil, tick: terminal.tick, message: message,
                  progress: progress, hint: "? help").render(into: canvas, area: bottom)
    }

    func handle(_ key: Key, context: LayerContext) -> EventResult {
        if case .mouse(let x, let y) = key, let index = tabBar.hitTest(Point(x: x, y: y), in: terminal.canvas.bounds.row(0)) {
            tab = index
            return .consumed
        }
        // The list first: while its filter is typed, letters are text, not commands.
        let outcome = tab == 0 ? notesState.handle(key, rows: notes) : photosState.handle(key, rows: photos)
        if case .activated(let row) = outcome {
            activate(row, context: context)
            return .consumed
        }
        if outcome != .ignored { return .consumed }

        guard let action = Self.global.action(for: key) ?? (tab == 0 ? Self.notesKeys : Self.photosKeys).action(for: key) else {
            return .ignored
        }
        switch action {
        case .nextTab, .previousTab: tab = 1 - tab
        case .notesTab: tab = 0
        case .photosTab: tab = 1
        case .refresh: refresh()
        case .quit: quit(context: context)
        case .newNote:
            context.push(PromptLayer(title: "New note", body: ["Title of the new note:"], placeholder: "untitled",
                                     hint: "Enter create · Esc cancel",
                                     validate: { $0.allSatisfy(\.isWhitespace) ? "A note needs a title" : nil }) { [weak self] title in
                guard let self, let title else { return }
                let name = title.contains(".") ? title : title + ".txt"
                self.notes.insert(ListRow([name, "0 B", "2026-11-21 21:00"]), at: 0)
                self.notesState = ListState()
                self.message = StatusMessage("Saved \"\(name)\"", kind: .success)
            })
        case .renameNote:
            guard let row = notesState.selectedRow(in: notes) else { return .consumed }
            let old = notes[row].cells[0]
            context.push(PromptLayer(title: "Rename note", body: ["New name for “\(old)”:"], text: old, hint: "Enter rename · Esc cancel") { [weak self] name in
                guard let self, let name, !name.isEmpty else { return }
                self.notes[row] = ListRow([name] + self.notes[row].cells.dropFirst())
                self.message = StatusMessage("Renamed to \"\(name)\"", kind: .success)
            })
        case .deleteItem:
            let isNotes = tab == 0
            guard let row = isNotes ? notesState.selectedRow(in: notes) : photosState.selectedRow(in: photos) else { return .consumed }
            let name = isNotes ? notes[row].cells[0] : photos[row].cells[0]
            context.push(DialogLayer(Modal(title: "Delete", body: ["Delete “\(name)”? This cannot be undone."], buttons: ["Delete", "Cancel"]), selected: 1) { [weak self] choice in
                guard let self, choice == 0 else { return }
                if isNotes { self.notes.remove(at: row) } else { self.photos.remove(at: row) }
                self.message = StatusMessage("Deleted \"\(name)\"")
            })
        case .upload:
            context.push(PromptLayer(title: "Upload a photo", body: ["Path of the photo to upload:"], placeholder: "~/Pictures/desk.jpg",
                                     hint: "Enter upload · Esc cancel") { [weak self] path in
                guard let self, let path, !path.isEmpty else { return }
                let name = String(path.split(separator: "/").last ?? Substring(path))
                self.startTransfer(name: name, upload: true, context: context)
            })
        }
        return .consumed
    }

    func commands() -> [Command] {
        Self.global.commands + (tab == 0 ? Self.notesKeys : Self.photosKeys).commands + ListState.bindings.commands
    }

    private func activate(_ row: Int, context: LayerContext) {
        if tab == 0 {
            let name = notes[row].cells[0]
            context.push(DialogLayer(Modal(title: name, body: [
                "This is where the editor pane opens.",
                "Size \(notes[row].cells[1]), modified \(notes[row].cells[2]).",
            ], buttons: ["Close"])) { _ in })
        } else {
            startTransfer(name: photos[row].cells[0], upload: false, context: context)
        }
    }

    private func refresh() {
        refreshing += 1
        terminal.isAnimating = true
        message = StatusMessage("Refreshing…")
        DispatchQueue.main.asyncAfter(deadline: .now() + 1.2) { [weak self] in
            MainActor.assumeIsolated {
                guard let self else { return }
                self.refreshing -= 1
                self.message = StatusMessage("\(self.notes.count) notes, \(self.photos.count) photos")
                self.updateAnimation()
                self.terminal.setNeedsRedraw()
            }
        }
    }

    private func updateAnimation() { terminal.isAnimating = refreshing > 0 || transfer != nil }

    private func quit(context: LayerContext) {
        guard transfer != nil else { terminal.quit() }
        context.push(DialogLayer(Modal(title: "Quit", body: ["A transfer is still running. Quit anyway?"], buttons: ["Quit", "Cancel"]), selected: 1) { [weak self] choice in
            if choice == 0 { self?.terminal.quit() }
        })
    }

    private func startTransfer(name: String, upload: Bool, context: LayerContext) {
        guard transfer == nil else {
            message = .error("A transfer is already running")
            return
        }
        let transfer = FakeTransfer(name: name, upload: upload, total: 7_900_000)
        self.transfer = transfer
        let layer = TransferLayer(transfer: transfer) { [weak self] result in
            guard let self else { return }
            switch result {
            case .background:
                transfer.isBackground = true
            case .cancelled:
                self.transfer = nil
                self.message = StatusMessage(upload ? "Upload cancelled" : "Download paused, Enter resumes")
            }
            self.updateAnimation()
        }
        transfer.onFinish = { [weak self, weak layer] in
            guard let self else { return }
            if let layer { context.compositor.remove(layer) }
            self.transfer = nil
            self.message = StatusMessage(upload ? "Uploaded \"\(name)\"" : "Downloaded \"\(name)\"", kind: .success)
            self.updateAnimation()
        }
        transfer.onProgress = { [weak self] in self?.terminal.setNeedsRedraw() }
        transfer.start()
        context.push(layer)
        updateAnimation()
    }
}

/// A transfer that only pretends: about 1.2 MB/s of progress from a timer.
@MainActor
final class FakeTransfer {
    let name: String
    let upload: Bool
    let total: Int64
    private(set) var sent: Int64 = 0
    var isBackground = false
    var onProgress: (() -> Void)?
    var onFinish: (() -> Void)?
    private var timer: (any DispatchSourceTimer)?

    init(name: String, upload: Bool, total: Int64) {
        self.name = name
        self.upload = upload
        self.total = total
    }

    var fraction: Double { Double(sent) / Double(total) }
    var compact: String { "\(upload ? "↑" : "↓") \(Int(fraction * 100))% \(name)" }

    func start() {
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now() + .milliseconds(50), repeating: .milliseconds(50))
        timer.setEventHandler { [weak self] in
            MainActor.assumeIsolated { self?.step() }
        }
        timer.resume()
        self.timer = timer
    }

    func cancel() {
        timer?.cancel()
        timer = nil
    }

    private func step() {
        sent = min(total, sent + 60_000)
        onProgress?()
        if sent >= total {
            cancel()
            onFinish?()
        }
    }
}

/// The transfer modal: bar, `NN%`, sent / total, rate and ETA; Esc or c cancels, b backgrounds.
@MainActor
final class TransferLayer: Layer {
    enum Result { case cancelled, background }

    enum Action: Hashable, Sendable { case cancel, background }
    static let bindings = KeyBindings<Action>(group: "Transfer", [
        .init([.escape, .char("c")], .cancel, "Cancel the transfer"),
        .init([.char("b")], .background, "Keep it running in the background"),
    ])

    let transfer: FakeTransfer
    let onResult: (Result) -> Void

    init(transfer: FakeTransfer, onResult: @escaping (Result) -> Void) {
        self.transfer = transfer
        self.onResult = onResult
    }

    func render(into canvas: any Canvas, area: Rect) {
        let sent = DemoScreen.size(transfer.sent), total = DemoScreen.size(transfer.total)
        let seconds = Int(Double(transfer.total - transfer.sent) / 1_200_000)
        Modal(title: (transfer.upload ? "Uploading " : "Downloading ") + transfer.name,
              progress: transfer.fraction,
              progressDetail: "\(sent) / \(total) · 1.2 MB/s · 0:\(seconds < 10 ? "0" : "")\(seconds) left",
              hint: "Esc cancel · b background").render(into: canvas, area: area)
    }

    func handle(_ key: Key, context: LayerContext) -> EventResult {
        switch Self.bindings.action(for: key) {
        case .cancel:
            transfer.cancel()
            context.dismiss()
            onResult(.cancelled)
        case .background:
            context.dismiss()
            onResult(.background)
        case nil:
            if case .ctrl = key { return .ignored }
        }
        return .consumed
    }

    func commands() -> [Command] { Self.bindings.commands }
}
