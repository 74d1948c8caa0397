import TerminalUI
import XCTest

/// A layer that records what happens to it and draws its name on a row.
@MainActor
private final class Probe: Layer {
    let name: String
    let row: Int
    var consumes: Set<Key>
    var received: [Key] = []
    var log: [String]?
    var onKey: ((Key, LayerContext) -> Void)?

    init(_ name: String, row: Int = 0, consumes: Set<Key> = [], log: [String]? = nil) {
        self.name = name
        self.row = row
        self.consumes = consumes
    }

    func render(into canvas: any Canvas, area: Rect) {
        canvas.put(name, at: Point(x: 0, y: row), style: .plain)
        Probe.renderOrder.append(name)
    }

    func handle(_ key: Key, context: LayerContext) -> EventResult {
        received.append(key)
        onKey?(key, context)
        return consumes.contains(key) ? .consumed : .ignored
    }

    func commands() -> [Command] { [Command(keys: Array(consumes), description: "\(name) action", group: name)] }

    static var renderOrder: [String] = []
}

@MainActor
final class CompositorTests: XCTestCase {
    override func setUp() async throws {
        await MainActor.run { Probe.renderOrder = [] }
    }

    func testKeysGoToTheTopLayerFirst() async {
        let compositor = Compositor()
        let bottom = Probe("bottom", consumes: [.char("a"), .char("b")])
        let top = Probe("top", consumes: [.char("a")])
        compositor.push(bottom)
        compositor.push(top)

        XCTAssertEqual(compositor.handle(.char("a")), .consumed)
        XCTAssertEqual(top.received, [.char("a")])
        XCTAssertEqual(bottom.received, [], "consumed by the top layer")

        XCTAssertEqual(compositor.handle(.char("b")), .consumed)
        XCTAssertEqual(top.received, [.char("a"), .char("b")])
        XCTAssertEqual(bottom.received, [.char("b")], "ignored keys fall through")

        XCTAssertEqual(compositor.handle(.char("z")), .ignored)
    }

    func testRenderOrderIsBottomUp() async {
        let compositor = Compositor()
        compositor.push(Probe("first-layer"))
        compositor.push(Probe("second"))
        let canvas = GridCanvas(width: 40, height: 10)
        compositor.render(into: canvas)
        XCTAssertEqual(Probe.renderOrder, ["first-layer", "second"])
        XCTAssertEqual(canvas.line(0), "secondlayer", "the upper layer draws over the lower")
    }

    func testLayersPushAndPopThroughTheContext() async {
        let compositor = Compositor()
        let base = Probe("base", consumes: [.char("o")])
        let dialog = Probe("dialog", consumes: [.escape])
        base.onKey = { key, context in if key == .char("o") { context.push(dialog) } }
        dialog.onKey = { key, context in if key == .escape { context.dismiss() } }
        compositor.push(base)

        compositor.handle(.char("o"))
        XCTAssertTrue(compositor.top === dialog)
        XCTAssertEqual(compositor.layers.count, 2)

        compositor.handle(.escape)
        XCTAssertTrue(compositor.top === base)
        XCTAssertEqual(base.received, [.char("o")], "Esc was consumed by the dialog")

        compositor.push(dialog)
        XCTAssertTrue(compositor.pop() === dialog)
        XCTAssertTrue(compositor.top === base)
    }

