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
}