    /// An app whose screen is a function of its state: the layers come from a source each frame
    /// and key, a layer that closes itself is the source's to take away, and pushed layers
    /// (help) stay above the derived ones.
    func testDerivedLayersFollowTheirSource() async {
        final class Source: LayerSource {
            var shown: [any Layer]
            var dismissed: [String] = []
            init(_ shown: [any Layer]) { self.shown = shown }
            func layers() -> [any Layer] { shown }
            func dismissed(_ layer: any Layer) {
                dismissed.append((layer as? Probe)?.name ?? "?")
                shown.removeAll { $0 === layer }
            }
        }
        let compositor = Compositor()
        let screen = Probe("screen", consumes: [.char("j")])
        let dialog = Probe("dialog", row: 1, consumes: [.escape])
        dialog.onKey = { key, context in if key == .escape { context.dismiss() } }
        let source = Source([screen, dialog])
        compositor.source = source
        XCTAssertTrue(compositor.top === dialog)
        XCTAssertTrue(compositor.contains(screen))

        compositor.handle(.char("j"))
        XCTAssertEqual(screen.received, [.char("j")], "a key the top layer leaves goes down the derived stack")
        compositor.handle(.escape)
        XCTAssertEqual(source.dismissed, ["dialog"], "a derived layer that closes itself asks its source")
        XCTAssertTrue(compositor.top === screen)

        // The state shows another layer: it is there at the next frame, with nothing pushed.
        source.shown.append(Probe("viewer", row: 2))
        Probe.renderOrder = []
        compositor.render(into: GridCanvas(width: 80, height: 24))
        XCTAssertEqual(Probe.renderOrder, ["screen", "viewer"])

        // Help is pushed above whatever the source derives, and pops without asking it.
        compositor.showHelp()
        XCTAssertTrue(compositor.top is HelpOverlay)
        XCTAssertEqual(compositor.layers.count, 3)
        compositor.handle(.escape)
        XCTAssertFalse(compositor.top is HelpOverlay)
        XCTAssertEqual(source.dismissed, ["dialog"], "help's own dismissal is not the source's")
    }

    func testGlobalKeysAndHelp() async {
        let compositor = Compositor()
        var redraws = 0, forced = 0, interrupts = 0
        compositor.onNeedsRedraw = { redraws += 1 }
        compositor.onForceRedraw = { forced += 1 }
        compositor.onInterrupt = { interrupts += 1 }
        compositor.push(Probe("base", consumes: [.char("n")]))

        compositor.handle(.ctrl("l"))
        compositor.handle(.ctrl("c"))
        XCTAssertEqual(forced, 1)
        XCTAssertEqual(interrupts, 1)
        XCTAssertGreaterThan(redraws, 0)

        compositor.handle(.char("?"))
        let help = compositor.top as? HelpOverlay
        XCTAssertNotNil(help)
        let listed = help!.entries.map(\.description)
        XCTAssertEqual(listed, ["base action", "Show this help", "Redraw the screen", "Quit at once"])
        compositor.handle(.char("x"))
        XCTAssertTrue(compositor.top === help, "help is modal")
        compositor.handle(.escape)
        XCTAssertFalse(compositor.top is HelpOverlay)
        compositor.handle(.f(1))
        XCTAssertTrue(compositor.top is HelpOverlay)
        compositor.handle(.char("?"))
        XCTAssertFalse(compositor.top is HelpOverlay, "? toggles help off again")
    }

    func testHelpListsEveryBindingOfTheTable() async {
        enum Action: Hashable, Sendable { case new, delete }
        let bindings = KeyBindings<Action>(group: "Notes", [
            .init([.char("n")], .new, "New note"),
            .init([.char("d"), .delete], .delete, "Delete note"),
        ])
        XCTAssertEqual(bindings.action(for: .delete), .delete)
        XCTAssertEqual(bindings.action(for: .char("n")), .new)
        XCTAssertNil(bindings.action(for: .char("x")))
        XCTAssertEqual(bindings.commands.map(\.keyLabel), ["n", "d / Delete"])
        XCTAssertEqual(bindings.commands.map(\.group), ["Notes", "Notes"])
    }

    func testDialogLayerReportsTheChoiceAndCloses() async {
        let compositor = Compositor()
        let base = Probe("base", consumes: [.char("q")])
        compositor.push(base)
        var choices: [Int?] = []
        let dialog = DialogLayer(Modal(title: "Unsaved changes", buttons: ["Save", "Discard", "Cancel"])) { choices.append($0) }
        compositor.push(dialog)

        compositor.handle(.char("q"))
        XCTAssertEqual(base.received, [], "a dialog keeps keys from the screen below")
        compositor.handle(.right)
        compositor.handle(.enter)
        XCTAssertEqual(choices, [1])
        XCTAssertFalse(compositor.contains(dialog))

        let second = DialogLayer(Modal(title: "Delete?", buttons: ["Delete", "Cancel"])) { choices.append($0) }
        compositor.push(second)
        compositor.handle(.char("c"))
        XCTAssertEqual(choices, [1, 1], "first-letter hotkey")
        let third = DialogLayer(Modal(title: "Delete?", buttons: ["Delete", "Cancel"])) { choices.append($0) }
        compositor.push(third)
        compositor.handle(.escape)
        XCTAssertEqual(choices, [1, 1, nil])
        XCTAssertTrue(compositor.top === base)
    }

    func testTooSmallReplacesTheLayersButKeysStillWork() async {
        let compositor = Compositor()
        let base = Probe("base", consumes: [.char("q")])
        compositor.push(base)
        let canvas = GridCanvas(width: 39, height: 10)
        compositor.render(into: canvas)
        XCTAssertTrue(canvas.dump().contains("Terminal too small"))
        XCTAssertEqual(Probe.renderOrder, [])
        XCTAssertEqual(compositor.handle(.char("q")), .consumed)
    }

    /// Help lists a key once, with what it does where the user is: the nearest row that binds
    /// it (a nearer layer, or an earlier row of one layer) keeps it, a farther row loses it (and
    /// goes when it has no key left), and a layer that keeps keys from the layers below hides
    /// their rows for those keys, the global ones included.
    func testHelpGivesEachKeyTheRowOfTheNearestLayerThatBindsIt() async {
        let compositor = Compositor()
        let screen = Rows("screen", [
            Command(keys: [.backTab], description: "Outdent", group: "Editor"),
            Command(keys: [.tab, .backTab], description: "Next / previous tab", group: "General"),
            Command(keys: [.backTab], description: "Previous tab", group: "General"),
            Command(keys: [.char("x")], description: "Cut", group: "Editor"),
            Command(keys: [], description: "Click to place the cursor", group: "Editor", keyLabel: "Click"),
        ])
        compositor.push(screen)
        var help = compositor.commands()
        XCTAssertEqual(help.filter { $0.keys.contains(.backTab) }.map(\.description), ["Outdent"])
        let tabRow = help.first { $0.description == "Next / previous tab" }
        XCTAssertEqual(tabRow?.keys, [.tab])
        XCTAssertEqual(tabRow?.keyLabel, "Tab", "the label says only the keys left")
        XCTAssertFalse(help.contains { $0.description == "Previous tab" }, "no key left: the row goes")

        let over = Rows("over", [Command(keys: [.char("x")], description: "Close the view", group: "View")], lets: { key in
            if case .ctrl? = key { return true }
            return false
        })
        compositor.push(over)
        help = compositor.commands()
        XCTAssertEqual(help.filter { $0.keys.contains(.char("x")) }.map(\.description), ["Close the view"])
        XCTAssertFalse(help.contains { $0.description == "Outdent" || $0.description.hasPrefix("Next") }, "kept by the layer above")
        XCTAssertFalse(help.contains { $0.description == "Click to place the cursor" }, "the mouse is kept too")
        XCTAssertEqual(help.filter { $0.group == "General" }.map(\.description), ["Redraw the screen", "Quit at once"],
                       "only the control keys get past it")
        for key in Set(help.flatMap(\.keys)) {
            XCTAssertEqual(help.filter { $0.keys.contains(key) }.count, 1, "\(key.label) is listed once")
        }
    }
}

/// A layer that lists given rows and lets through the keys `lets` says.
@MainActor
private final class Rows: Layer {
    let name: String
    let rows: [Command]
    let lets: (Key?) -> Bool

    init(_ name: String, _ rows: [Command], lets: @escaping (Key?) -> Bool = { _ in true }) {
        self.name = name
        self.rows = rows
        self.lets = lets
    }

    func render(into canvas: any Canvas, area: Rect) {}
    func handle(_ key: Key, context: LayerContext) -> EventResult { .ignored }
    func commands() -> [Command] { rows }
    func letsThrough(_ key: Key?) -> Bool { lets(key) }
}
